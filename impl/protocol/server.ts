/**
 * The implementation's end of the jobcheck/1 protocol, for any store with the contract's API:
 * one request per line in, one reply per line out, in order (docs/protocol.md). `jobcheck serve`
 * runs it on stdio, so that any tool (the harness included) can drive the built-in stores as it
 * drives an implementation in another language.
 *
 * How a request is answered, in order:
 * 1. a line that is not JSON, or JSON nested deeper than the store could use, is `invalid_argument`;
 * 2. before the first `hello`, every other request is `invalid_argument` ("send hello first");
 * 3. `hello` must have exactly `type`, `protocol` and `config` (else `invalid_argument`), then the
 *    protocol must be jobcheck/1 (else `unsupported_protocol`), then the config must be valid
 *    (else `invalid_config`, with `path`); it replaces the store by an empty one. A durable maker
 *    also takes `resume`, naming the storage a killed process left: that store is reopened
 *    instead (its config must be the hello's), and the reply's `durable` names its storage;
 * 4. `snapshot` must have only `type`; `restore` exactly `type` and `snapshot` (else
 *    `invalid_argument`); a snapshot the contract refuses is `invalid_snapshot` with `path`, and
 *    leaves the store as it was; `restore` is accepted at any time after `hello`;
 * 5. anything else is a command, answered by the store (a malformed one is `invalid_argument`).
 */
import { createInterface } from 'node:readline';
import type { Config, Reply, Snapshot } from '../../contract/index.ts';
import { JobcheckError, describeIssue, describeValue, jsonDepth } from '../../contract/index.ts';
import { PROTOCOL_VERSION, helloRequestSchema, restoreRequestSchema, snapshotRequestSchema } from '../../contract/protocol.ts';

/** A store as the server drives it. Methods may be async (a store on a database). */
export interface ServedStore {
  execute(command: unknown): Reply | Promise<Reply>;
  snapshot(): Snapshot | Promise<Snapshot>;
  /** Releases what the store holds (a database connection); called when it is replaced. */
  close?(): void | Promise<void>;
  /** Where a durable store lives (told in the hello reply, for a later hello's `resume`); absent for a store in memory. */
  readonly storage?: string;
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
}

/** A reply of the protocol: a command's reply, or the reply to hello, snapshot or restore. */
export type ProtocolReply = Reply | { readonly ok: boolean; readonly [field: string]: unknown };

/** Deeper than any request the protocol has (a restore of a snapshot is 6 deep). */
const MAX_REQUEST_DEPTH = 64;

const refuse = (code: string, message: string, path?: string): ProtocolReply => ({ ok: false, code, message, ...(path === undefined ? {} : { path }) });

async function replace(session: Session, next: ServedStore): Promise<void> {
  const old = session.store;
  session.store = next;
  await old?.close?.();
}

/** Answers one request line. Never throws for bad input; a store's own failure (I/O) propagates. */
export async function answerLine(session: Session, line: string, maker: StoreMaker): Promise<ProtocolReply> {
  let message: unknown;
  try {
    message = JSON.parse(line);
  } catch (error) {
    return refuse('invalid_argument', `the line is not JSON (${(error as Error).message})`);
  }
  if (jsonDepth(message, MAX_REQUEST_DEPTH) > MAX_REQUEST_DEPTH) return refuse('invalid_argument', `the request is nested deeper than ${MAX_REQUEST_DEPTH} levels`);
  const type = typeof message === 'object' && message !== null && !Array.isArray(message) ? (message as { type?: unknown }).type : undefined;
  if (type === 'hello') {
    const shape = helloRequestSchema.safeParse(message);
    if (!shape.success) return refuse('invalid_argument', `hello: ${describeIssue(shape.error, message, 'request').message}`);
    const resume = shape.data.resume;
    if (resume !== undefined && maker.resume === undefined) return refuse('invalid_argument', 'hello: resume: unknown field (this implementation keeps no storage)');
    if (resume !== undefined && (typeof resume !== 'string' || resume === '')) {
      return refuse('invalid_argument', `hello: resume: must be a non-empty string (got ${describeValue(resume)})`);
    }
    if (shape.data.protocol !== PROTOCOL_VERSION) {
      return refuse('unsupported_protocol', `protocol: this implementation speaks ${PROTOCOL_VERSION} (got ${describeValue(shape.data.protocol)})`);
    }
    let store: ServedStore;
    try {
      const config = shape.data.config as Config;
      const made = resume === undefined || maker.resume === undefined ? await maker.create(config) : await maker.resume(resume, config);
      if (typeof made === 'string') return refuse('invalid_argument', `hello: resume: ${made}`);
      store = made;
    } catch (error) {
      if (error instanceof JobcheckError) return refuse(error.code, error.message, error.path);
      throw error;
    }
    await replace(session, store);
    return { ok: true, type: 'hello', protocol: PROTOCOL_VERSION, implementation: maker.name, ...(store.storage === undefined ? {} : { durable: { storage: store.storage } }) };
  }
  const store = session.store;
  if (store === undefined) return refuse('invalid_argument', `send hello first (got ${describeValue(message)})`);
  if (type === 'snapshot') {
    const shape = snapshotRequestSchema.safeParse(message);
    if (!shape.success) return refuse('invalid_argument', `snapshot: ${describeIssue(shape.error, message, 'request').message}`);
    return { ok: true, type: 'snapshot', snapshot: await store.snapshot() };
  }
  if (type === 'restore') {
    const shape = restoreRequestSchema.safeParse(message);
    if (!shape.success) return refuse('invalid_argument', `restore: ${describeIssue(shape.error, message, 'request').message}`);
    let restored: ServedStore;
    try {
      restored = await maker.restore(shape.data.snapshot);
    } catch (error) {
      if (error instanceof JobcheckError) return refuse(error.code, error.message, error.path);
      throw error;
    }
    await replace(session, restored);
    return { ok: true, type: 'restore', ...(restored.storage === undefined ? {} : { durable: { storage: restored.storage } }) };
  }
  return store.execute(message);
}

/**
 * Serves the protocol on `input`/`output` until the input ends, one reply line per request line,
 * in order (blank lines are skipped). Resolves when the input has ended and the store is closed.
 */
export async function serveLines(input: NodeJS.ReadableStream, output: NodeJS.WritableStream, maker: StoreMaker): Promise<void> {
  const session: Session = {};
  const lines = createInterface({ input, crlfDelay: Infinity });
  try {
    for await (const line of lines) {
      if (line.trim() === '') continue;
      const reply = await answerLine(session, line, maker);
      if (!output.write(`${JSON.stringify(reply)}\n`)) await new Promise((resolve) => output.once('drain', resolve));
    }
  } finally {
    await session.store?.close?.();
  }
}
