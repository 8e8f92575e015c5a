/**
 * A ConcurrentAdapter for an implementation in any language: it starts a shell command and speaks
 * jobcheck/2 with it (docs/protocol.md, section 9), or jobcheck/1 when the implementation refuses
 * the revision. Under jobcheck/2 several commands are in flight at once, each in a request
 * envelope with an id and a lane, and replies are matched by id in whatever order they come.
 *
 * Contained as the sequential adapter is (peer.ts: own group, line limit, strict UTF-8, stderr's tail):
 * - a reply with an unknown or repeated id, no id, or the wrong shape, or a line that is no reply
 *   envelope: a `protocol_error` whose `details.violation` names the rule; the group is killed and
 *   every request in flight rejects with it (the implementation's fault);
 * - no reply within the reply timeout: the group is killed, and every request in flight rejects
 *   with IndefiniteOutcome `timeout` (each may or may not have taken effect, none can later);
 * - the process ending: IndefiniteOutcome `process_died`; close(): IndefiniteOutcome `closed`,
 *   the group ended (killed at once when something is in flight), no process left.
 * A request never written (the process had failed, the adapter was closed) rejects with the
 * ProcessError: it certainly did not take effect. Requests of one lane go one after another (all
 * requests, when the implementation is not concurrent: jobcheck/1, `concurrent: false`); snapshot()
 * waits for everything handed to execute() before it, sends `snapshot` alone, and holds back later
 * requests until its reply.
 */
import type { Config, Reply, Snapshot } from '../../contract/index.ts';
import {
  PROTOCOL_VERSION,
  PROTOCOL_VERSION_2,
  helloReplySchema,
  helloReplyV2Schema,
  protocolRejectionSchema,
  replyEnvelopeSchema,
  snapshotReplySchema,
} from '../../contract/protocol.ts';
import type { ProtocolVersion } from '../../contract/protocol.ts';
import type { Budget } from '../budget.ts';
import { IndefiniteOutcome } from '../concurrent/adapter.ts';
import type { ConcurrentAdapter, ConcurrentFactory } from '../concurrent/adapter.ts';
import { DEFAULT_REPLY_TIMEOUT_MS } from './limits.ts';
import { Peer } from './peer.ts';
import type { PeerOptions } from './peer.ts';
import { encodeCommand } from './processAdapter.ts';
import { ProcessError, helloTimeoutError } from './processError.ts';
import type { ProcessErrorDetails, ProtocolViolation } from './processError.ts';
import {
  checkReply,
  checkShape,
  misplacedReplyHint,
  parseJsonLine,
  snapshotOf,
  splitCarriedSnapshot,
} from './replies.ts';
import type { LineResult } from './replies.ts';

/** Options of a concurrent process adapter or factory. */
export interface ConcurrentProcessAdapterOptions extends PeerOptions {
  /** Longest wait for the reply to one request or a snapshot, in ms (default 5000). */
  readonly replyTimeoutMs?: number;
  /** Longest wait for the reply to each `hello`, in ms (default twice the reply timeout: it includes the process start). */
  readonly startTimeoutMs?: number;
  /** Name for reports (default: the command). */
  readonly name?: string;
  /** The check's time budget: every wait is cut to what is left of it (error code `time_limit`). */
  readonly budget?: Budget;
  /** Offer jobcheck/2 in hello (default true); false speaks jobcheck/1 only, one request at a time. */
  readonly offerConcurrent?: boolean;
  /**
   * Factory only: reuse a process across stores (default true). A store closed with nothing in
   * flight and nothing gone wrong leaves its process idle; the next store says `hello` to it,
   * which resets it, as the sequential pool does. False: one process per store.
   */
  readonly reuse?: boolean;
}

/** A request written under jobcheck/2 whose reply has not come. */
interface Pending {
  readonly lane: number;
  readonly line: string;
  readonly resolve: (reply: Reply) => void;
  readonly reject: (error: Error) => void;
  readonly timer: NodeJS.Timeout;
}

/** A bare reply awaited under jobcheck/2 (a snapshot's), with nothing in flight. */
interface BareWait {
  readonly line: string;
  readonly resolve: (text: string) => void;
  readonly reject: (error: Error) => void;
  readonly timer: NodeJS.Timeout;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const settled = (p: Promise<unknown>): Promise<void> =>
  p.then(
    () => undefined,
    () => undefined,
  );

/** What the handshake established. */
interface Handshake {
  readonly protocol: ProtocolVersion;
  readonly implementation: string;
  readonly concurrent: boolean;
  /** A jobcheck/1 hello reply's `replySnapshots`: each command reply carries the store's snapshot. */
  readonly replySnapshots?: boolean;
}

/**
 * Says hello offering jobcheck/2 (unless told not to) and falls back to jobcheck/1 on the same
 * process when the implementation refuses the offer with `unsupported_protocol` (a refused hello
 * leaves a process as it was). A jobcheck/1 hello reply to the offer is taken as the
 * implementation speaking jobcheck/1. Throws a ProcessError after killing the peer.
 */
async function handshake(peer: Peer, config: Config, options: ConcurrentProcessAdapterOptions): Promise<Handshake> {
  const timeout = options.startTimeoutMs ?? 2 * (options.replyTimeoutMs ?? DEFAULT_REPLY_TIMEOUT_MS);
  /** Says hello for `protocol`; the reply as text and JSON (or what is wrong with it). */
  const ask = async (
    protocol: ProtocolVersion,
  ): Promise<{ readonly text: string; readonly json: LineResult<unknown> }> => {
    const line = JSON.stringify({ type: 'hello', protocol, config });
    try {
      const text = await peer.request(
        line,
        options.budget === undefined ? timeout : options.budget.cap(timeout),
        options.budget?.signal,
      );
      return { text, json: parseJsonLine(text) };
    } catch (error) {
      await peer.kill();
      const e = error as ProcessError;
      if (e.code === 'process_exited')
        throw new ProcessError(
          'spawn_failed',
          `${JSON.stringify(peer.command)} ended before it answered hello`,
          e.details,
        );
      throw helloTimeoutError(e, timeout);
    }
  };
  /** Ends the peer and throws handshake_failed, saying why the reply is not one to go on with. */
  const refused = async (
    text: string,
    json: LineResult<unknown>,
    expected: typeof helloReplySchema | typeof helloReplyV2Schema,
  ): Promise<never> => {
    await peer.kill();
    let why: string;
    if (!json.ok) why = `the reply to hello is ${json.problem}`;
    else {
      const refusal = checkShape(protocolRejectionSchema, json.value);
      const shape = checkShape(expected as typeof helloReplySchema, json.value);
      why = refusal.ok
        ? `hello refused (${refusal.value.code}: ${refusal.value.message})`
        : `the reply to hello is ${shape.ok ? 'not a hello reply' : shape.problem}`;
    }
    throw peer.error('handshake_failed', why, text);
  };
  if (options.offerConcurrent !== false) {
    const offer = await ask(PROTOCOL_VERSION_2);
    if (!offer.json.ok) return refused(offer.text, offer.json, helloReplyV2Schema);
    const v2 = checkShape(helloReplyV2Schema, offer.json.value);
    if (v2.ok)
      return { protocol: PROTOCOL_VERSION_2, implementation: v2.value.implementation, concurrent: v2.value.concurrent };
    const v1 = checkShape(helloReplySchema, offer.json.value);
    if (v1.ok) return helloV1(v1.value);
    const refusal = checkShape(protocolRejectionSchema, offer.json.value);
    if (!refusal.ok || refusal.value.code !== 'unsupported_protocol') {
      const claimsV1 = isObject(offer.json.value) && offer.json.value.protocol === PROTOCOL_VERSION;
      return refused(offer.text, offer.json, claimsV1 ? helloReplySchema : helloReplyV2Schema);
    }
  }
  const plain = await ask(PROTOCOL_VERSION);
  if (plain.json.ok) {
    const v1 = checkShape(helloReplySchema, plain.json.value);
    if (v1.ok) return helloV1(v1.value);
  }
  return refused(plain.text, plain.json, helloReplySchema);
}

/** The handshake of a jobcheck/1 hello reply. */
const helloV1 = (reply: { implementation: string; replySnapshots?: true | undefined }): Handshake => ({
  protocol: PROTOCOL_VERSION,
  implementation: reply.implementation,
  concurrent: false,
  replySnapshots: reply.replySnapshots === true,
});

/** Throws `unencodable_command` unless `workers` is an integer >= 1. */
function checkWorkers(command: string, workers: number): void {
  if (!Number.isSafeInteger(workers) || workers < 1) {
    throw new ProcessError('unencodable_command', `workers: must be an integer >= 1 (got ${String(workers)})`, {
      command,
    });
  }
}

/** A running implementation behind a process boundary, driven with several requests in flight. */
export class ConcurrentProcessAdapter implements ConcurrentAdapter {
  readonly name: string;
  /** True when the implementation accepts concurrent requests (jobcheck/2 with `concurrent: true`). */
  readonly concurrent: boolean;
  /** The protocol spoken: jobcheck/2, or jobcheck/1 when the implementation refused the revision. */
  readonly protocol: ProtocolVersion;
  /** The name the implementation gave in its hello reply. */
  readonly implementation: string;
  /** A jobcheck/1 implementation whose command replies carry its snapshot (its hello reply's `replySnapshots`). */
  private readonly replySnapshots: boolean;
  private readonly pending = new Map<number, Pending>();
  private bare: BareWait | undefined;
  /** The last request of each lane (one key for all when not concurrent), settled or not. */
  private readonly lanes = new Map<number, Promise<unknown>>();
  private barrier: Promise<unknown> | undefined;
  private nextId = 0;
  /** A jobcheck/1 request written whose reply has not come. */
  private plainInFlight = false;
  private failure: ProcessError | undefined;
  private closed = false;
  private readonly timeoutMs: number;

  private constructor(
    private readonly peer: Peer,
    private readonly options: ConcurrentProcessAdapterOptions,
    /** Lanes 0 .. workers-1 may be used. */
    readonly workers: number,
    greeting: Handshake,
    /** Takes the process back for another store (says whether it did); absent: close() ends it. */
    private readonly recycle?: (peer: Peer) => boolean,
  ) {
    this.name = options.name ?? peer.command;
    this.protocol = greeting.protocol;
    this.concurrent = greeting.concurrent;
    this.implementation = greeting.implementation;
    this.replySnapshots = greeting.replySnapshots === true;
    this.timeoutMs = options.replyTimeoutMs ?? DEFAULT_REPLY_TIMEOUT_MS;
    if (this.protocol === PROTOCOL_VERSION_2)
      peer.listen({ line: (text) => this.onLine(text), failed: (error) => this.onFailed(error) });
    options.budget?.signal.addEventListener('abort', this.onTimeLimit, { once: true });
  }

  /** The check's time limit came: everything in flight fails with `time_limit`. Removed again on close, so that a long campaign's adapters do not pile up on the budget's signal. */
  private readonly onTimeLimit = (): void => {
    this.peer.failWith(
      this.peer.error(
        'time_limit',
        'the time limit of the check was reached while replies were awaited; the process group was killed',
      ),
    );
  };

  /**
   * Starts `command` (or takes `peer`, a process of it that a closed store left idle), says hello
   * (offering jobcheck/2) with the config, and returns the adapter. Throws ProcessError.
   */
  static async start(
    command: string,
    config: Config,
    options: ConcurrentProcessAdapterOptions & {
      readonly workers: number;
      readonly peer?: Peer;
      readonly recycle?: (peer: Peer) => boolean;
    },
  ): Promise<ConcurrentProcessAdapter> {
    const { workers } = options;
    checkWorkers(command, workers);
    const peer = options.peer ?? new Peer(command, options);
    const greeting = await handshake(peer, config, options);
    return new ConcurrentProcessAdapter(peer, options, workers, greeting, options.recycle);
  }

  /** The process id (and process group) of the implementation, for diagnostics. */
  get pid(): number | undefined {
    return this.peer.pid;
  }

  /** Requests written whose replies have not come. */
  get inFlight(): number {
    return this.pending.size;
  }

  private cap(ms: number): number {
    return this.options.budget === undefined ? ms : this.options.budget.cap(ms);
  }

  /** Details naming one request (its line and id) rather than the last line written. */
  private detailsFor(
    pending: { readonly line: string } | undefined,
    id: number | undefined,
    extra: Partial<ProcessErrorDetails> = {},
  ): ProcessErrorDetails {
    const { sent: _sent, lineNumber: _n, ...rest } = this.peer.details();
    return {
      ...rest,
      ...(pending === undefined ? {} : { sent: pending.line }),
      ...(id === undefined ? {} : { requestId: id }),
      ...extra,
    };
  }

  /** A protocol violation found in a line: the group is killed and everything in flight fails with it. */
  private violation(kind: ProtocolViolation, problem: string, received: string, id?: number): void {
    const pending = id === undefined ? undefined : this.pending.get(id);
    this.peer.failWith(
      new ProcessError(
        'protocol_error',
        `${problem}; the process group was killed`,
        this.detailsFor(pending, id, { received, violation: kind }),
      ),
    );
  }

  private onLine(text: string): void {
    const json = parseJsonLine(text);
    if (!json.ok) {
      this.violation('malformed_line', `a line is ${json.problem}`, text);
      return;
    }
    const value = json.value;
    const envelope = isObject(value) && value.type === 'reply';
    if (envelope && Object.hasOwn(value, 'id')) {
      const shape = checkShape(replyEnvelopeSchema, value);
      if (!shape.ok) {
        this.violation('malformed_line', `a reply envelope is ${shape.problem}`, text);
        return;
      }
      const id = shape.value.id;
      const pending = this.pending.get(id);
      if (pending === undefined) {
        if (id < this.nextId) {
          this.violation(
            'duplicate_id',
            `a second reply to request ${id} (each id is answered exactly once)`,
            text,
            id,
          );
        } else {
          this.violation(
            'unknown_id',
            `a reply to request ${id}, which was never sent (the last id sent is ${this.nextId - 1})`,
            text,
            id,
          );
        }
        return;
      }
      const reply = checkReply(shape.value.reply);
      if (!reply.ok) {
        this.violation('bad_reply', `the reply to request ${id} is ${reply.problem}`, text, id);
        return;
      }
      clearTimeout(pending.timer);
      this.pending.delete(id);
      pending.resolve(reply.value);
      return;
    }
    if (this.bare !== undefined && !envelope) {
      const bare = this.bare;
      this.bare = undefined;
      clearTimeout(bare.timer);
      bare.resolve(text);
      return;
    }
    if (envelope) {
      this.violation('missing_id', 'a reply envelope without an id (it cannot be matched to a request)', text);
      return;
    }
    if (this.pending.size === 0) {
      this.violation(
        'unasked_line',
        'the implementation wrote a line when no request was in flight (one reply per request)',
        text,
      );
      return;
    }
    this.violation(
      'missing_id',
      `a line that is not a reply envelope while ${this.pending.size} request(s) were in flight (a reply without an id cannot be matched)`,
      text,
    );
  }

  /** The peer failed: settle everything in flight as the failure calls for. */
  private onFailed(error: ProcessError): void {
    this.failure ??= error;
    const timedOut = error.details.requestId;
    for (const [id, pending] of this.pending) {
      clearTimeout(pending.timer);
      pending.reject(this.outcome(error, id, timedOut));
    }
    this.pending.clear();
    const bare = this.bare;
    this.bare = undefined;
    if (bare !== undefined) {
      clearTimeout(bare.timer);
      bare.reject(error);
    }
  }

  /** What a request in flight becomes when the peer fails with `error`. */
  private outcome(error: ProcessError, id: number, timedOut: number | undefined): Error {
    switch (error.code) {
      case 'timeout':
        return new IndefiniteOutcome(
          'timeout',
          id === timedOut
            ? error.message
            : `request ${id}: the process group was killed when request ${timedOut ?? '?'} got no reply in time`,
        );
      case 'process_exited':
        return new IndefiniteOutcome('process_died', `request ${id}: ${error.message}`);
      case 'closed':
        return new IndefiniteOutcome('closed', `request ${id}: ${error.message}`);
      default:
        return error;
    }
  }

  /** Executes one command on a lane; rejects with IndefiniteOutcome when no reply can come, with a ProcessError otherwise. */
  execute(lane: number, command: unknown): Promise<Reply> {
    if (this.closed)
      return Promise.reject(new ProcessError('closed', 'the adapter is closed', { command: this.peer.command }));
    if (!Number.isSafeInteger(lane) || lane < 0 || lane >= this.workers) {
      return Promise.reject(
        new ProcessError(
          'unencodable_command',
          `lane ${String(lane)}: must be an integer in [0, ${this.workers - 1}]`,
          { command: this.peer.command },
        ),
      );
    }
    let encoded: string;
    try {
      encoded = encodeCommand(command, this.peer.command);
    } catch (error) {
      return Promise.reject(error as Error);
    }
    const key = this.concurrent ? lane : 0;
    // A snapshot asked for before this call holds it back; one asked for later waits for it.
    const gate = this.barrier;
    const run = (this.lanes.get(key) ?? Promise.resolve())
      .then(() => gate)
      .then(() => (this.protocol === PROTOCOL_VERSION_2 ? this.sendEnvelope(lane, encoded) : this.sendPlain(encoded)));
    this.lanes.set(key, settled(run));
    return run;
  }

  private sendEnvelope(lane: number, encoded: string): Promise<Reply> {
    if (this.failure !== undefined) return Promise.reject(this.failure);
    if (this.closed)
      return Promise.reject(new ProcessError('closed', 'the adapter is closed', { command: this.peer.command }));
    const id = this.nextId++;
    const line = `{"type":"request","id":${id},"lane":${lane},"command":${encoded}}`;
    return new Promise<Reply>((resolve, reject) => {
      const ms = this.cap(this.timeoutMs);
      const timer = setTimeout(() => {
        const pending = this.pending.get(id);
        if (pending === undefined) return;
        const error =
          this.options.budget?.expired === true
            ? new ProcessError(
                'time_limit',
                'the time limit of the check was reached while replies were awaited; the process group was killed',
                this.detailsFor(pending, id),
              )
            : new ProcessError(
                'timeout',
                `no reply to request ${id} within ${ms} ms; the process group was killed`,
                this.detailsFor(pending, id),
              );
        this.peer.failWith(error);
      }, ms);
      this.pending.set(id, { lane, line, resolve, reject, timer });
      if (!this.peer.send(line)) {
        // The peer failed before the line could be written: it certainly did not take effect.
        clearTimeout(timer);
        this.pending.delete(id);
        reject(this.failure ?? new ProcessError('closed', 'the process has ended', this.detailsFor({ line }, id)));
      }
    });
  }

  /** jobcheck/1: one request, one reply in turn (the lanes are serialised into one). */
  private async sendPlain(encoded: string): Promise<Reply> {
    if (this.failure !== undefined) throw this.failure;
    if (this.closed) throw new ProcessError('closed', 'the adapter is closed', { command: this.peer.command });
    const before = this.peer.sent;
    let text: string;
    try {
      this.plainInFlight = true;
      text = await this.peer.request(encoded, this.cap(this.timeoutMs), this.options.budget?.signal);
    } catch (error) {
      const e = error as ProcessError;
      this.failure ??= e;
      if (this.peer.sent === before) throw e;
      throw this.outcome(e, before, before);
    } finally {
      this.plainInFlight = false;
    }
    const json = parseJsonLine(text);
    // A jobcheck/1 implementation with replySnapshots adds its snapshot to each reply: it must be
    // there, and the reply is checked without it (this adapter asks for a snapshot when it needs one).
    const split = json.ok && this.replySnapshots ? splitCarriedSnapshot(json.value) : undefined;
    const checked = !json.ok
      ? json
      : split === undefined
        ? checkReply(json.value)
        : split.ok
          ? checkReply(split.value.reply)
          : split;
    if (!checked.ok) {
      const hint = json.ok ? misplacedReplyHint('command', json.value) : '';
      const error = this.peer.error('protocol_error', `the reply is ${checked.problem}${hint}`, text);
      this.failure ??= error;
      await this.peer.kill();
      throw error;
    }
    return checked.value;
  }

  /** Waits until everything handed to execute() so far has settled, then asks for the canonical snapshot. */
  snapshot(): Promise<Snapshot> {
    if (this.closed)
      return Promise.reject(new ProcessError('closed', 'the adapter is closed', { command: this.peer.command }));
    const before = [...this.lanes.values(), ...(this.barrier === undefined ? [] : [this.barrier])];
    const taken = Promise.all(before).then(() => this.takeSnapshot());
    const barrier = settled(taken).then(() => {
      if (this.barrier === barrier) this.barrier = undefined;
    });
    this.barrier = barrier;
    return taken;
  }

  private async takeSnapshot(): Promise<Snapshot> {
    if (this.failure !== undefined) throw this.failure;
    const line = '{"type":"snapshot"}';
    let text: string;
    if (this.protocol === PROTOCOL_VERSION_2) {
      text = await new Promise<string>((resolve, reject) => {
        const ms = this.cap(this.timeoutMs);
        const timer = setTimeout(
          () =>
            this.peer.failWith(
              new ProcessError(
                'timeout',
                `no reply to snapshot within ${ms} ms; the process group was killed`,
                this.detailsFor({ line }, undefined),
              ),
            ),
          ms,
        );
        this.bare = { line, resolve, reject, timer };
        if (!this.peer.send(line)) {
          clearTimeout(timer);
          this.bare = undefined;
          reject(this.failure ?? new ProcessError('closed', 'the process has ended', { command: this.peer.command }));
        }
      });
    } else {
      try {
        text = await this.peer.request(line, this.cap(this.timeoutMs), this.options.budget?.signal);
      } catch (error) {
        this.failure ??= error as ProcessError;
        throw error;
      }
    }
    const json = parseJsonLine(text);
    const checked = json.ok ? checkShape(snapshotReplySchema, json.value) : json;
    if (!checked.ok) {
      const hint = json.ok ? misplacedReplyHint('snapshot', json.value) : '';
      const error = new ProcessError(
        'protocol_error',
        `the reply to snapshot is ${checked.problem}${hint}; the process group was killed`,
        this.detailsFor({ line }, undefined, { received: text, violation: 'bad_reply' }),
      );
      this.peer.failWith(error);
      throw error;
    }
    return snapshotOf(checked.value);
  }

  /**
   * Ends the process and leaves none of its group: gracefully (stdin closed) when nothing is in
   * flight, at once (SIGKILL) otherwise, every request in flight becoming IndefiniteOutcome
   * `closed`. Idempotent.
   */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.options.budget?.signal.removeEventListener('abort', this.onTimeLimit);
    const quiet = this.pending.size === 0 && this.bare === undefined && !this.plainInFlight;
    const idle = quiet && this.failure === undefined && this.peer.healthy;
    if (idle && this.recycle?.(this.peer) === true) return;
    if (this.pending.size > 0 || this.bare !== undefined || this.plainInFlight) await this.peer.kill();
    else await this.peer.end();
    this.peer.killGroup('SIGKILL');
  }
}

/** A ConcurrentFactory over a command; close() ends every process it started that is still open. */
export interface ConcurrentProcessFactory extends ConcurrentFactory {
  close(): Promise<void>;
  /** Processes started so far. */
  readonly processesStarted: number;
}

/**
 * A factory of stores over `command`: each store says `hello` to a process left idle by a store
 * closed cleanly, or to a new one (`reuse: false`: always a new one). A process is never shared
 * by two open stores.
 */
export function concurrentProcessFactory(
  command: string,
  options: ConcurrentProcessAdapterOptions = {},
): ConcurrentProcessFactory {
  const open = new Set<ConcurrentProcessAdapter>();
  const idle: Peer[] = [];
  let started = 0;
  let closing = false;
  const recycle = (peer: Peer): boolean => {
    if (closing || options.reuse === false) return false;
    idle.push(peer);
    return true;
  };
  const factory = async (config: Config, o: { readonly workers: number }): Promise<ConcurrentAdapter> => {
    checkWorkers(command, o.workers);
    let peer: Peer | undefined;
    while (peer === undefined && idle.length > 0) {
      const p = idle.pop() as Peer;
      if (p.healthy) peer = p;
      else await p.kill();
    }
    if (peer === undefined) started += 1;
    const reused = peer === undefined ? {} : { peer };
    const adapter = await ConcurrentProcessAdapter.start(command, config, {
      ...options,
      workers: o.workers,
      recycle,
      ...reused,
    });
    open.add(adapter);
    const close = adapter.close.bind(adapter);
    adapter.close = async (): Promise<void> => {
      open.delete(adapter);
      await close();
    };
    return adapter;
  };
  return Object.defineProperties(factory, {
    close: {
      value: async (): Promise<void> => {
        closing = true;
        await Promise.all([...open].map((a) => a.close()));
        await Promise.all(idle.splice(0).map((p) => p.end()));
        closing = false;
      },
    },
    processesStarted: { get: () => started },
  }) as ConcurrentProcessFactory;
}
