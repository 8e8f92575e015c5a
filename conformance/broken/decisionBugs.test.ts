import { describe, expect, it } from 'vitest';
import { DECISIONS, JobStore, withDecisions } from '../../impl/index.ts';
import type { Decisions } from '../../impl/index.ts';
import { PostgresStore } from '../../impl/postgres/index.ts';
import { SqliteStore } from '../../impl/sqlite/index.ts';
import type { AdapterFactory } from '../adapter.ts';
import { jobStoreFactory } from '../stores/jobStore.ts';
import { postgresFactory } from '../stores/postgres.ts';
import { sqliteFactory } from '../stores/sqlite.ts';
import { runCampaign } from '../random/campaign.ts';
import { postgresMissing } from '../postgresEnv.ts';
import { CATALOGUE } from './catalogue.ts';

/**
 * A decision bug is one `Decisions` record, and every store runs it: the random campaign catches
 * each decision bug of the catalogue on the memory store, on the SQLite store and (beside a
 * server: `bash scripts/pg.sh npx vitest run conformance/broken/decisionBugs.test.ts`) on the
 * PostgreSQL store, while the same stores with the contract's decisions agree with the model.
 * On PostgreSQL, where a run costs a schema and a round trip a command, the suite runs the three
 * bugs that reach its own statements (admission's extra fact, the expiry read by the `due` query,
 * the ledger row a repeat replaces); `npm run catalogue` runs all eight there.
 */
const DECISION_BUGS = CATALOGUE.flatMap((v) => (v.decisions === undefined ? [] : [[v.name, v.decisions] as const]));
const missing = postgresMissing();
const ON_POSTGRES = new Set(['capacity-forgets-running', 'lease-one-tick-late', 'commit-not-idempotent']);

const stores: Record<'memory' | 'SQLite' | 'PostgreSQL', (decisions: Decisions, name: string) => AdapterFactory> = {
  memory: (decisions, name) => jobStoreFactory(withDecisions(JobStore, decisions), name),
  SQLite: (decisions, name) => sqliteFactory({ Store: withDecisions(SqliteStore, decisions), name }),
  PostgreSQL: (decisions, name) => postgresFactory({ Store: withDecisions(PostgresStore, decisions), name }),
};

/**
 * Seed 1 finds each decision bug by its 14th run on the memory and SQLite stores (bench/firstFound.ts):
 * a campaign of BUG_RUNS stops at the bug, so its size is a cap with a margin of three times that, and
 * the controls run past every run that found one. PostgreSQL runs three stores at once (a run waits
 * on round trips).
 */
const BUG_RUNS = 40;
const verdictOf = async (factory: AdapterFactory, runs: number, parallel = 1): Promise<string> =>
  (await runCampaign({ factory, runs, seed: 1, parallel })).verdict;

describe('the decision bugs of the catalogue', () => {
  it('are the eight bugs that replace a decision', () => {
    expect(DECISION_BUGS.map(([name]) => name).sort()).toEqual([
      'backoff-not-capped',
      'capacity-forgets-running',
      'commit-not-idempotent',
      'last-attempt-requeues',
      'lease-before-deadline',
      'lease-one-tick-late',
      'payload-conflict-accepted',
      'retry-forgets-deadline',
    ]);
  });

  for (const store of ['memory', 'SQLite'] as const) {
    it(`lets the ${store} store with the contract's decisions agree with the model`, async () => {
      expect(await verdictOf(stores[store](DECISIONS, `${store}/correct`), 40)).toBe('agree');
    }, 120_000);

    it.each(DECISION_BUGS)(
      `catches %s on the ${store} store`,
      async (name, decisions) => {
        expect(await verdictOf(stores[store](decisions, `broken/${name} on ${store}`), BUG_RUNS)).toBe('diverge');
      },
      120_000,
    );
  }
});

describe.skipIf(missing !== undefined)(
  `the decision bugs on PostgreSQL${missing === undefined ? '' : ` (skipped: ${missing})`}`,
  () => {
    it("lets the PostgreSQL store with the contract's decisions agree with the model", async () => {
      expect(await verdictOf(stores.PostgreSQL(DECISIONS, 'PostgreSQL/correct'), 20, 3)).toBe('agree');
    }, 240_000);

    it.each(DECISION_BUGS.filter(([name]) => ON_POSTGRES.has(name)))(
      'catches %s on the PostgreSQL store',
      async (name, decisions) => {
        expect(await verdictOf(stores.PostgreSQL(decisions, `broken/${name} on PostgreSQL`), BUG_RUNS, 3)).toBe(
          'diverge',
        );
      },
      240_000,
    );
  },
);
