/**
 * The record the source asks a team to keep for the queue it chose: "the delivery mode,
 * acknowledgement operation, expiry behavior, bounded retry policy and the owner of repeatedly
 * failing work". One record per profile page, by its data name: each fact says what the queue does
 * (its own operation names, as the adapter's README maps them) and names the rules whose results
 * show it; the page reads those results from the stored profile, so a fact is never shown as
 * holding where the profile measured otherwise. Every column of the matrix has a record
 * (docs/profiles.test.ts).
 */
import type { RuleId } from '../../contract/rules.ts';
import type { Profile } from '../../conformance/profile/index.ts';

/** One fact of the record: what the queue does, and the rules whose results show it. */
export interface SourceFact {
  readonly text: string;
  readonly shownBy: readonly RuleId[];
}

/** The five facts, in the source's order. */
export interface SourceRecord {
  readonly delivery: SourceFact;
  readonly acknowledgement: SourceFact;
  readonly expiry: SourceFact;
  readonly retry: SourceFact;
  readonly owner: SourceFact;
}

/** The facts' names on the page, in the source's order. */
export const FACT_NAMES: readonly (readonly [keyof SourceRecord, string])[] = [
  ['delivery', 'delivery mode'],
  ['acknowledgement', 'acknowledgement operation'],
  ['expiry', 'expiry behaviour'],
  ['retry', 'bounded retry policy'],
  ['owner', 'owner of repeatedly failing work'],
];

const LEASE: readonly RuleId[] = ['lease-from-claim', 'new-token-per-claim', 'stale-token-refused'];
const ACK: readonly RuleId[] = ['ack-settles-done', 'stale-token-refused', 'owner-checked'];
const EXPIRY: readonly RuleId[] = [
  'lease-equality-expires',
  'expiry-with-attempts-left-requeues',
  'last-attempt-expiry-is-dead',
];
const RETRY: readonly RuleId[] = [
  'attempts-exhausted-dead',
  'backoff-capped',
  'backoff-ends-at-not-before',
  'no-retry-after-deadline',
];
const OWNER: readonly RuleId[] = ['dead-records-kept', 'last-error-kept', 'permanent-failure-dead'];

/** The record of an SQS queue, standard or FIFO, as an emulator answers for it. Pure. */
const sqsRecord = (fifo: boolean): SourceRecord => ({
  delivery: {
    text: fifo
      ? 'at least once, in order per `MessageGroupId`: `ReceiveMessage` hides the message for its visibility timeout, and its group delivers nothing else meanwhile'
      : 'at least once: `ReceiveMessage` hides the message for its visibility timeout (AWS: a standard queue may deliver it twice even so)',
    shownBy: fifo ? [...LEASE, 'account-head-only'] : LEASE,
  },
  acknowledgement: { text: '`DeleteMessage` with the receipt handle of the receive', shownBy: ACK },
  expiry: { text: 'the visibility timeout ends and the message is visible again', shownBy: EXPIRY },
  retry: {
    text: "the redrive policy's `maxReceiveCount`; `ChangeMessageVisibility` sets a retry's delay",
    shownBy: RETRY,
  },
  owner: { text: 'the dead-letter queue the redrive policy names, with no reason kept', shownBy: OWNER },
});

/** BullMQ's record, on either backend: only the name of what finds a stalled job differs. Pure. */
const bullmqRecord = (stalled: 'sweep' | 'checker'): SourceRecord => ({
  delivery: { text: 'at least once: a fetched job is locked to its worker for `lockDuration`', shownBy: LEASE },
  acknowledgement: { text: "`moveToCompleted` with the job's lock token", shownBy: ACK },
  expiry: {
    text: `a lock that runs out leaves the job to BullMQ's stalled ${stalled}: back to wait, or failed past \`maxStalledCount\``,
    shownBy: EXPIRY,
  },
  retry: { text: '`attempts` with an exponential `backoff`', shownBy: RETRY },
  owner: { text: 'the failed set: the job kept with its `failedReason`', shownBy: OWNER },
});

/** The record of each page, by data name (docs/tools/profilePages.ts). */
export const SOURCE_RECORDS: Readonly<Record<string, SourceRecord>> = {
  'fauxqs-standard': sqsRecord(false),
  'fauxqs-fifo': sqsRecord(true),
  'local-aws-sqs-standard': sqsRecord(false),
  'local-aws-sqs-fifo': sqsRecord(true),
  reference: {
    delivery: { text: 'at least once: a claim leases the job to one worker under a new token', shownBy: LEASE },
    acknowledgement: {
      text: '`ack` with the delivery token, after `commit` has applied the effect once',
      shownBy: ACK,
    },
    expiry: {
      text: 'a lease that ends hands the job back with its backoff, or makes it dead on its last attempt',
      shownBy: EXPIRY,
    },
    retry: {
      text: '`maxAttempts` attempts, exponential backoff capped at `backoffCap`, never past the deadline',
      shownBy: RETRY,
    },
    owner: { text: 'the store: dead records keep their reason and last error', shownBy: OWNER },
  },
  'pg-boss': {
    delivery: { text: 'at least once: `fetch` makes the job `active` for `expireInSeconds`', shownBy: LEASE },
    acknowledgement: { text: '`complete(queue, {id, retryCount})`, fenced by the attempt', shownBy: ACK },
    expiry: {
      text: "an `active` job past its expiry is failed by pg-boss's maintenance and retried while retries remain",
      shownBy: EXPIRY,
    },
    retry: { text: '`retryLimit`, `retryDelay` with `retryBackoff` up to `retryDelayMax`', shownBy: RETRY },
    owner: {
      text: "the job row, state `failed` (or `cancelled`) with its output, in pg-boss's job table",
      shownBy: OWNER,
    },
  },
  'bullmq-postgres': bullmqRecord('sweep'),
  'bullmq-redis': bullmqRecord('checker'),
  'redis-streams': {
    delivery: {
      text: "at least once: `XREADGROUP` puts the entry on the consumer's pending list until it is acknowledged",
      shownBy: LEASE,
    },
    acknowledgement: {
      text: '`XACK` of the entry id, which Redis accepts from any consumer of the group',
      shownBy: ACK,
    },
    expiry: {
      text: 'none in Redis: a pending entry stays pending until a claim loop takes it over with `XAUTOCLAIM` past a min-idle time',
      shownBy: EXPIRY,
    },
    retry: {
      text: "none in Redis: the delivery counter `XPENDING` reports; the team's claim loop sets the bound",
      shownBy: RETRY,
    },
    owner: {
      text: "a dead-letter stream the team's claim loop writes (the adapter's declared policy); Redis keeps only the pending entry",
      shownBy: OWNER,
    },
  },
  rabbitmq: {
    delivery: {
      text: 'at least once: `basic.get` without auto-ack delivers the message to one channel, unacknowledged',
      shownBy: LEASE,
    },
    acknowledgement: { text: '`basic.ack` of the delivery tag, on the channel that received it', shownBy: ACK },
    expiry: {
      text: "`consumer_timeout` closes the holder's channel and requeues what it held",
      shownBy: EXPIRY,
    },
    retry: {
      text: "the quorum queue's `x-delivery-limit`; a `nack` requeues at once, with no backoff",
      shownBy: RETRY,
    },
    owner: {
      text: 'the dead-letter queue behind `x-dead-letter-exchange`, the message with its `x-death` reason',
      shownBy: OWNER,
    },
  },
  'nats-jetstream': {
    delivery: { text: 'at least once: a pull consumer with `ack_policy: explicit` and `ack_wait`', shownBy: LEASE },
    acknowledgement: { text: "`+ACK` to the delivery's reply subject, as a request the server confirms", shownBy: ACK },
    expiry: { text: '`ack_wait` passes and the server delivers the message again', shownBy: EXPIRY },
    retry: {
      text: "`max_deliver` deliveries; a `-NAK` with a delay, or the consumer's `backoff` list",
      shownBy: RETRY,
    },
    owner: {
      text: 'nobody by default: past `max_deliver` the message stays in the stream, undelivered, and a `MAX_DELIVERIES` advisory is published',
      shownBy: OWNER,
    },
  },
  beanstalkd: {
    delivery: { text: 'at least once: `reserve` hands the job to one connection for its `ttr`', shownBy: LEASE },
    acknowledgement: { text: '`delete <id>` on the reserving connection', shownBy: ACK },
    expiry: { text: 'past its `ttr` a reserved job returns to ready', shownBy: EXPIRY },
    retry: {
      text: 'none in the server: the worker reads `reserves` and chooses `release` with a delay or `bury`',
      shownBy: RETRY,
    },
    owner: { text: 'the buried list, until an operator `kick`s it; no reason and no text kept', shownBy: OWNER },
  },
};

/** How a record is placed on its page: its heading's level, and whether departures have sections to link. */
export interface RecordPlacement {
  readonly heading?: '##' | '###';
  readonly linkDepartures?: boolean;
}

/** A rule's result in a word or two, a departure linked to its section where the page has one. Pure. */
function shownText(rule: RuleId, profile: Profile, link: boolean): string {
  const r = profile.rules.find((x) => x.rule === rule);
  if (r === undefined) return `\`${rule}\` not profiled`;
  const word =
    r.status === 'departs' ? (link ? `[**departs**](#departure-${rule})` : '**departs**') : r.status.replace('_', ' ');
  return `\`${rule}\` ${word}`;
}

/**
 * The record the source asks for: each fact as the queue states it, beside the results of the
 * rules that show it, read from the profile. Pure.
 */
export function renderRecord(record: SourceRecord, profile: Profile, placement: RecordPlacement = {}): string {
  const link = placement.linkDepartures ?? true;
  const rows = FACT_NAMES.map(([key, name]) => {
    const fact = record[key];
    const shown = fact.shownBy.map((rule) => shownText(rule, profile, link)).join(', ');
    return `| ${name} | ${fact.text.replace(/\|/g, '\\|')} | ${shown} |`;
  });
  return [
    `${placement.heading ?? '##'} The record`,
    '',
    `The five facts the source asks a team to record for the queue it chose, each as ${profile.queue} states it and beside the results below that show whether it holds as the contract needs.`,
    '',
    `| fact | ${profile.queue} | shown by |`,
    '| --- | --- | --- |',
    ...rows,
  ].join('\n');
}

/** What Pub/Sub does with failing work, whichever its delivery mode. */
const PUBSUB_FAILURES: Pick<SourceRecord, 'retry' | 'owner'> = {
  retry: {
    text: "the subscription's retry policy, or redelivery at once; a dead-letter topic's maximum delivery attempts",
    shownBy: RETRY,
  },
  owner: {
    text: 'the dead-letter topic, where the subscription has one; without it, redelivery goes on',
    shownBy: OWNER,
  },
};

/** The record of each documented mode (model/documented.ts), by mode id: what its vendor documents. */
export const DOCUMENTED_RECORDS: Readonly<Record<string, SourceRecord>> = {
  'sqs-standard': sqsRecord(false),
  'sqs-fifo': sqsRecord(true),
  'pubsub-at-least-once': {
    delivery: {
      text: 'at least once: a pull delivers the message with an ack deadline, and it may come again before the deadline',
      shownBy: LEASE,
    },
    acknowledgement: { text: '`acknowledge` with the ack ID of the delivery', shownBy: ACK },
    expiry: {
      text: 'the ack deadline passes, or `modifyAckDeadline` sets it to 0, and the message is redelivered',
      shownBy: EXPIRY,
    },
    ...PUBSUB_FAILURES,
  },
  'pubsub-exactly-once': {
    delivery: {
      text: 'exactly once while outstanding: no redelivery before the ack deadline, and only the latest ack ID acknowledges',
      shownBy: LEASE,
    },
    acknowledgement: { text: '`acknowledge` with the latest ack ID, whose result says whether it took', shownBy: ACK },
    expiry: { text: 'the ack deadline passes and the message is redelivered under a new ack ID', shownBy: EXPIRY },
    ...PUBSUB_FAILURES,
  },
  'servicebus-peek-lock': {
    delivery: {
      text: 'at least once: a Peek-Lock receive locks the message to the receiver for the lock duration',
      shownBy: LEASE,
    },
    acknowledgement: { text: '`CompleteMessage` with the message, under its lock', shownBy: ACK },
    expiry: {
      text: 'the lock expires and the message is available again, its delivery count one higher',
      shownBy: EXPIRY,
    },
    retry: {
      text: '`MaxDeliveryCount` deliveries; an abandon makes the message available again at once',
      shownBy: RETRY,
    },
    owner: { text: "the queue's dead-letter subqueue, the message with its dead-letter reason", shownBy: OWNER },
  },
  'servicebus-receive-and-delete': {
    delivery: { text: 'at most once: the message is deleted as it is delivered', shownBy: LEASE },
    acknowledgement: { text: 'none: the receive itself settles the message', shownBy: ACK },
    expiry: { text: 'none: a delivered message is gone, whatever becomes of its receiver', shownBy: EXPIRY },
    retry: { text: 'none: nothing is delivered twice', shownBy: RETRY },
    owner: { text: 'nobody: a message whose work fails is already gone', shownBy: OWNER },
  },
};
