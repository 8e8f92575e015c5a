/**
 * node-postgres (pg), loaded when a pool is made or a literal is written (impl/requireDriver.ts
 * says why not at the top of a module). The driver's own types are named here and in the bodies
 * that call it, never in a public declaration (PgPool.ts).
 */
import type pg from 'pg';
import { requireDriver } from '../requireDriver.ts';

/** The pg module. Throws DriverMissingError when pg is not installed. */
export const loadPg = (neededBy = 'the PostgreSQL store'): typeof pg => requireDriver('pg', neededBy) as typeof pg;
