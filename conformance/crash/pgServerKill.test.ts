/**
 * A crash of the PostgreSQL server under PostgresStore (pgServerKill.ts): lanes of claim + ack,
 * each a store object with a connection of its own, and every server process killed while they
 * run. The correct store keeps every acknowledged claim and ack (its one-statement path commits
 * asynchronously, then waits for its durability barrier's flush); the variant with no barrier
 * loses some. Starts servers of its own (conformance/servers/): a machine without PostgreSQL's
 * programs skips with that message, CI fails.
 */
import { describe, expect, it } from 'vitest';
import { PostgresStore } from '../../impl/postgres/index.ts';
import { postgresVariant } from '../broken/index.ts';
import type { PostgresVariant } from '../broken/index.ts';
import { postgresBin } from '../servers/postgres.ts';
import { runServerKills } from './pgServerKill.ts';

const missing = postgresBin() === undefined ? 'no PostgreSQL server programs (initdb, postgres)' : undefined;
const required = (process.env['CI'] ?? '') !== '';

describe.skipIf(missing !== undefined && !required)(
  `a kill of the PostgreSQL server${missing === undefined ? '' : ` (skipped: ${missing})`}`,
  () => {
    it('loses no claim or ack PostgresStore acknowledged, and catches the variant with no durability barrier', async () => {
      const variant = postgresVariant('pg-async-without-barrier') as PostgresVariant;
      const [correct, broken] = await runServerKills([PostgresStore, variant.Store]);
      for (const [name, r] of [
        ['postgres', correct],
        [variant.name, broken],
      ] as const)
        console.log(`pgServerKill: ${name}: ${r?.claims} claims, ${r?.acks} acks acknowledged, ${r?.lost.length} lost`);
      expect(correct?.claims).toBeGreaterThan(0);
      expect(correct?.lost).toEqual([]);
      expect(broken?.claims).toBeGreaterThan(0);
      expect(broken?.lost.length).toBeGreaterThan(0);
    }, 90_000);
  },
);
