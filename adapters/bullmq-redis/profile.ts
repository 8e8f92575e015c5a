/**
 * BullMQ on Redis as a profile target: the version driven, the factory and the competing workers'
 * factory (a lane of separate connections per worker), the clock it runs on (the Redis server's,
 * in wall-clock mode), the tolerance of each rule its timers touch, and what BullMQ has no feature
 * for (README.md gives the mapping of every rule, this file only the declarations). Everything not
 * declared here is checked against the model as it stands, so a departure of BullMQ shows as a
 * departure. The module also exports `createAdapter` and `createConcurrentAdapter`, so that
 * `jobcheck check --module adapters/bullmq-redis/profile.ts --workers 4` runs against the same
 * server (module.ts re-exports them under its older path).
 */
import { createRequire } from 'node:module';
import type { AdapterFactory } from '../../conformance/adapter.ts';
import type { ConcurrentFactory } from '../../conformance/concurrent/adapter.ts';
import type { ProfileTarget, RuleDeclaration } from '../../conformance/profile/target.ts';
import type { RuleId } from '../../contract/rules.ts';
import {
  DEFAULT_STALLED_INTERVAL_MS,
  DEFAULT_TICK_MS,
  bullmqRedisConcurrentFactory,
  bullmqRedisFactory,
} from './adapter.ts';
import type { BullmqRedisOptions } from './adapter.ts';

/** The exact BullMQ version installed, from its package.json. */
export const BULLMQ_REDIS_VERSION: string = (
  createRequire(import.meta.url)('bullmq/package.json') as { version: string }
).version;

/** What BullMQ on Redis declares of the contract's rules, with the reason for each. */
export const BULLMQ_REDIS_DECLARATIONS: Partial<Record<RuleId, RuleDeclaration>> = {
  'malformed-command-refused': {
    kind: 'unsupported',
    why: "BullMQ never sees the contract's JSON commands: the adapter decodes them (it must, to call BullMQ's typed API), so refusing a malformed one would check the adapter, not BullMQ.",
  },
  'clock-never-regresses': {
    kind: 'unsupported',
    why: "Time is the Redis server's clock and the client's Date.now, which nobody outside moves; the adapter's wall clock maps ticks onto them and cannot go back, so a regressing `now` would only check the adapter.",
  },
  'capacity-counts-running': {
    kind: 'unsupported',
    why: 'BullMQ has no bound on the number of unfinished jobs of a queue: queue.add always admits a new job (Redis itself is bounded only by maxmemory).',
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
    why: 'The edge (nextSeq or nextToken at 2^53 - 1) is reached only by restoring a snapshot there; BullMQ on Redis cannot be restored from a snapshot (a restart reconnects to the same keys), and counting from 1 never gets there.',
  },
};

/** The tolerance of each rule BullMQ's timers touch, at the default tick. */
export const BULLMQ_REDIS_TOLERANCES: Partial<Record<RuleId, string>> = {
  'lease-equality-expires': `A lease of L ticks is a Redis lock key with a TTL of L x ${DEFAULT_TICK_MS} - ${DEFAULT_TICK_MS / 2} ms from when the claim reached Redis, and BullMQ's stalled checker (every ${DEFAULT_STALLED_INTERVAL_MS} ms, two passes) moves the job back after the key is gone: the expiry is seen at its tick when the claim's delay after its tick began plus the checker's lag stay under ${DEFAULT_TICK_MS / 2} ms (medians 19 ms and 11 ms, measured with 200 ms ticks and a 20 ms checker), and a tick late otherwise.`,
  'expiry-with-attempts-left-requeues': `As lease-equality-expires: the requeue is seen at the lease's end tick unless the claim was late and the checker slow by more than ${DEFAULT_TICK_MS / 2} ms together, then a tick later.`,
  'last-attempt-expiry-is-dead': `As lease-equality-expires (BullMQ's stalled checker decides, on the Redis server's clock).`,
  'stale-token-refused': `An ack or fail is refused once the lock key is gone on the Redis server's clock, ${DEFAULT_TICK_MS / 2} ms before the lease's end tick plus the claim's delay: at the end tick it is refused unless the claim reached Redis more than ${DEFAULT_TICK_MS / 2} ms after its tick began; at the tick before, accepted unless that tick's commands ran more than ${DEFAULT_TICK_MS / 2} ms late.`,
  'snapshot-restore-round-trip': `A restart closes and reopens every BullMQ connection, which takes real time (more than ${DEFAULT_TICK_MS / 2} ms on a loaded machine) while the contract's clock stands still; locks keep running on the Redis server's clock meanwhile, so a lease ending within a tick of the restart may end during it.`,
  'backoff-ends-at-not-before': `Exact: BullMQ's client reads Date.now as the start of the command's tick, so a retry delayed d ticks is due at tick f + d (promotion happens inside the next claim).`,
};

/** The profile target of BullMQ on Redis, on the server `options.url` names (default JOBCHECK_REDIS_URL). */
export function bullmqRedisTarget(options: BullmqRedisOptions = {}): ProfileTarget {
  return {
    queue: 'bullmq (Redis)',
    version: BULLMQ_REDIS_VERSION,
    factory: bullmqRedisFactory(BULLMQ_REDIS_VERSION, options),
    concurrentFactory: bullmqRedisConcurrentFactory(BULLMQ_REDIS_VERSION, options),
    declarations: BULLMQ_REDIS_DECLARATIONS,
    clock: {
      kind: 'wall',
      tickMs: options.tickMs ?? DEFAULT_TICK_MS,
      settings: `lockDuration (leaseTicks − ½) ticks from the claim, stalledInterval ${options.stalledIntervalMs ?? DEFAULT_STALLED_INTERVAL_MS} ms, backoff delay backoffBase ticks (exponential)`,
    },
    tolerances: BULLMQ_REDIS_TOLERANCES,
  };
}

/** The profile target on the server JOBCHECK_REDIS_URL names (`jobcheck profile --module adapters/bullmq-redis/profile.ts`). */
export const profileTarget: ProfileTarget = bullmqRedisTarget();

/** Fresh, empty BullMQ queues on Redis, one lane each (`jobcheck check --module adapters/bullmq-redis/profile.ts`). */
export const createAdapter: AdapterFactory = bullmqRedisFactory(BULLMQ_REDIS_VERSION);

/** Fresh, empty BullMQ queues on Redis with a lane (its own connections) per competing worker (`--workers N`). */
export const createConcurrentAdapter: ConcurrentFactory = bullmqRedisConcurrentFactory(BULLMQ_REDIS_VERSION);
