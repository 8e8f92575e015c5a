/**
 * A Redis Streams consumer group as a profile target: the server and client versions, the
 * factory and the competing workers' factory (a connection per lane), the wall clock (Redis's,
 * which nobody moves), the tolerance of each rule its idle times touch, and what Streams have no
 * operation for. The dead-letter stream is the adapter's policy (a team's worker code), named in
 * the clock's settings line so that the page says so; README.md maps every rule. Everything not
 * declared here is checked against the model as it stands, so a departure shows. The module also
 * exports `createAdapter` and `createConcurrentAdapter` for `jobcheck check --module`.
 */
import { createRequire } from 'node:module';
import type { AdapterFactory } from '../../conformance/adapter.ts';
import type { ConcurrentFactory } from '../../conformance/concurrent/adapter.ts';
import type { ProfileTarget, RuleDeclaration } from '../../conformance/profile/target.ts';
import type { RuleId } from '../../contract/rules.ts';
import { DEFAULT_TICK_MS, redisStreamsConcurrentFactory, redisStreamsFactory } from './adapter.ts';
import type { RedisStreamsOptions } from './adapter.ts';

/** The exact ioredis version installed, from its package.json. */
export const IOREDIS_VERSION: string = (createRequire(import.meta.url)('ioredis/package.json') as { version: string })
  .version;

/** The redis-server this profile was written against (Debian's package). */
export const REDIS_SERVER_VERSION = '7.0.15';

/** What a Redis Streams consumer group declares of the contract's rules, with the reason for each. */
export const REDIS_STREAMS_DECLARATIONS: Partial<Record<RuleId, RuleDeclaration>> = {
  'malformed-command-refused': {
    kind: 'unsupported',
    why: "Redis never sees the contract's JSON commands: the adapter decodes them (it must, to call XADD, XREADGROUP and XACK), so refusing a malformed one would check the adapter, not Redis.",
  },
  'clock-never-regresses': {
    kind: 'unsupported',
    why: "Idle times run on the Redis server's clock, which nobody outside moves; the adapter's wall clock maps ticks onto it and cannot go back, so a regressing now would check the adapter.",
  },
  'capacity-counts-running': {
    kind: 'unsupported',
    why: "XADD has no bound that refuses an entry: MAXLEN and MINID trim the stream's oldest entries, pending or not, rather than refuse the new one.",
  },
  'deadline-kills': {
    kind: 'unsupported',
    why: 'A stream entry has no expiry of its own in Redis 7.0 (trimming is by length or id, for every entry alike): the deadline travels as a field and nothing reads it.',
  },
  'deadline-precedes-lease': {
    kind: 'unsupported',
    why: 'A stream entry has no deadline, so there is no precedence between a deadline and a min-idle time.',
  },
  'no-retry-after-deadline': {
    kind: 'unsupported',
    why: 'A stream entry has no deadline: a pending entry is claimed again whatever the time.',
  },
  'account-head-only': {
    kind: 'variant',
    variant: 'no-account-order',
    why: "A consumer group hands out one stream's entries in id order whatever their account (XREADGROUP >), and XAUTOCLAIM takes any entry idle long enough: a running or failed job does not hold back its account's later jobs.",
  },
  'counters-stay-safe': {
    kind: 'unsupported',
    why: "The edge (nextSeq or nextToken at 2^53 − 1) is reached only by restoring a snapshot there; a stream cannot be built from one (XADD numbers entries by the server's time), and the tokens are the adapter's count of deliveries.",
  },
};

/** For each rule the min-idle time touches, how far it may stray at the default tick. */
export const REDIS_STREAMS_TOLERANCES: Partial<Record<RuleId, string>> = {
  'lease-equality-expires': `A lease of L ticks is a min-idle time of L × ${DEFAULT_TICK_MS} − ${DEFAULT_TICK_MS / 2} ms, measured by Redis from the delivery to the XAUTOCLAIM (or snapshot) that asks: the expiry is seen at its tick when the claim and the later command reach Redis within ${DEFAULT_TICK_MS / 2} ms of each other's place in their ticks, and a tick off otherwise.`,
  'expiry-with-attempts-left-requeues': "As lease-equality-expires: XAUTOCLAIM decides on the Redis server's clock.",
  'last-attempt-expiry-is-dead':
    'As lease-equality-expires (the claim loop that dead-letters runs only inside a claim).',
  'stale-token-refused': `An XACK is accepted while the entry is pending, whatever its idle time: timing decides only which delivery holds the entry when the ack lands, within ${DEFAULT_TICK_MS / 2} ms of a lease's end tick.`,
  'snapshot-restore-round-trip': `A restart closes and reopens every connection while idle times keep running on the Redis server's clock, so a lease ending within a tick of the restart may end during it.`,
};

/** What the page's clock line says beside the tick: the timer, and the adapter's own policy. */
const SETTINGS =
  "XAUTOCLAIM min-idle (leaseTicks − ½) ticks from the delivery; no retry delay (a failed entry stays pending until its min-idle passes); the dead-letter stream is the adapter's policy, not Redis's: written on a permanent fail, a fail on the last delivery, and by the claim loop for an entry past maxAttempts deliveries";

/** The profile target on the server `options.url` names (default JOBCHECK_REDIS_URL). Connects only when its factories are called. */
export function redisStreamsTarget(options: RedisStreamsOptions = {}): ProfileTarget {
  return {
    queue: 'Redis Streams',
    version: `redis-server ${REDIS_SERVER_VERSION}, ioredis ${IOREDIS_VERSION}`,
    factory: redisStreamsFactory(options),
    concurrentFactory: redisStreamsConcurrentFactory(options),
    declarations: REDIS_STREAMS_DECLARATIONS,
    clock: { kind: 'wall', tickMs: options.tickMs ?? DEFAULT_TICK_MS, settings: SETTINGS },
    tolerances: REDIS_STREAMS_TOLERANCES,
  };
}

/** The profile target on the server JOBCHECK_REDIS_URL names (`jobcheck profile --module adapters/redis-streams/profile.ts`). */
export const profileTarget: ProfileTarget = redisStreamsTarget();

/** Fresh, empty streams, one connection each (`jobcheck check --module adapters/redis-streams/profile.ts`). */
export const createAdapter: AdapterFactory = redisStreamsFactory();

/** Fresh, empty streams with a connection per competing worker (`--workers N`). */
export const createConcurrentAdapter: ConcurrentFactory = redisStreamsConcurrentFactory();
