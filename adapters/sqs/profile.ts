/**
 * SQS through an emulator as profile targets: one per emulator and queue type (fauxqs or
 * local-aws-sqs, standard or FIFO), each with the emulator's process started on first use and
 * stopped by `close()`, the clock it runs on, what SQS has no operation for (the declarations), and,
 * by rule, the AWS page that documents a behaviour other than the contract's, with what it says
 * (checked against the page's text). Every rule not declared here is checked against the model as
 * it stands (README.md maps every rule). The four modules under this folder (fauxqs-standard/, …)
 * each export one target, so that each has its page and its matrix column.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { IndefiniteOutcome } from '../../conformance/concurrent/adapter.ts';
import type { ProfileTarget, RuleDeclaration, UpstreamReport } from '../../conformance/profile/target.ts';
import type { Config, Reply } from '../../contract/index.ts';
import { messageOf } from '../../contract/index.ts';
import type { RuleId } from '../../contract/rules.ts';
import { SqsAdapter, SqsAdapterCore } from './adapter.ts';
import type { QueueType, SqsClock } from './adapter.ts';
import { SqsAdapterError } from './SqsAdapterError.ts';
import { SqsEmulator } from './servers.ts';
import type { EmulatorClock, EmulatorName } from './servers.ts';
import { LaneConcurrentAdapter } from '../laneBroker.ts';
import type { ConcurrentFactory } from '../../conformance/concurrent/adapter.ts';
import { lossAwareConcurrentFactory, lossAwareFactory } from '../../conformance/profile/lossAware.ts';
import type { LossSource } from '../../conformance/profile/lossAware.ts';

/** A package's version from its package.json, found above its resolved entry point (fauxqs's `exports` name only its app). */
const version = (name: string): string => {
  for (let dir = dirname(fileURLToPath(import.meta.resolve(name))); dir !== dirname(dir); dir = dirname(dir)) {
    const file = join(dir, 'package.json');
    if (!existsSync(file)) continue;
    const manifest = JSON.parse(readFileSync(file, 'utf8')) as { name?: string; version?: string };
    if (manifest.name === name && manifest.version !== undefined) return manifest.version;
  }
  throw new Error(`no package.json of ${name} above its entry point`);
};

/** The versions driven: each emulator's and the client's, from their package.json. */
export const SQS_VERSIONS = {
  fauxqs: version('fauxqs'),
  'local-aws-sqs': version('local-aws-sqs'),
  client: version('@aws-sdk/client-sqs'),
} as const;

/** local-aws-sqs's clock runs this many times as fast as real time: one emulated second is 50 real ms. */
export const LOCAL_CLOCK_FACTOR = 20;
/** Real milliseconds per tick on local-aws-sqs: two emulated seconds. */
export const LOCAL_TICK_MS = 2000 / LOCAL_CLOCK_FACTOR;

/** Each emulator's clock: fauxqs's stopped and moved by the adapter, local-aws-sqs's a fast wall clock (README.md). */
const CLOCKS: Record<EmulatorName, { readonly emulator: EmulatorClock; readonly adapter: SqsClock }> = {
  fauxqs: { emulator: { kind: 'stopped', ms: Date.UTC(2026, 0, 1) }, adapter: { kind: 'logical' } },
  'local-aws-sqs': {
    emulator: { kind: 'fast', factor: LOCAL_CLOCK_FACTOR },
    adapter: { kind: 'wall', tickMs: LOCAL_TICK_MS },
  },
};

const AWS_STANDARD_QUEUES =
  'https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/standard-queues.html';
const AWS_FIFO_TERMS = 'https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/FIFO-key-terms.html';
const AWS_DELETE_MESSAGE =
  'https://docs.aws.amazon.com/sdkfornet/latest/apidocs/items/TSQSDeleteMessageRequestNET45.html';
const AWS_DEDUPLICATION_ID =
  'https://docs.aws.amazon.com/sdk-for-kotlin/api/latest/sqs/aws.sdk.kotlin.services.sqs.model/-send-message-request/message-deduplication-id.html';

/** What SQS declares of the contract's rules on either queue type, with the reason for each. */
const COMMON: Partial<Record<RuleId, RuleDeclaration>> = {
  'malformed-command-refused': {
    kind: 'unsupported',
    why: "SQS never sees the contract's JSON commands: the adapter decodes them (it must, to call the SDK's typed commands), so refusing a malformed one would check the adapter, not SQS.",
  },
  'clock-never-regresses': {
    kind: 'unsupported',
    why: "SQS takes no time from a worker: visibility timeouts and delays run on the service's own clock (here the emulator's, which the adapter only moves forward or does not move at all), so a regressing now would check the adapter.",
  },
  'capacity-counts-running': {
    kind: 'unsupported',
    why: "SendMessage has no bound on a queue's messages: SQS's only limit is on messages in flight (120,000 on a standard queue, 20,000 on a FIFO queue), which refuses a receive, never a send.",
  },
  'deadline-kills': {
    kind: 'unsupported',
    why: 'SQS has no per-message expiry: MessageRetentionPeriod is one period for the whole queue (60 s to 14 days) and deletes without a record; the deadline travels in the body and nothing reads it.',
  },
  'deadline-precedes-lease': {
    kind: 'unsupported',
    why: 'SQS has no message deadline, so there is no precedence between a deadline and a visibility timeout.',
  },
  'no-retry-after-deadline': {
    kind: 'unsupported',
    why: 'SQS has no message deadline: ChangeMessageVisibility sets a delay whatever the time.',
  },
  'last-error-kept': {
    kind: 'unsupported',
    why: 'No SQS operation carries a failure text: ChangeMessageVisibility takes a receipt handle and a timeout, DeleteMessage a receipt handle, so no operation could hand SQS the text to keep.',
  },
  'counters-stay-safe': {
    kind: 'unsupported',
    why: "The edge (nextSeq or nextToken at 2^53 − 1) is reached only by restoring a snapshot there; an SQS queue cannot be built from one, and the admission numbers and tokens are the adapter's counters.",
  },
};

/** SQS FIFO's deduplication interval, in seconds (five minutes). */
export const DEDUPLICATION_SECONDS = 300;

/**
 * The declarations of an emulator's queue type: a standard queue has no message groups, so no
 * per-account order; fauxqs's FIFO queue keeps each MessageDeduplicationId for SQS's five minutes
 * from the send (on its logical clock, a tick a second), so its window is declared. local-aws-sqs
 * keeps no window (README.md): its rule is checked against the contract, and departs where it does.
 */
export function sqsDeclarations(
  queueType: QueueType,
  emulator?: EmulatorName,
): Partial<Record<RuleId, RuleDeclaration>> {
  if (queueType === 'fifo')
    return emulator !== 'fauxqs'
      ? COMMON
      : {
          ...COMMON,
          'duplicate-submit-accepted': {
            kind: 'variant',
            variant: `deduplication-window:${DEDUPLICATION_SECONDS / LOGICAL_TICK_SECONDS}`,
            why: `fauxqs keeps each MessageDeduplicationId for 5 minutes from the send that stored it (SqsQueue's deduplicationCache, a toad-cache FifoMap with a ${DEDUPLICATION_SECONDS}-second time to live and room for 10,000 ids), read on its logical clock: ${DEDUPLICATION_SECONDS} ticks. AWS documents the same 5-minute interval, kept after the delete.`,
          },
        };
  return {
    ...COMMON,
    'account-head-only': {
      kind: 'variant',
      variant: 'no-account-order',
      why: "A standard queue has no message groups that order delivery (a MessageGroupId there only spreads receives fairly): nothing holds back an account's later messages while one runs or waits.",
    },
  };
}

/** By rule, the AWS page that documents a behaviour other than the contract's, and what it says there. */
export function sqsAwsPages(queueType: QueueType): Partial<Record<RuleId, UpstreamReport>> {
  const common: Partial<Record<RuleId, UpstreamReport>> = {
    'stale-token-refused': {
      url: AWS_DELETE_MESSAGE,
      says: "AWS documents DeleteMessage: if you don't provide the most recently received receipt handle for the message, the request will still succeed, but the message might not be deleted.",
    },
  };
  if (queueType === 'fifo')
    return {
      ...common,
      'duplicate-submit-accepted': {
        url: AWS_FIFO_TERMS,
        says: 'AWS documents that messages sent with the same deduplication ID within a 5-minute deduplication interval are duplicates, only one copy delivered, and that SQS keeps tracking the ID after the message was received and deleted: after 5 minutes a repeat is a new message.',
      },
      'account-head-only': {
        url: AWS_FIFO_TERMS,
        says: 'AWS documents that in a FIFO queue the messages of one message group are always processed one at a time, in strict order.',
      },
    };
  return {
    ...common,
    'duplicate-submit-accepted': {
      url: AWS_DEDUPLICATION_ID,
      says: 'AWS documents MessageDeduplicationId as applying only to FIFO queues: a standard queue deduplicates no send.',
    },
    'oldest-ready-head-first': {
      url: AWS_STANDARD_QUEUES,
      says: 'AWS documents standard queues as at-least-once and best-effort ordering: more than one copy of a message might be delivered, and messages may occasionally arrive out of order.',
    },
  };
}

/** The tolerance of each rule local-aws-sqs's timers touch (fauxqs, on its stopped clock, has none). */
const LOCAL_TOLERANCES: Partial<Record<RuleId, string>> = {
  'lease-equality-expires': `VisibilityTimeout is 2 × leaseTicks − 1 emulated seconds from the receive (one emulated second is ${1000 / LOCAL_CLOCK_FACTOR} real ms, a tick two): local-aws-sqs's setTimeout makes the message visible half a tick before the tick leaseUntil begins, so a timer later than ${LOCAL_TICK_MS / 2} ms reads as a departure (and then must replay 2 times of 3).`,
  'expiry-with-attempts-left-requeues': 'as lease-equality-expires.',
  'last-attempt-expiry-is-dead':
    'as lease-equality-expires: local-aws-sqs moves the message to the dead-letter queue when that timer fires.',
  'stale-token-refused': `a settle at tick leaseUntil comes ${LOCAL_TICK_MS / 2} ms after the visibility timer; one at leaseUntil − 1, ${LOCAL_TICK_MS / 2} ms before it.`,
  'backoff-ends-at-not-before':
    "a retry's ChangeMessageVisibility is 2 × ticks − 1 emulated seconds: the message is visible half a tick before notBefore begins.",
  'backoff-capped': 'as backoff-ends-at-not-before.',
};

/** Emulated seconds per tick on fauxqs's logical clock. */
const LOGICAL_TICK_SECONDS = 1;

/** By emulator, a note on its FIFO deduplication beside duplicate-submit-accepted. */
const WINDOW_NOTES: Record<EmulatorName, string> = {
  fauxqs: `the window is ${DEDUPLICATION_SECONDS} ticks (variant deduplication-window:${DEDUPLICATION_SECONDS}); a repeat after it while the first message is still in the queue is a second message on fauxqs, which the model cannot state (one job an id): it would depart from the variant.`,
  'local-aws-sqs': `local-aws-sqs keeps no window: a send finds its MessageDeduplicationId among the messages still in the queue (Queue's setRecord in its dist/index.js), so a repeat is a duplicate for as long as the first message stays, past 5 minutes too (${DEDUPLICATION_SECONDS / 2} ticks), and a new message as soon as it is deleted or dead-lettered, where AWS keeps tracking the id after the delete for the 5-minute interval.`,
};

/** One emulator process for a target's instances: started on first use, stopped by `stop()`. */
class SharedEmulator {
  private started: Promise<SqsEmulator> | undefined;
  /** The emulator, once started (the address a lost connection names). */
  current: SqsEmulator | undefined;
  constructor(
    private readonly name: EmulatorName,
    private readonly clock: EmulatorClock,
  ) {}
  get(): Promise<SqsEmulator> {
    this.started ??= SqsEmulator.start(this.name, this.clock).then((e) => {
      this.current = e;
      return e;
    });
    return this.started;
  }
  async stop(): Promise<void> {
    const started = this.started;
    this.started = undefined;
    this.current = undefined;
    if (started !== undefined) await (await started.catch(() => undefined))?.stop();
  }
}

/** Where an emulator is, for a lost connection's one line: its name, and its address once started. */
const emulatorLoss = (name: EmulatorName, current: () => SqsEmulator | undefined): LossSource => ({
  where: () => ({ broker: name, address: current()?.endpoint.replace(/^http:\/\//, '') ?? '127.0.0.1' }),
  clientLoss: (error) =>
    error instanceof SqsAdapterError && error.code === 'emulator_gone' ? 'its process ended' : undefined,
});

/** Competing workers: one queue, a client per lane; a request with no reply from the emulator is indefinite. */
class SqsConcurrentAdapter extends LaneConcurrentAdapter<SqsAdapterCore> {
  override async execute(lane: number, command: unknown): Promise<Reply> {
    try {
      return await this.broker.execute(lane, command);
    } catch (error) {
      const text = error instanceof Error ? `${error.name} ${error.message}` : '';
      if (/ECONNREFUSED|ECONNRESET|socket hang up|EPIPE/i.test(text))
        throw new IndefiniteOutcome('closed', `lane ${lane}: ${messageOf(error)}`);
      if (/timeout/i.test(text)) throw new IndefiniteOutcome('timeout', `lane ${lane}: ${messageOf(error)}`);
      throw error;
    }
  }
}

/** The profile target of SQS as `emulator` emulates it, on a `queueType` queue. Pure: starts nothing until its factory is called. */
export function sqsTarget(
  emulator: EmulatorName,
  queueType: QueueType,
  /** local-aws-sqs's speed against real time (default LOCAL_CLOCK_FACTOR): a test on a loaded machine may slow it. */
  localClockFactor = LOCAL_CLOCK_FACTOR,
): ProfileTarget {
  const clocks =
    emulator === 'local-aws-sqs' && localClockFactor !== LOCAL_CLOCK_FACTOR
      ? {
          emulator: { kind: 'fast', factor: localClockFactor } as const,
          adapter: { kind: 'wall', tickMs: 2000 / localClockFactor } as const,
        }
      : CLOCKS[emulator];
  const shared = new SharedEmulator(emulator, clocks.emulator);
  const name = `SQS ${queueType === 'fifo' ? 'FIFO' : 'standard'} queue on ${emulator}`;
  const options = async () => ({ emulator: await shared.get(), queueType, clock: clocks.adapter, name });
  const tolerances: Partial<Record<RuleId, string>> = {
    ...(emulator === 'local-aws-sqs' ? LOCAL_TOLERANCES : {}),
    ...(queueType === 'fifo' ? { 'duplicate-submit-accepted': WINDOW_NOTES[emulator] } : {}),
  };
  return {
    queue: name,
    version: `${emulator} ${SQS_VERSIONS[emulator]} (an emulator of Amazon SQS), @aws-sdk/client-sqs ${SQS_VERSIONS.client}`,
    factory: lossAwareFactory(
      async (config: Config) => new SqsAdapter(await SqsAdapterCore.create(config, await options())),
      emulatorLoss(emulator, () => shared.current),
    ),
    concurrentFactory: lossAwareConcurrentFactory(
      async (config, { workers }) =>
        new SqsConcurrentAdapter(await SqsAdapterCore.create(config, await options(), workers)),
      emulatorLoss(emulator, () => shared.current),
    ),
    declarations: sqsDeclarations(queueType, emulator),
    clock:
      clocks.adapter.kind === 'logical'
        ? { kind: 'logical' }
        : {
            kind: 'wall',
            tickMs: clocks.adapter.tickMs,
            settings: `local-aws-sqs's clock ${localClockFactor} times as fast as real time (one tick two emulated seconds); VisibilityTimeout 2 × leaseTicks − 1 s, a retry's visibility 2 × ticks − 1 s`,
          },
    ...(Object.keys(tolerances).length === 0 ? {} : { tolerances }),
    upstream: sqsAwsPages(queueType),
    close: () => shared.stop(),
  };
}

/** The clock an emulator's process starts on for its profile (and its fault campaign). */
export const emulatorClockOf = (emulator: EmulatorName): EmulatorClock => CLOCKS[emulator].emulator;

/**
 * SQS on an emulator the caller started (with emulatorClockOf) and owns, as the fault campaign
 * drives it: the target (its close() leaves the emulator running), and competing workers with
 * lane `lane`'s client sent to `address` (a proxy's `host:port`) instead of the emulator.
 */
export function sqsOnEmulator(
  running: SqsEmulator,
  queueType: QueueType,
): { readonly target: ProfileTarget; readonly routedFactory: (lane: number, address: string) => ConcurrentFactory } {
  const clock = CLOCKS[running.name].adapter;
  const name = `SQS ${queueType === 'fifo' ? 'FIFO' : 'standard'} queue on ${running.name}`;
  const options = { emulator: running, queueType, clock, name };
  const loss = emulatorLoss(running.name, () => running);
  return {
    target: {
      ...sqsTarget(running.name, queueType),
      factory: lossAwareFactory(
        async (config: Config) => new SqsAdapter(await SqsAdapterCore.create(config, options)),
        loss,
      ),
      concurrentFactory: lossAwareConcurrentFactory(
        async (config, { workers }) => new SqsConcurrentAdapter(await SqsAdapterCore.create(config, options, workers)),
        loss,
      ),
      close: async () => undefined,
    },
    routedFactory: (lane, address) =>
      lossAwareConcurrentFactory(
        async (config, { workers }) =>
          new SqsConcurrentAdapter(
            await SqsAdapterCore.create(
              config,
              {
                ...options,
                laneEndpoints: Array.from({ length: lane + 1 }, (_, i) =>
                  i === lane ? `http://${address}` : undefined,
                ),
              },
              workers,
            ),
          ),
        loss,
      ),
  };
}
