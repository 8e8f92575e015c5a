/**
 * BullMQ with its PostgreSQL backend as a profile target: the version driven, the factory, and
 * what BullMQ has no feature for (README.md gives the mapping of every rule, this file only the
 * declarations). Everything not declared here is checked against the model as it stands, so a
 * departure of BullMQ shows as a departure.
 */
import { createRequire } from 'node:module';
import type { RuleDeclaration, ProfileTarget, UpstreamReport } from '../../conformance/profile/target.ts';
import type { RuleId } from '../../contract/rules.ts';
import { bullmqPostgresFactory } from './adapter.ts';
import type { BullmqFactoryOptions } from './adapter.ts';

/** The exact BullMQ version installed, from its package.json. */
export const BULLMQ_VERSION: string = (createRequire(import.meta.url)('bullmq/package.json') as { version: string })
  .version;

/** What BullMQ declares of the contract's rules, with the reason for each. */
export const BULLMQ_DECLARATIONS: Partial<Record<RuleId, RuleDeclaration>> = {
  'malformed-command-refused': {
    kind: 'unsupported',
    why: "BullMQ never sees the contract's JSON commands: the adapter decodes them (it must, to call BullMQ's typed API), so refusing a malformed one would check the adapter, not BullMQ.",
  },
  'clock-never-regresses': {
    kind: 'unsupported',
    why: "BullMQ reads the wall clock (Date.now) and keeps no clock of its own to compare a command's time with; the adapter's clock stands in for the wall clock, and a wall clock does not run backwards.",
  },
  'capacity-counts-running': {
    kind: 'unsupported',
    why: 'BullMQ has no bound on the number of unfinished jobs of a queue: queue.add always admits a new job.',
  },
  'account-head-only': {
    kind: 'variant',
    variant: 'no-account-order',
    why: "Per-account order needs groups, which only BullMQ Pro has; open-source BullMQ hands out a queue's jobs in its own FIFO order whatever their account, so a running or delayed job does not hold back its account's later jobs.",
  },
  'deadline-kills': {
    kind: 'unsupported',
    why: 'BullMQ 6.7.0 has no job deadline or time to live (the job options are delay, attempts, backoff, priority, lifo, retention): a job never dies because a time has come.',
  },
  'deadline-precedes-lease': {
    kind: 'unsupported',
    why: 'BullMQ has no job deadline, so there is no precedence between a deadline and a lock expiry.',
  },
  'no-retry-after-deadline': {
    kind: 'unsupported',
    why: 'BullMQ has no job deadline: a retry is scheduled whatever its time.',
  },
  'backoff-capped': {
    kind: 'variant',
    variant: 'uncapped-backoff',
    why: "BullMQ's built-in exponential backoff waits delay x 2^(attemptsMade - 1) and has no maximum; the cap would need a custom backoff strategy, which is the user's code, not BullMQ's.",
  },
  'counters-stay-safe': {
    kind: 'unsupported',
    why: 'The edge (nextSeq or nextToken at 2^53 - 1) is reached only by restoring a snapshot there; BullMQ cannot be restored from a snapshot (the restart reopens its tables), and counting from 1 never gets there.',
  },
};

/** Upstream reports of the same behaviour, by rule, each with what the thread says. */
export const BULLMQ_UPSTREAM: Partial<Record<RuleId, UpstreamReport>> = {
  'changed-payload-conflicts': {
    url: 'https://github.com/taskforcesh/bullmq/issues/3214',
    says: 'queue.add with a custom jobId already in the queue schedules nothing new, yet returns a job holding the new data rather than the stored job; labelled "works as designed".',
  },
};

/** The profile target of BullMQ on PostgreSQL, on the server `options.target` names (default: PGHOST and the rest). */
export function bullmqPostgresTarget(options: BullmqFactoryOptions = {}): ProfileTarget {
  return {
    queue: 'bullmq (PostgreSQL backend)',
    version: BULLMQ_VERSION,
    factory: bullmqPostgresFactory(BULLMQ_VERSION, options),
    // A schema per instance, and a profile that mostly waits on PostgreSQL: four rules' campaigns at once.
    parallel: 4,
    declarations: BULLMQ_DECLARATIONS,
    upstream: BULLMQ_UPSTREAM,
  };
}

/** The profile target on the server of libpq's environment (PGHOST, PGDATABASE, PGUSER, ...). */
export const bullmqPostgres: ProfileTarget = bullmqPostgresTarget();
