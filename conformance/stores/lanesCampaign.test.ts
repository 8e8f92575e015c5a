/**
 * The concurrent campaign (conformance/concurrent/campaign.ts: generated scenarios, competing
 * lanes, every history checked for linearizability against the job model) against the durable
 * stores behind lanes: SQLite with a thread and a connection per lane, PostgreSQL with a
 * connection per lane, and PostgreSQL with every lane calling one store object, whose concurrent
 * commands run in groups (one transaction each, impl/postgres/PostgresStore.ts). A few runs each,
 * with a fixed seed; the interleavings are the machine's. The grouped lanes are also run with a
 * broken group that hands each command the reply of the one before it, which the campaign must
 * catch (it shows that groups of several commands do form).
 * The PostgreSQL part needs a server (PGHOST): in CI a missing server fails it, elsewhere it is
 * skipped with that message.
 */
import { describe, expect, it } from 'vitest';
import type { Command, Reply } from '../../contract/index.ts';
import { PostgresStore, postgresPool } from '../../impl/postgres/index.ts';
import type { Counters, PostgresStoreClass, Tx } from '../../impl/postgres/index.ts';
import type { ConcurrentFactory } from '../concurrent/adapter.ts';
import { runConcurrentCampaign } from '../concurrent/campaign.ts';
import { postgresMissing, postgresRequired } from '../postgresEnv.ts';
import { checkWorkers } from './laneErrors.ts';
import { PostgresConcurrentAdapter, postgresConcurrentFactory } from './postgresConcurrent.ts';
import { sqliteConcurrentFactory } from './sqliteConcurrent.ts';

const RUNS = Number(process.env['JOBCHECK_LANE_RUNS'] ?? 6);
const missing = postgresMissing();

/** Every lane calls one store object over one pool of as many connections as lanes: its concurrent commands run in groups. */
const groupedFactory =
  (Store: PostgresStoreClass = PostgresStore): ConcurrentFactory =>
  async (config, { workers }) => {
    checkWorkers(workers);
    const pool = postgresPool('', { max: workers });
    try {
      const store = await PostgresStore.create.call(Store, pool, config);
      return new PostgresConcurrentAdapter(
        'impl/PostgresStore (lanes on one store)',
        [pool],
        Array.from({ length: workers }, () => store),
      );
    } catch (error) {
      await pool.end();
      throw error;
    }
  };

/** Broken on purpose: a command of a group is handed the reply of the command before it in the group. */
class GroupRepliesShifted extends PostgresStore {
  private readonly last = new WeakMap<Tx, Reply>();

  protected override async apply(tx: Tx, m: Counters, c: Command): Promise<Reply> {
    const reply = await super.apply(tx, m, c);
    const previous = this.last.get(tx);
    this.last.set(tx, reply);
    return previous ?? reply; // the bug
  }
}

const grouped = (Store?: PostgresStoreClass) =>
  runConcurrentCampaign({
    factory: groupedFactory(Store),
    workers: 3,
    numRuns: RUNS,
    seed: 1,
    timeoutMs: 15_000,
    maxRounds: 4,
  });

describe('the concurrent campaign against the durable stores behind lanes', () => {
  it(`finds every history of SqliteStore linearizable over ${RUNS} runs with up to 3 lanes`, async () => {
    const r = await runConcurrentCampaign({
      factory: sqliteConcurrentFactory(),
      workers: 3,
      numRuns: RUNS,
      seed: 1,
      timeoutMs: 15_000,
      maxRounds: 4,
    });
    expect(r.story).toBeNull();
    expect(r.verdict).toBe('passed');
    expect(r.runs).toBe(RUNS);
  }, 120_000);

  if (missing !== undefined && postgresRequired()) {
    it('has a PostgreSQL server (the PostgreSQL tests never skip in CI)', () => {
      expect.fail(`${missing}; .ci/run wraps the tests in scripts/pg.sh`);
    });
  }

  it.skipIf(missing !== undefined)(
    `finds every history of PostgresStore linearizable over ${RUNS} runs with up to 3 lanes${missing === undefined ? '' : ` (skipped: ${missing})`}`,
    async () => {
      const r = await runConcurrentCampaign({
        factory: postgresConcurrentFactory(),
        workers: 3,
        numRuns: RUNS,
        seed: 1,
        timeoutMs: 15_000,
        maxRounds: 4,
      });
      expect(r.story).toBeNull();
      expect(r.verdict).toBe('passed');
      expect(r.runs).toBe(RUNS);
    },
    120_000,
  );

  it.skipIf(missing !== undefined)(
    `finds every history of PostgresStore linearizable over ${RUNS} runs with up to 3 lanes calling one store (grouped commands)${missing === undefined ? '' : ` (skipped: ${missing})`}`,
    async () => {
      const r = await grouped();
      expect(r.story).toBeNull();
      expect(r.verdict).toBe('passed');
      expect(r.runs).toBe(RUNS);
    },
    120_000,
  );

  it.skipIf(missing !== undefined)(
    `catches a group that hands each command the reply of the one before it${missing === undefined ? '' : ` (skipped: ${missing})`}`,
    async () => {
      const r = await grouped(GroupRepliesShifted);
      expect(r.verdict).toBe('failed');
      expect(r.story).not.toBeNull();
    },
    120_000,
  );
});
