/**
 * node-postgres (pg), loaded when a pool is made or a literal is written (impl/requireDriver.ts
 * says why not at the top of a module). The driver's own types are named here and in the bodies
 * that call it, never in a public declaration (PgPool.ts).
 *
 * The module is kept once loaded: `require` resolves the package's path again on every call
 * (through every resolve hook installed, tsx's among them), and the store asks for the driver on
 * its hot path (a type parser for each column of each result, a literal for each string it
 * writes); that resolution was a tenth of the store's CPU time at one worker.
 */
import type pg from 'pg';
import { requireDriver } from '../requireDriver.ts';

let loaded: typeof pg | undefined;

/** The pg module, loaded on the first call and kept. Throws DriverMissingError when pg is not installed. */
export const loadPg = (neededBy = 'the PostgreSQL store'): typeof pg =>
  (loaded ??= requireDriver('pg', neededBy) as typeof pg);
