/**
 * NATS JetStream as a profile target and as a module for `jobcheck check --module`: the adapter's
 * factory and its competing-workers factory (lanes are separate connections), the exact client and
 * server versions, the wall clock's tick, what JetStream declares of the contract before anything
 * is run, and the tolerance of each rule its timers touch. Every rule not declared here is checked
 * against the model as it stands (README.md maps every rule, with the stories in
 * departures.test.ts).
 *
 * The server is the one `JOBCHECK_NATS_URL` names (scripts/brokers.sh sets it); its version is
 * read from the server itself when a store is made, and `NATS_SERVER_VERSION` names the one this
 * profile was written against.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { ProfileTarget, RuleDeclaration, UpstreamReport } from '../../conformance/profile/target.ts';
import type { RuleId } from '../../contract/rules.ts';
import { DEFAULT_TICK_MS, natsJetStreamFactory } from './adapter.ts';
import type { NatsFactoryOptions } from './adapter.ts';
import { natsConcurrentFactory } from './concurrent.ts';

/**
 * The version of the installed JetStream client, from its package.json (which its `exports` do not
 * name, so it is found beside the resolved entry point, `lib/mod.js`).
 */
export const NATS_CLIENT_VERSION: string = (
  JSON.parse(
    readFileSync(
      join(dirname(createRequire(import.meta.url).resolve('@nats-io/jetstream')), '..', 'package.json'),
      'utf8',
    ),
  ) as { version: string }
).version;

/** The nats-server this profile was written against (Debian's package). */
export const NATS_SERVER_VERSION = '2.9.10';

/** What JetStream declares of the contract's rules, with the reason for each. */
export const NATS_DECLARATIONS: Partial<Record<RuleId, RuleDeclaration>> = {
  'malformed-command-refused': {
    kind: 'unsupported',
    why: "JetStream never sees the contract's JSON commands: the adapter decodes them (it must, to publish, pull and ack), so refusing a malformed one would check the adapter, not JetStream.",
  },
  'clock-never-regresses': {
    kind: 'unsupported',
    why: "JetStream takes no time from a worker: ack waits and nak delays run on the server's own clock, which nobody outside moves; the adapter's wall clock maps ticks onto it and cannot go back, so a regressing now would check the adapter.",
  },
  'deadline-kills': {
    kind: 'unsupported',
    why: "nats-server 2.9 has no per-message expiry: a stream's max_age is one age for every message and deletes without a record (per-message TTLs came with 2.11); the deadline travels in the body and nothing reads it.",
  },
  'deadline-precedes-lease': {
    kind: 'unsupported',
    why: 'JetStream 2.9 has no message deadline, so there is no precedence between a deadline and an ack wait.',
  },
  'no-retry-after-deadline': {
    kind: 'unsupported',
    why: 'JetStream 2.9 has no message deadline: a nak schedules a redelivery whatever the time.',
  },
  'account-head-only': {
    kind: 'variant',
    variant: 'no-account-order',
    why: "A pull consumer hands out a work-queue stream's messages in stream order whatever their subject: the adapter publishes each account on a subject of its own, but nats-server 2.9 has no per-subject limit of messages pending acknowledgement (max_ack_pending is one limit for the whole consumer), so a running or naked job does not hold back its account's later jobs.",
  },
  'last-error-kept': {
    kind: 'unsupported',
    why: 'JetStream 2.9 keeps no failure text: a nak carries a delay and a term nothing (a term with a reason, understood from 2.10, is ignored by 2.9.10 and the message redelivered), so no operation could hand the broker the text to keep.',
  },
  'counters-stay-safe': {
    kind: 'unsupported',
    why: "The edge (nextSeq or nextToken at 2^53 − 1) is reached only by restoring a snapshot there; a stream cannot be built from one (its sequence starts at 1), and the tokens are the adapter's counter of deliveries.",
  },
};

/** For each rule JetStream's timers touch, how far they may stray at the default tick. */
export const NATS_TOLERANCES: Partial<Record<RuleId, string>> = {
  'lease-equality-expires': `ack_wait is (leaseTicks − ½) × ${DEFAULT_TICK_MS} ms from the pull: the broker redelivers half a tick before the tick leaseUntil begins; measured 3 ms late (median of 20; at most 7 ms) under a load average of 15, so a timer later than ${DEFAULT_TICK_MS / 2} ms reads as a departure (and then must replay 2 times of 3).`,
  'expiry-with-attempts-left-requeues': `as lease-equality-expires: the redelivery is due ${DEFAULT_TICK_MS / 2} ms before tick leaseUntil.`,
  'last-attempt-expiry-is-dead': `as lease-equality-expires; the broker keeps the message past its max_deliver-th delivery and delivers it no more.`,
  'stale-token-refused': `a settle at tick leaseUntil comes ${DEFAULT_TICK_MS / 2} ms after the broker's redelivery timer; one at leaseUntil − 1, ${DEFAULT_TICK_MS / 2} ms before it.`,
  'backoff-ends-at-not-before': `a nak's delay is (ticks − ½) × ${DEFAULT_TICK_MS} ms from the nak: the message is due half a tick before notBefore begins.`,
  'backoff-capped': 'as backoff-ends-at-not-before.',
};

/** Upstream threads about the same behaviour, by rule, each with what it says. */
export const NATS_UPSTREAM: Partial<Record<RuleId, UpstreamReport>> = {
  'stale-token-refused': {
    url: 'https://github.com/nats-io/nats-server/issues/4786',
    says: "an open proposal that JetStream reject acks arriving after the ack wait: it quotes the docs' warning that an ack from a first process after a redelivery to another is taken as the ack of that redelivery, and points out that the reply subject already carries the delivery count the server could check.",
  },
  'capacity-counts-running': {
    url: 'https://github.com/nats-io/nats-server/issues/5564',
    says: 'a message that reached max_deliver stays in a work-queue stream; the maintainer answers that this is the intended behaviour, so that the user decides to delete, retry or move it to a dead-letter queue (so it keeps counting against max_msgs).',
  },
};

/** The profile target of JetStream on the server `options.url` names (default: JOBCHECK_NATS_URL). Pure: connects only when its factory is called. */
export function natsJetStreamTarget(options: NatsFactoryOptions = {}): ProfileTarget {
  return {
    queue: 'NATS JetStream',
    version: `nats-server ${NATS_SERVER_VERSION}, @nats-io/jetstream ${NATS_CLIENT_VERSION}`,
    factory: natsJetStreamFactory(options),
    concurrentFactory: natsConcurrentFactory(options),
    declarations: NATS_DECLARATIONS,
    clock: {
      kind: 'wall',
      tickMs: options.tickMs ?? DEFAULT_TICK_MS,
      settings: "ack_wait (leaseTicks − ½) ticks from the pull, a nak's delay (ticks − ½) ticks from the nak",
    },
    tolerances: NATS_TOLERANCES,
    upstream: NATS_UPSTREAM,
  };
}

/** JetStream on the server JOBCHECK_NATS_URL names, at the default tick. */
export const profileTarget: ProfileTarget = natsJetStreamTarget();

/** The module's AdapterFactory for `jobcheck check --module`: one stream per store. */
export const createAdapter = natsJetStreamFactory();

/** The module's ConcurrentFactory for `jobcheck check --module … --workers N`: one connection per lane. */
export const createConcurrentAdapter = natsConcurrentFactory();
