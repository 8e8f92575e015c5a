import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DRIVER_VERSIONS, DriverMissingError, driverInstallCommand } from './DriverMissingError.ts';

const ROOT = new URL('..', import.meta.url);

/**
 * Which drivers node's module cache holds in a fresh node (with tsx) after it imported the given
 * modules (paths from the repository's root), and again after it opened a SQLite file and made a
 * PostgreSQL pool. One process for both, as each start compiles the engine again.
 */
function driversLoaded(modules: readonly string[]): { imported: string[]; opened: string[] } {
  const script = `
import { createRequire } from 'node:module';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
const root = ${JSON.stringify(ROOT.href)};
const loaded = () => {
  const cached = Object.keys(createRequire(import.meta.url).cache);
  return ['better-sqlite3', 'pg'].filter((d) => cached.some((p) => p.includes('/node_modules/' + d + '/')));
};
${modules.map((m) => `await import(new URL(${JSON.stringify(m)}, root).href);`).join('\n')}
const imported = loaded();
const { openSqliteDatabase } = await import(new URL('impl/sqlite/index.ts', root).href);
const { postgresPool } = await import(new URL('impl/postgres/index.ts', root).href);
const dir = mkdtempSync(tmpdir() + '/jobcheck-driver-');
openSqliteDatabase(dir + '/a.db').close();
rmSync(dir, { recursive: true });
await postgresPool('/nowhere').end();
console.log(JSON.stringify({ imported, opened: loaded() }));
`;
  const out = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    cwd: new URL('.', ROOT),
    encoding: 'utf8',
    timeout: 60_000,
  });
  return JSON.parse(out.trim().split('\n').at(-1) ?? '{}') as { imported: string[]; opened: string[] };
}

describe('the database drivers', () => {
  it('are not loaded by importing jobcheck, its protocol harness, the stores or the check command, only when a store opens', () => {
    const { imported, opened } = driversLoaded([
      'conformance/index.ts',
      'conformance/protocol/index.ts',
      'conformance/crash/index.ts',
      'impl/index.ts',
      'impl/sqlite/index.ts',
      'impl/postgres/index.ts',
      'impl/protocol/index.ts',
      'cli/checkCommand.ts',
    ]);
    expect(imported).toEqual([]);
    // The probe sees a driver once one is loaded: opening a SQLite file and making a pool load both.
    expect(opened).toEqual(['better-sqlite3', 'pg']);
  });

  it('are pinned in the install command at the versions package.json tests with, inside its peer ranges', () => {
    const pkg = JSON.parse(readFileSync(new URL('package.json', ROOT), 'utf8')) as {
      devDependencies: Record<string, string>;
      peerDependencies: Record<string, string>;
      peerDependenciesMeta: Record<string, { optional?: boolean }>;
      dependencies: Record<string, string>;
    };
    for (const [driver, version] of Object.entries(DRIVER_VERSIONS)) {
      expect(pkg.devDependencies[driver]).toBe(version);
      expect(pkg.peerDependencies[driver]).toBe(`^${version}`);
      expect(pkg.peerDependenciesMeta[driver]?.optional).toBe(true);
      expect(pkg.dependencies[driver]).toBeUndefined();
    }
  });

  it('when missing, are one error with a stable code that names the package, what needs it and the install command', () => {
    const error = new DriverMissingError('better-sqlite3', 'the SQLite store', { cause: new Error('not found') });
    expect(error).toMatchObject({ name: 'DriverMissingError', code: 'driver_missing', driver: 'better-sqlite3' });
    expect(error.message).toBe(
      'the SQLite store needs the package better-sqlite3, which is not installed: npm install better-sqlite3@12.11.1',
    );
    expect(driverInstallCommand('pg')).toBe('npm install pg@8.23.1');
  });
});
