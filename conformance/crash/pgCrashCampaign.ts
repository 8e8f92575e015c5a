/**
 * The PostgreSQL store as a crash target (crashRun.ts), and its campaign: each run's store is a
 * schema of its own, the worker is pgWorker.ts, killed by SIGKILL at one of the fault points of
 * impl/faults.ts. The server survives the client, as it does when a worker machine dies: it rolls
 * back the killed connection's open transaction. This process then opens the same schema and the
 * campaign checks every property of crashRun.ts; `intact` has no storage check of its own here
 * (the server keeps its files), only the reopen and the snapshot, and the ledger is checked on the
 * rows (the primary key rules out duplicate rows, so what is left is each balance against its
 * ledger's sum). The contention check runs lanes in this process, each its own connection, on one
 * schema: a claim that takes no row locks hands one delivery out twice there.
 */
import type { PgPool } from '../../impl/postgres/index.ts';
import type { Reply } from '../../contract/index.ts';
import { PostgresStore, postgresPool, quoteIdent } from '../../impl/postgres/index.ts';
import { postgresVariant } from '../broken/index.ts';
import type { CrashCampaignOptions, CrashCampaignResult } from './crashCampaign.ts';
import { runCrashCampaign } from './crashCampaign.ts';
import type { ContentionResult, CrashTarget } from './crashRun.ts';
import { contentionEndProblems, runWorker } from './crashRun.ts';
import type { PostgresWorkerRequest } from './pgWorker.ts';
import { codeOf, messageOf } from '../../contract/index.ts';

/** Options of a PostgreSQL crash campaign: those of any campaign, the variant a PostgreSQL one. */
export interface PostgresCrashOptions extends Omit<CrashCampaignOptions, 'target' | 'variant'> {
  /** `postgres` (default) or a broken variant's name (conformance/broken/postgres/). */
  readonly variant?: string;
  /** The server: a postgres:// URL, a unix socket folder, or empty for libpq's environment, PGHOST and the rest (default). */
  readonly server?: string;
}

/** The ledger checked on the rows: balances that are not their ledger's sum (the primary key rules out duplicate rows). */
async function ledgerProblems(pool: PgPool, schema: string): Promise<string[]> {
  const s = quoteIdent(schema);
  const rows = (
    await pool.query(
      `SELECT encode(coalesce(b.account, e.account), 'hex') AS account, b.balance, e.total FROM ${s}.balances b
       FULL JOIN (SELECT account, SUM(amount)::bigint AS total FROM ${s}.effects GROUP BY account) e ON e.account = b.account
       WHERE b.balance IS DISTINCT FROM e.total`,
    )
  ).rows as { account: string; balance: number | null; total: number | null }[];
  return rows.map(
    (r) => `balance of account 0x${r.account} is ${r.balance ?? 'missing'}, its ledger sums to ${r.total ?? 'nothing'}`,
  );
}

/** Lanes of the contention check, each its own connection. */
const LANES = 3;

/**
 * Lanes in this process, each a pool of one connection and a store object of its own on one
 * schema, running `rounds` times submit, claim, commit and ack at now 0 as fast as they can.
 * Checks that every command got a contract reply, that no token was handed out twice and that
 * the tokens issued are the claims answered.
 */
export async function runPostgresContention(
  variant: string,
  server: string | undefined,
  rounds: number,
): Promise<ContentionResult> {
  const v = postgresVariant(variant);
  if (v === undefined) throw new Error(`no PostgreSQL variant named ${JSON.stringify(variant)}`);
  const pools = Array.from({ length: LANES }, () => postgresPool(server, { max: 1 }));
  const first = pools[0] as PgPool;
  const created = await PostgresStore.create.call(v.Store, first, {
    capacity: 10_000,
    maxAttempts: 3,
    leaseTicks: 1_000_000,
    backoffBase: 1,
    backoffCap: 1,
  });
  const errors: string[] = [];
  const problems: string[] = [];
  const tokens = new Map<number, string>();
  let claims = 0;
  let commands = 0;
  try {
    const stores = await Promise.all(pools.map((p) => PostgresStore.open.call(v.Store, p, created.schema)));
    const attempt = async (store: PostgresStore, command: Record<string, unknown>): Promise<Reply | undefined> => {
      commands += 1;
      try {
        return await store.execute(command);
      } catch (error) {
        errors.push(`${String(codeOf(error) ?? 'error')}: ${messageOf(error)} (during ${JSON.stringify(command)})`);
        return undefined;
      }
    };
    await Promise.all(
      stores.map(async (store, lane) => {
        const worker = `w${lane}`;
        for (let i = 0; i < rounds; i++) {
          await attempt(store, {
            type: 'submit',
            id: `${worker}-${i}`,
            account: `${worker}-${i % 4}`,
            key: `k${i}`,
            amount: 1,
            deadline: 1_000_000,
            now: 0,
          });
          const claim = await attempt(store, { type: 'claim', worker, now: 0 });
          if (claim === undefined || !claim.ok || claim.type !== 'claim' || claim.job === null) continue;
          claims += 1;
          const seen = tokens.get(claim.job.token);
          if (seen !== undefined)
            problems.push(
              `token ${claim.job.token} was handed out twice (${seen} and ${claim.job.id}, the second time to ${worker})`,
            );
          tokens.set(claim.job.token, claim.job.id);
          await attempt(store, { type: 'commit', worker, token: claim.job.token, now: 0 });
          await attempt(store, { type: 'ack', worker, token: claim.job.token, now: 0 });
        }
      }),
    );
    problems.push(...contentionEndProblems(await created.snapshot(), claims));
  } finally {
    await created.drop();
    await Promise.all(pools.map((p) => p.end()));
  }
  return { setup: `${LANES} lanes on one schema, each its own connection`, errors, problems, commands };
}

/** The PostgreSQL store `variant` (`postgres` or a broken variant of conformance/broken/postgres/) as a crash target on `server` (see PostgresCrashOptions). */
export function postgresCrashTarget(variant = 'postgres', server?: string, connections = 4): CrashTarget {
  const v = postgresVariant(variant);
  if (v === undefined) throw new Error(`no PostgreSQL variant named ${JSON.stringify(variant)}`);
  const pool = postgresPool(server, { max: connections });
  return {
    name: variant,
    create: async (_index, config) => (await PostgresStore.create.call(v.Store, pool, config)).schema,
    work: (schema, commands, fault) =>
      runWorker(
        { schema, variant, commands, ...(server === undefined ? {} : { server }) } satisfies PostgresWorkerRequest,
        fault,
        undefined,
        'pgWorker',
      ),
    integrity: () => Promise.resolve(undefined),
    open: async (schema) => {
      const store = await PostgresStore.open.call(v.Store, pool, schema);
      return {
        config: store.config,
        execute: (command: unknown) => store.execute(command),
        snapshot: () => store.snapshot(),
        close: () => store.close(),
      };
    },
    ledger: (schema) => ledgerProblems(pool, schema),
    discard: async (schema) => void (await pool.query(`DROP SCHEMA IF EXISTS ${quoteIdent(schema)} CASCADE`)),
    contention: (rounds) => runPostgresContention(variant, server, rounds),
    close: () => pool.end(),
  };
}

/** Runs a crash campaign of the PostgreSQL store (or a broken variant); failures are data. Every run's schema is dropped. */
export function runPostgresCrashCampaign(options: PostgresCrashOptions): Promise<CrashCampaignResult> {
  const { variant, server, ...rest } = options;
  return runCrashCampaign({ ...rest, target: postgresCrashTarget(variant, server, (options.parallel ?? 2) * 2) });
}
