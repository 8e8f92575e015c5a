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
    // A schema per instance, and a profile that mostly waits on PostgreSQL: four rules' campaigns at once.
    parallel: 4,
    declarations: {
      'malformed-command-refused': {
        kind: 'unsupported',
        why: "pg-boss never sees the contract's JSON commands: the adapter decodes them (it must, to call pg-boss's typed API), so refusing a malformed one would check the adapter, not pg-boss.",
      },
      'clock-never-regresses': {
        kind: 'unsupported',
        why: "pg-boss takes no time from a worker: it reads its clock (a TestClock here, JavaScript's and the database's time together), which the adapter sets to each command's tick and never moves back, so a regressing now would check the adapter.",
      },
      'capacity-counts-running': {
        kind: 'unsupported',
        why: 'pg-boss has no bound on the number of unresolved jobs in a queue; the adapter never refuses a submit for capacity.',
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
    // Each thread read and summarised in what it says about the rule; threads that touch a rule only in passing are not cited.
    upstream: {
      'account-head-only': {
        url: 'https://github.com/timgit/pg-boss/pull/691',
        says: 'the pull request that added the key_strict_fifo policy: one active job per singletonKey, a retrying job blocks its key, and a job that exhausts its retries blocks it until it is retried or deleted by hand.',
      },
      'oldest-ready-head-first': {
        url: 'https://github.com/timgit/pg-boss/issues/685',
        says: 'a user sees about 500 jobs due at the same time picked in a seemingly random order and asks whether that order is intended and stable (no answer in the thread).',
      },
      'backoff-capped': {
        url: 'https://github.com/timgit/pg-boss/issues/441',
        says: "asks for a limit on retryBackoff's delay, then uncapped and jittered (2^n/2 + 2^n/2 × random() seconds, up to tens of hours); the maintainer answers that v11 addresses it (retryDelayMax).",
      },
      'expiry-with-attempts-left-requeues': {
        url: 'https://github.com/timgit/pg-boss/issues/443',
        says: "a job that runs past expireInSeconds ends up failed with the error 'handler execution exceeded 2000ms', not expired; the maintainer answers that the expired state will be obsolete (expiry is a failure like any other).",
      },
      'permanent-failure-dead': {
        url: 'https://github.com/timgit/pg-boss/issues/516',
        says: 'asks how to fail a job without its configured retries: fail() puts it back in retry; the maintainer suggests deleting it, and the asker settles on cancel().',
      },
    },
  };
}

/** pg-boss on the server PGHOST names. */
export const pgBossProfile: ProfileTarget = pgBossTarget();
