/**
 * The one error for a database driver that is not installed. The SQLite and PostgreSQL stores'
 * drivers (better-sqlite3, pg) are optional peer dependencies of the package: a project that only
 * checks an implementation over the protocol, or the in-memory store, installs neither and
 * compiles nothing. They are loaded when a store that needs one is opened (requireDriver.ts), and
 * a missing one is this error, whose message names the package and the command that installs the
 * version this package is tested with.
 */
import { CodedError } from '../contract/CodedError.ts';

/**
 * The drivers a store may need, with the version this package is tested with (package.json's
 * devDependencies; cli/pack.test.ts holds the two equal).
 */
export const DRIVER_VERSIONS = { 'better-sqlite3': '12.11.1', pg: '8.23.1' } as const;

/** The name of a driver package: `better-sqlite3` (the SQLite store) or `pg` (the PostgreSQL store). */
export type DriverName = keyof typeof DRIVER_VERSIONS;

/** The command that installs `driver` at the tested version. Pure. */
export const driverInstallCommand = (driver: DriverName): string => `npm install ${driver}@${DRIVER_VERSIONS[driver]}`;

/**
 * A store needs a driver package that cannot be loaded from the project: `code` is
 * `driver_missing`, `driver` names the package, and the message says what needs it and the
 * install command (`npm install better-sqlite3@12.11.1`); `cause` is the loader's own error.
 */
export class DriverMissingError extends CodedError<'driver_missing'> {
  override name = 'DriverMissingError' as const;
  /** The package that is missing. */
  readonly driver: DriverName;
  constructor(driver: DriverName, neededBy: string, options?: { cause?: unknown }) {
    super(
      'driver_missing',
      `${neededBy} needs the package ${driver}, which is not installed: ${driverInstallCommand(driver)}`,
      options,
    );
    this.driver = driver;
  }
}
