/**
 * A recorder for NATS JetStream (`@nats-io/jetstream`): wrappers a team puts around the client
 * objects it already uses, so that its producers and workers write `jobcheck-history/1`
 * (docs/history-format.md, "Recording"). `recordJetStream(js)` records each `publish` as a submit;
 * `recordConsumer(consumer)` each message `next`, `fetch` or `consume` delivers as a claim, and the
 * message's `ack`, `ackAck`, `nak`, `term` and `working` as ack, fail and extend.
 *
 * The mapping: the job is the message's `Nats-Msg-Id` header (else its stream sequence, which a
 * publish's PubAck names); the token its reply subject; the attempt its delivery count; the lease
 * ends at the delivery's arrival + the consumer's `ack_wait` (the latest it can end), moved by
 * `working`. `ack`, `nak`, `term` and `working` ask for no reply: their outcome is `unknown`, and the
 * audit judges them both ways; `ackAck` waits for the broker's. A settle the client does not send
 * (the message was settled already) is not recorded. Every call goes to the client unchanged, with
 * its result and its error: the wrappers are Proxies that only time and record.
 */
import type {
  Consumer,
  ConsumerMessages,
  JetStreamClient,
  JetStreamPublishOptions,
  JsMsg,
  PubAck,
} from '@nats-io/jetstream';
import type { HistoryWriter, OpFields } from '../historyWriter.ts';
import { outcomeCode, payloadHash } from '../historyWriter.ts';

/** Who records, and how a message names its job. */
export interface NatsRecorderOptions {
  /** The worker (or producer) every line names. */
  readonly worker: string;
  /** The job a message is (default: its `Nats-Msg-Id` header, else its stream sequence). */
  readonly jobOf?: (msg: JsMsg) => string;
  /** The consumer's `ack_wait` in milliseconds (default: read from the consumer's cached info). */
  readonly ackWaitMs?: number;
}

/** The outcome of a failed call: the broker's refusal code, or `unknown` when the reply may be lost. Pure. */
export function natsOutcome(error: unknown): string {
  if (!(error instanceof Error)) return 'unknown';
  if (error.name === 'NoRespondersError') return 'no_responders';
  if (error.name === 'JetStreamApiError') return outcomeCode(`jetstream_${(error as Error & { code: number }).code}`);
  return 'unknown';
}

/** The job a message is, by default. Pure. */
const defaultJobOf = (msg: JsMsg): string => msg.headers?.get('Nats-Msg-Id') || String(msg.seq);

/** The client's own method, bound, for whatever the wrappers do not record. */
const passThrough = (target: object, prop: PropertyKey): unknown => {
  const v = Reflect.get(target, prop, target);
  return typeof v === 'function' ? v.bind(target) : v;
};

/** `js` with each `publish` recorded as a submit (job: the `msgID`, else the PubAck's sequence). */
export function recordJetStream(
  js: JetStreamClient,
  writer: HistoryWriter,
  options: NatsRecorderOptions,
): JetStreamClient {
  const publish = (
    subj: string,
    payload?: Uint8Array | string,
    opts?: Partial<JetStreamPublishOptions>,
  ): Promise<PubAck> => {
    const base = { op: 'submit' as const, worker: options.worker, payloadHash: payloadHash(payload ?? '') };
    const msgID = opts?.msgID;
    return writer.recordCall(
      msgID === undefined ? base : { ...base, job: msgID },
      () => js.publish(subj, payload, opts),
      (ack) => ({ job: msgID ?? String(ack.seq) }),
      natsOutcome,
    );
  };
  return new Proxy(js, { get: (t, p) => (p === 'publish' ? publish : passThrough(t, p)) });
}

/** What a recorded consumer knows of its consumer. */
interface ConsumerFacts {
  readonly writer: HistoryWriter;
  readonly options: NatsRecorderOptions;
  readonly ackWaitMs: number | undefined;
  readonly maxDeliver: number | undefined;
}

/**
 * `consumer` with each delivered message recorded as a claim, and each message it hands out
 * wrapped so that its settles are recorded. Reads the consumer's cached info once (its `ack_wait`
 * and `max_deliver`); that read's error is rethrown, before anything is recorded.
 */
export async function recordConsumer(
  consumer: Consumer,
  writer: HistoryWriter,
  options: NatsRecorderOptions,
): Promise<Consumer> {
  const info = await consumer.info(true);
  const ackWaitNanos = info.config.ack_wait;
  const facts: ConsumerFacts = {
    writer,
    options,
    ackWaitMs: options.ackWaitMs ?? (ackWaitNanos === undefined ? undefined : ackWaitNanos / 1e6),
    maxDeliver:
      info.config.max_deliver !== undefined && info.config.max_deliver > 0 ? info.config.max_deliver : undefined,
  };
  const next: Consumer['next'] = async (opts) => {
    const invokedAt = writer.now();
    let msg: JsMsg | null;
    try {
      msg = await consumer.next(opts);
    } catch (error) {
      writer.op({
        op: 'claim',
        worker: options.worker,
        invokedAt,
        returnedAt: writer.now(),
        outcome: natsOutcome(error),
      });
      throw error;
    }
    return msg === null ? noneFound(facts, invokedAt) : claimed(facts, msg, invokedAt);
  };
  const messages = (method: 'fetch' | 'consume') => async (opts?: object) => {
    const invokedAt = writer.now();
    const iterable = await (consumer[method] as (o?: object) => Promise<ConsumerMessages>)(opts);
    return recordedMessages(facts, iterable, invokedAt);
  };
  const own: Record<PropertyKey, unknown> = { next, fetch: messages('fetch'), consume: messages('consume') };
  return new Proxy(consumer, { get: (t, p) => (Object.hasOwn(own, p) ? own[p] : passThrough(t, p)) });
}

/** A pull that found nothing: a claim that names no job. */
function noneFound(f: ConsumerFacts, invokedAt: number): null {
  f.writer.op({ op: 'claim', worker: f.options.worker, invokedAt, returnedAt: f.writer.now(), outcome: 'ok' });
  return null;
}

/** The claim of a delivered message, recorded, and the message wrapped. */
function claimed(f: ConsumerFacts, msg: JsMsg, invokedAt: number): JsMsg {
  const returnedAt = f.writer.now();
  let fields: Partial<OpFields> = {};
  try {
    fields = deliveryFields(f, msg);
    if (f.ackWaitMs !== undefined) fields.leaseUntil = returnedAt + f.ackWaitMs;
    fields.payloadHash = payloadHash(msg.data);
  } catch {
    // A message the recorder cannot read is still the worker's: the claim names what it could.
  }
  f.writer.op({ op: 'claim', worker: f.options.worker, invokedAt, returnedAt, outcome: 'ok', ...fields });
  return recordedMsg(f, msg);
}

/** The job, token and attempt of a delivery. */
function deliveryFields(f: ConsumerFacts, msg: JsMsg): Partial<OpFields> {
  const reply = (msg as JsMsg & { reply?: string }).reply;
  const fields: Partial<OpFields> = { job: (f.options.jobOf ?? defaultJobOf)(msg), attempt: msg.info.deliveryCount };
  if (reply !== undefined && reply !== '') fields.token = reply;
  return fields;
}

/** The messages of a fetch or consume, each recorded as a claim when the iterator yields it. */
function recordedMessages(f: ConsumerFacts, iterable: ConsumerMessages, invokedAt: number): ConsumerMessages {
  const iterate = (): AsyncIterator<JsMsg> => {
    const it = iterable[Symbol.asyncIterator]();
    return {
      next: async () => {
        const r = await it.next();
        return r.done === true ? r : { done: false, value: claimed(f, r.value, invokedAt) };
      },
      return: async (value?: unknown) => (it.return === undefined ? { done: true, value } : it.return(value)),
    };
  };
  return new Proxy(iterable, { get: (t, p) => (p === Symbol.asyncIterator ? iterate : passThrough(t, p)) });
}

/** A message whose settles are recorded. */
function recordedMsg(f: ConsumerFacts, msg: JsMsg): JsMsg {
  const { writer, options } = f;
  const sent = (): boolean => (msg as JsMsg & { didAck?: boolean }).didAck !== true;
  const fields = (): Partial<OpFields> => {
    try {
      return deliveryFields(f, msg);
    } catch {
      return {};
    }
  };
  /** A settle that asks for no reply: recorded with outcome unknown (or the error it threw). */
  const oneWay =
    (op: 'ack' | 'fail' | 'extend', call: (...a: never[]) => void, more: () => Partial<OpFields>) =>
    (...args: never[]): void => {
      if (!sent()) {
        call.apply(msg, args);
        return;
      }
      const invokedAt = writer.now();
      let outcome = 'unknown';
      try {
        call.apply(msg, args);
      } catch (error) {
        outcome = natsOutcome(error);
        throw error;
      } finally {
        writer.op({ op, worker: options.worker, invokedAt, returnedAt: writer.now(), outcome, ...fields(), ...more() });
      }
    };
  const next = (): 'retry' | 'dead' =>
    f.maxDeliver !== undefined && msg.info.deliveryCount >= f.maxDeliver ? 'dead' : 'retry';
  const own: Record<PropertyKey, unknown> = {
    ack: oneWay('ack', msg.ack, () => ({})),
    nak: oneWay('fail', msg.nak, () => ({ next: next() })),
    term: oneWay('fail', msg.term, () => ({ next: 'dead' })),
    working: oneWay('extend', msg.working, () =>
      f.ackWaitMs === undefined ? {} : { leaseUntil: writer.now() + f.ackWaitMs },
    ),
    ackAck: (opts?: Partial<{ timeout: number }>): Promise<boolean> => {
      if (!sent()) return msg.ackAck(opts);
      return writer.recordCall(
        { ...fields(), op: 'ack', worker: options.worker },
        () => msg.ackAck(opts),
        (landed) => (landed ? {} : { outcome: 'not_sent' }),
        natsOutcome,
      );
    },
  };
  return new Proxy(msg, { get: (t, p) => (Object.hasOwn(own, p) ? own[p] : passThrough(t, p)) });
}
