/**
 * better-sqlite3, loaded when a connection is opened (impl/requireDriver.ts says why not at the
 * top of a module). The only place that names the driver's own types; they are checked here
 * against the store's interfaces (SqliteDatabase.ts), and this file's declarations are imported
 * by no public declaration.
 */
import type Database from 'better-sqlite3';
import { requireDriver } from '../requireDriver.ts';
import type { SqliteDatabase } from './SqliteDatabase.ts';

/**
 * A new connection to the SQLite file at `path` (created if missing). Throws DriverMissingError
 * when better-sqlite3 is not installed.
 */
export function openSqliteDatabase(path: string, neededBy = 'the SQLite store'): SqliteDatabase {
  const Driver = requireDriver('better-sqlite3', neededBy) as typeof Database;
  const db: Database.Database = new Driver(path);
  return db;
}
