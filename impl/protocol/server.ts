/**
 * The implementation's end of the jobcheck/1 and jobcheck/2 protocols (docs/protocol.md), for any
 * store with the contract's API; `jobcheck serve` runs it on stdio. A request is answered in order:
 * 1. a line that is not JSON, or JSON nested deeper than a store could use: `invalid_argument`;
 * 2. before the first `hello`, any other request: `invalid_argument` ("send hello first");
 * 3. `hello` has exactly `type`, `protocol`, `config` (else `invalid_argument`), a protocol of
 *    jobcheck/1 or /2 (else `unsupported_protocol`) and a valid config (else `invalid_config`);
 *    it replaces the store by an empty one. A durable maker also takes `resume`, reopening the
 *    storage a killed process left (its config must be the hello's; the reply's `durable` names it);
 * 4. `snapshot` has only `type`, `restore` exactly `type` and `snapshot` (else `invalid_argument`);
 *    a snapshot the contract refuses is `invalid_snapshot` and leaves the store as it was;
 * 5. jobcheck/2: a `request` envelope carries a command (malformed: `invalid_argument`), answered
 *    `{type: "reply", id, reply}`; a bare command is `invalid_argument`;
 * 6. jobcheck/1: anything else is a command, answered by the store.
 * Concurrency (jobcheck/2): a store that says `concurrent` (PostgreSQL) has the envelopes of
 * different lanes executed at once, each lane's in arrival order; every other store has every
 * request executed one at a time in arrival order. `hello`, `snapshot` and `restore` wait until
 * nothing is in flight.
 */
import { createInterface } from 'node:readline';
import type { Config, Reply, Snapshot } from '../../contract/index.ts';
import { describeIssue, describeValue, isJobcheckError, jsonDepth } from '../../contract/index.ts';
import {
  PROTOCOL_VERSION,
  PROTOCOL_VERSION_2,
  PROTOCOL_VERSIONS,
  helloRequestSchema,
  requestEnvelopeSchema,
  restoreRequestSchema,
  snapshotRequestSchema,
} from '../../contract/protocol.ts';
import type { ProtocolRejectionCode, ProtocolVersion } from '../../contract/protocol.ts';

/** A store as the server drives it. Methods may be async (a store on a database). */
export interface ServedStore {
  execute(command: unknown): Reply | Promise<Reply>;
  snapshot(): Snapshot | Promise<Snapshot>;
  /** Releases what the store holds (a database connection); called when it is replaced. */
  close?(): void | Promise<void>;
  /** Where a durable store lives (told in the hello reply, for a later hello's `resume`); absent for a store in memory. */
  readonly storage?: string;
  /**
   * True when `execute` may be called again before an earlier call has settled, each call seeing
   * a consistent store (a store whose commands are transactions on connections of their own).
   * Absent or false: the server executes one command at a time.
   */
  readonly concurrent?: boolean;
}

/** How the server makes stores: empty for a config, or restored from a snapshot. Both throw JobcheckError. */
export interface StoreMaker {
  /** The name given in the hello reply. */
  readonly name: string;
  create(config: Config): ServedStore | Promise<ServedStore>;
  restore(snapshot: unknown): ServedStore | Promise<ServedStore>;
  /**
   * A durable maker: reopens the store in `storage` (named by an earlier hello reply, perhaps of a
   * process that was killed). Returns the store, or a sentence saying why that storage cannot be
   * resumed (refused as `invalid_argument`); throws JobcheckError `invalid_config` when the store
   * there has another config.
   */
  resume?(storage: string, config: Config): ServedStore | string | Promise<ServedStore | string>;
}

/** The server's state: the current store, once `hello` made one. */
export interface Session {
  store?: ServedStore;
  /** The protocol the last accepted `hello` asked for. */
  protocol?: ProtocolVersion;
}

/** Where a durable store lives, told in the reply to the request that made it (hello, restore), for a later hello's `resume`. */
export interface DurableStorage {
  readonly storage: string;
}

/** The reply to a `hello` that settled on jobcheck/1 (docs/protocol.md, section 4). */
export interface HelloReply {
  readonly ok: true;
  readonly type: 'hello';
  readonly protocol: typeof PROTOCOL_VERSION;
  readonly implementation: string;
  /** Present for a durable store only. */
  readonly durable?: DurableStorage;
}

/** The reply to a `hello` that offered jobcheck/2: this server always accepts requests in flight at once (section 9). */
export interface HelloReplyV2 {
  readonly ok: true;
  readonly type: 'hello';
  readonly protocol: typeof PROTOCOL_VERSION_2;
  readonly implementation: string;
  readonly concurrent: true;
  /** Present for a durable store only. */
  readonly durable?: DurableStorage;
}

/** The reply to `snapshot`: the store's snapshot (section 4). */
export interface SnapshotReply {
  readonly ok: true;
  readonly type: 'snapshot';
  readonly snapshot: Snapshot;
}

/** The reply to an accepted `restore` (section 4); `durable` when the restored store is durable. */
export interface RestoreReply {
  readonly ok: true;
  readonly type: 'restore';
  readonly durable?: DurableStorage;
}

/**
 * A refusal of the protocol's own: of a line that is no request, of `hello`, `snapshot` or
 * `restore`, or of a command outside its envelope (section 5); `path` names the bad field of a
 * config or snapshot.
 */
export interface ProtocolRefusal {
  readonly ok: false;
  readonly code: ProtocolRejectionCode;
  readonly message: string;
  readonly path?: string;
}

/** A jobcheck/2 reply envelope, as the server writes it: the request's id and the command's reply (section 9). */
export interface ReplyEnvelopeOut {
  /** Never present: the envelope has no `ok` of its own, its reply has (so `reply.ok` reads on every ProtocolReply). */
  readonly ok?: never;
  readonly type: 'reply';
  readonly id: number;
  readonly reply: Reply;
}

/**
 * Every line the server can answer with: a command's reply (jobcheck/1), a reply envelope
 * (jobcheck/2), the reply to hello, snapshot or restore, or a refusal of the protocol's own.
 * A `switch` on `type` (then on `ok`) tells them apart.
 */
export type ProtocolReply =
  | Reply
  | ReplyEnvelopeOut
  | HelloReply
  | HelloReplyV2
  | SnapshotReply
  | RestoreReply
  | ProtocolRefusal;

/** Deeper than any request the protocol has (a restore of a snapshot is 6 deep). */
const MAX_REQUEST_DEPTH = 64;

/** A refusal of the protocol's own, with `path` when there is one. Pure. */
const refuse = (code: ProtocolRejectionCode, message: string, path?: string): ProtocolRefusal => ({
  ok: false,
  code,
  message,
  ...(path === undefined ? {} : { path }),
});

async function replace(session: Session, next: ServedStore): Promise<void> {
  const old = session.store;
  session.store = next;
  await old?.close?.();
}

/** What parseLine and checkEnvelope give for input they refuse: the refusal to send. */
interface Refused {
  readonly ok: false;
  readonly reply: ProtocolRefusal;
}

/** A reply envelope for a request's id. Pure. */
const envelopeReply = (id: number, reply: Reply): ReplyEnvelopeOut => ({ type: 'reply', id, reply });

/** A request line as JSON, or the refusal of a line that is not a request at all. Pure. */
function parseLine(line: string): { readonly ok: true; readonly message: unknown } | Refused {
  let message: unknown;
  try {
    message = JSON.parse(line);
  } catch (error) {
    return { ok: false, reply: refuse('invalid_argument', `the line is not JSON (${(error as Error).message})`) };
  }
  if (jsonDepth(message, MAX_REQUEST_DEPTH) > MAX_REQUEST_DEPTH)
    return {
      ok: false,
      reply: refuse('invalid_argument', `the request is nested deeper than ${MAX_REQUEST_DEPTH} levels`),
    };
  return { ok: true, message };
}

const typeOf = (message: unknown): unknown =>
  typeof message === 'object' && message !== null && !Array.isArray(message)
    ? (message as { type?: unknown }).type
    : undefined;

/** Answers one request line. Never throws for bad input; a store's own failure (I/O) propagates. */
export async function answerLine(session: Session, line: string, maker: StoreMaker): Promise<ProtocolReply> {
  const parsed = parseLine(line);
  return parsed.ok ? answerMessage(session, parsed.message, maker) : parsed.reply;
}

/**
 * A request envelope of a jobcheck/2 session checked: the envelope, or the bare refusal of a
 * malformed one (whose command is not executed). Pure.
 */
function checkEnvelope(
  message: unknown,
): { readonly ok: true; readonly id: number; readonly lane: number; readonly command: unknown } | Refused {
  const shape = requestEnvelopeSchema.safeParse(message);
  if (!shape.success)
    return {
      ok: false,
      reply: refuse('invalid_argument', `request: ${describeIssue(shape.error, message, 'request').message}`),
    };
  // The command as parsed from the line, not zod's copy (which may drop a `__proto__` key).
  return { ok: true, id: shape.data.id, lane: shape.data.lane, command: (message as { command: unknown }).command };
}

/** Answers one parsed request (see the file comment for the order of the checks). */
async function answerMessage(session: Session, message: unknown, maker: StoreMaker): Promise<ProtocolReply> {
  const type = typeOf(message);
  if (type === 'hello') {
    const shape = helloRequestSchema.safeParse(message);
    if (!shape.success)
      return refuse('invalid_argument', `hello: ${describeIssue(shape.error, message, 'request').message}`);
    const resume = shape.data.resume;
    if (resume !== undefined && maker.resume === undefined)
      return refuse('invalid_argument', 'hello: resume: unknown field (this implementation keeps no storage)');
    if (resume !== undefined && (typeof resume !== 'string' || resume === '')) {
      return refuse('invalid_argument', `hello: resume: must be a non-empty string (got ${describeValue(resume)})`);
    }
    const protocol = PROTOCOL_VERSIONS.find((v) => v === shape.data.protocol);
    if (protocol === undefined) {
      return refuse(
        'unsupported_protocol',
        `protocol: this implementation speaks ${PROTOCOL_VERSIONS.join(' and ')} (got ${describeValue(shape.data.protocol)})`,
      );
    }
    let store: ServedStore;
    try {
      const config = shape.data.config as Config;
      const made =
        resume === undefined || maker.resume === undefined
          ? await maker.create(config)
          : await maker.resume(resume, config);
      if (typeof made === 'string') return refuse('invalid_argument', `hello: resume: ${made}`);
      store = made;
    } catch (error) {
      if (isJobcheckError(error)) return refuse(error.code, error.message, error.path);
      throw error;
    }
    await replace(session, store);
    session.protocol = protocol;
    const durable = store.storage === undefined ? {} : { durable: { storage: store.storage } };
    if (protocol === PROTOCOL_VERSION)
      return { ok: true, type: 'hello', protocol, implementation: maker.name, ...durable };
    return { ok: true, type: 'hello', protocol, implementation: maker.name, concurrent: true, ...durable };
  }
  const store = session.store;
  if (store === undefined) return refuse('invalid_argument', `send hello first (got ${describeValue(message)})`);
  if (type === 'snapshot') {
    const shape = snapshotRequestSchema.safeParse(message);
    if (!shape.success)
      return refuse('invalid_argument', `snapshot: ${describeIssue(shape.error, message, 'request').message}`);
    return { ok: true, type: 'snapshot', snapshot: await store.snapshot() };
  }
  if (type === 'restore') {
    const shape = restoreRequestSchema.safeParse(message);
    if (!shape.success)
      return refuse('invalid_argument', `restore: ${describeIssue(shape.error, message, 'request').message}`);
    let restored: ServedStore;
    try {
      restored = await maker.restore(shape.data.snapshot);
    } catch (error) {
      if (isJobcheckError(error)) return refuse(error.code, error.message, error.path);
      throw error;
    }
    await replace(session, restored);
    return {
      ok: true,
      type: 'restore',
      ...(restored.storage === undefined ? {} : { durable: { storage: restored.storage } }),
    };
  }
  if (session.protocol === PROTOCOL_VERSION_2) {
    if (type !== 'request')
      return refuse(
        'invalid_argument',
        `in a ${PROTOCOL_VERSION_2} session a command travels in a request envelope (got ${describeValue(message)})`,
      );
    const envelope = checkEnvelope(message);
    if (!envelope.ok) return envelope.reply;
    return envelopeReply(envelope.id, await store.execute(envelope.command));
  }
  return store.execute(message);
}

/**
 * Serves the protocol on `input`/`output` until the input ends, one reply line per request line
 * (blank lines are skipped). Requests are answered in arrival order, one at a time, except the
 * request envelopes of a jobcheck/2 session on a `concurrent` store: those of different lanes run
 * at once and are replied to as they finish. Resolves when the input has ended, every request is
 * answered and the store is closed; rejects with a store's own failure (I/O).
 */
export async function serveLines(
  input: NodeJS.ReadableStream,
  output: NodeJS.WritableStream,
  maker: StoreMaker,
): Promise<void> {
  const session: Session = {};
  const lines = createInterface({ input, crlfDelay: Infinity });
  const write = async (reply: ProtocolReply): Promise<void> => {
    if (!output.write(`${JSON.stringify(reply)}\n`)) await new Promise((resolve) => output.once('drain', resolve));
  };
  /** The last request of each lane still running, and every request in flight. */
  const lanes = new Map<number, Promise<void>>();
  const inFlight = new Set<Promise<void>>();
  let failure: { readonly error: unknown } | undefined;
  const settle = async (): Promise<void> => {
    while (inFlight.size > 0) await Promise.all(inFlight);
    lanes.clear();
    if (failure !== undefined) throw failure.error;
  };
  try {
    for await (const line of lines) {
      if (line.trim() === '') continue;
      if (failure !== undefined) throw failure.error;
      const parsed = parseLine(line);
      const store = session.store;
      if (
        parsed.ok &&
        session.protocol === PROTOCOL_VERSION_2 &&
        store?.concurrent === true &&
        typeOf(parsed.message) === 'request'
      ) {
        const envelope = checkEnvelope(parsed.message);
        if (envelope.ok) {
          const before = lanes.get(envelope.lane) ?? Promise.resolve();
          const run = before
            .then(async () => write(envelopeReply(envelope.id, await store.execute(envelope.command))))
            .catch((error: unknown) => {
              failure ??= { error };
              // End at once, as a failing jobcheck/1 request does, rather than at the next line.
              lines.close();
            });
          const tracked = run.finally(() => {
            inFlight.delete(tracked);
            if (lanes.get(envelope.lane) === tracked) lanes.delete(envelope.lane);
          });
          inFlight.add(tracked);
          lanes.set(envelope.lane, tracked);
          continue;
        }
      }
      await settle();
      await write(parsed.ok ? await answerMessage(session, parsed.message, maker) : parsed.reply);
    }
    await settle();
  } finally {
    await Promise.allSettled(inFlight);
    await session.store?.close?.();
  }
}
