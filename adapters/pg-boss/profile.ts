/**
 * pg-boss as a profile target: the adapter's factory, the exact version driven (read from the
 * installed package), and what pg-boss declares of the contract before anything is run. Every rule
 * not declared here is checked against the model as it stands, and pg-boss's departures from it
 * show as departures (README.md lists those seen, rule by rule, with their stories in
 * departures.test.ts).
 */
import { createRequire } from 'node:module';
import type { ProfileTarget } from '../../conformance/profile/target.ts';
import { nameUuid, pgBossFactory } from './adapter.ts';
import type { PgBossFactoryOptions } from './adapter.ts';

/** The version of the installed pg-boss, from its package.json. */
export const PG_BOSS_VERSION: string = (createRequire(import.meta.url)('pg-boss/package.json') as { version: string })
  .version;

/** The profile target for pg-boss on the server `options.target` names (default: PGHOST and the rest). Pure: connects only when its factory is called. */
export function pgBossTarget(options: PgBossFactoryOptions = {}): ProfileTarget {
  return {
    queue: 'pg-boss',
    version: PG_BOSS_VERSION,
    // Job uuids named by the contract's ids: pg-boss orders same-instant jobs by uuid, so random ones would make the profile differ from run to run.
    factory: pgBossFactory({ newId: nameUuid, ...options }),
    declarations: {
      'capacity-counts-running': {
        kind: 'unsupported',
        why: 'pg-boss has no bound on the number of unresolved jobs in a queue; the adapter never refuses a submit for capacity.',
      },
      'owner-checked': {
        kind: 'unsupported',
        why: 'pg-boss records no worker for a fetched job: complete(), fail() and cancel() are fenced on the attempt ({id, retryCount}) alone, so whoever holds the attempt settles it.',
      },
      'counters-stay-safe': {
        kind: 'unsupported',
        why: "Tokens and admission numbers are the adapter's own counters (pg-boss has neither); TIME_MAX is reachable only by restoring a snapshot, and a pg-boss queue cannot be built from one.",
      },
      'account-head-only': {
        kind: 'variant',
        variant: 'failed-job-keeps-blocking',
        why: 'Per-account order is the key_strict_fifo policy with singletonKey = account, which by design keeps a key blocked behind its failed job until someone retries or deletes it. A cancelled job (a permanent failure) blocks nothing, and a job its retention deleted (the deadline) is gone, so those two kinds of dead job still depart from the variant.',
      },
      'backoff-capped': {
        kind: 'variant',
        variant: 'jittered-backoff-upward',
        why: "retryBackoff waits min(retryDelayMax, retryDelay × 2^retryCount × (1 + random())) seconds: never less than the contract's delay min(backoffBase × 2^(attempts−1), backoffCap), up to min(2 × backoffBase × 2^(attempts−1), backoffCap), rounded up to whole ticks. No model variant allows a delay above the contract's yet.",
      },
    },
    upstream: {
      'account-head-only': 'https://github.com/timgit/pg-boss/pull/691',
      'oldest-ready-head-first': 'https://github.com/timgit/pg-boss/pull/848',
      'backoff-capped': 'https://github.com/timgit/pg-boss/issues/672',
      'expiry-with-attempts-left-requeues': 'https://github.com/timgit/pg-boss/issues/132',
      'permanent-failure-dead': 'https://github.com/timgit/pg-boss/issues/516',
    },
  };
}

/** pg-boss on the server PGHOST names. */
export const pgBossProfile: ProfileTarget = pgBossTarget();
