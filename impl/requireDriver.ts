/**
 * Loads a database driver when a store needs it, never before: nothing imports better-sqlite3 or
 * pg at the top of a module, so importing `jobcheck`, its protocol harness or the in-memory store
 * loads neither, and a project without them still works (DriverMissingError.ts says why).
 *
 * `require` from `createRequire`, not `await import()`: both drivers are CommonJS packages, and
 * the SQLite store's constructors are synchronous (better-sqlite3 is), as is `postgresPool`, so a
 * synchronous load keeps every store's API as it was. The package is resolved from this file, that
 * is from the project that installed jobcheck, where a peer dependency lives; node caches it, so
 * the second store opened costs a map look-up.
 */
import { createRequire } from 'node:module';
import { DriverMissingError, type DriverName } from './DriverMissingError.ts';

const require = createRequire(import.meta.url);

/**
 * The module of the driver `name`, loaded on first use. Throws DriverMissingError when the
 * package cannot be found from this project; any other failure to load it is rethrown as it is.
 */
export function requireDriver(name: DriverName, neededBy: string): unknown {
  try {
    return require(name);
  } catch (error) {
    const code = (error as { code?: unknown } | null)?.code;
    const missing =
      code === 'MODULE_NOT_FOUND' && error instanceof Error && error.message.includes(`Cannot find module '${name}'`);
    if (missing) throw new DriverMissingError(name, neededBy, { cause: error });
    throw error;
  }
}
