/**
 * An Adapter for an implementation in any language: it starts a shell command and speaks the
 * jobcheck/1 JSON-lines protocol with it (docs/protocol.md). One request per line on the
 * process's stdin, one reply per line on its stdout; stderr is kept for error messages.
 *
 * Every failure at the boundary (cannot start, garbage, wrong shape, silence, death, a flood)
 * becomes a ProcessError naming the line that was sent; the harness never crashes on an
 * implementation's output. Restart is real: snapshot, end the process, take a process that has
 * never served a store, hello, restore; or, for an implementation whose hello reply says it is
 * durable, a crash restart: SIGKILL, a new process, hello with `resume`, and no snapshot crossing.
 * Processes come from a ProcessPool (pool.ts); each one runs contained in its own process group
 * (peer.ts). An implementation whose hello reply says `replySnapshots` adds its snapshot to each
 * command reply; snapshot() then returns that one once instead of asking (docs/protocol.md,
 * "Snapshots in replies"), which spares a round trip after every command. One whose hello reply
 * says `pipelining` reads requests written ahead: plan() writes the requests its caller is about
 * to make all at once, and the calls that follow take their replies in order ("Requests written
 * ahead"), one wake-up of the process for many requests.
 */
import type { Config, Reply, Snapshot } from '../../contract/index.ts';
import {
  isProtocolMessageType,
  PROTOCOL_VERSION,
  helloReplySchema,
  protocolRejectionSchema,
  restoreReplySchema,
  snapshotReplySchema,
} from '../../contract/protocol.ts';
import type { Adapter, AdapterFactory, PlannedRequest, RestoreAnswer } from '../adapter.ts';
import type { Budget } from '../budget.ts';
import { DEFAULT_REPLY_TIMEOUT_MS } from './limits.ts';
import type { Peer, PeerEnding, WrittenRequest } from './peer.ts';
import { ProcessPool } from './pool.ts';
import type { PoolOptions } from './pool.ts';
import { ProcessError, helloTimeoutError } from './processError.ts';
import {
  checkReply,
  checkShape,
  misplacedReplyHint,
  parseJsonLine,
  snapshotOf,
  splitCarriedSnapshot,
} from './replies.ts';
import type { LineResult } from './replies.ts';
import { messageOf } from '../../contract/index.ts';

/** Options of a process adapter or factory. */
export interface ProcessAdapterOptions extends PoolOptions {
  /** Longest wait for the reply to a command, snapshot or restore, in ms (default 5000). */
  readonly replyTimeoutMs?: number;
  /** Longest wait for the reply to `hello`, in ms (default twice the reply timeout: it includes the process start). */
  readonly startTimeoutMs?: number;
  /** Name for reports (default: the command). */
  readonly name?: string;
  /** The check's time budget: every wait is cut to what is left of it (error code `time_limit`). */
  readonly budget?: Budget;
  /**
   * How restart() replaces the process. `cold` (default): end it, then restore the snapshot into
   * a process that has never served a store. `warm`: restore it into another process of the pool,
   * reset by its hello, and keep the old one for a later store. Both carry the snapshot across a
   * process boundary as JSON text; only `cold` also shows that the old process exits when its
   * stdin closes and that a newly started process can restore. `crash`: when the implementation
   * said in its hello reply that it is durable, every other restart (the first, third, ...) kills
   * its process group with SIGKILL, starts a new process with the same command and says hello
   * with `resume` naming the storage, so that only the storage crosses the restart; the others,
   * and every restart of an implementation that is not durable, are `warm`.
   */
  readonly restarts?: RestartKind;
  /** Told of every restart done, with the milliseconds from snapshot (or kill) to restored. */
  readonly onRestart?: (kind: RestartKind, ms: number) => void;
}

/** How a process adapter restarts (see ProcessAdapterOptions.restarts). */
export type RestartKind = 'cold' | 'warm' | 'crash';

const replyTimeout = (o: ProcessAdapterOptions): number => o.replyTimeoutMs ?? DEFAULT_REPLY_TIMEOUT_MS;
const startTimeout = (o: ProcessAdapterOptions): number => o.startTimeoutMs ?? 2 * replyTimeout(o);

/** A request to a peer, with the reply timeout cut to the budget. */
function ask(peer: Peer, line: string, timeoutMs: number, budget: Budget | undefined): Promise<string> {
  return peer.request(line, budget === undefined ? timeoutMs : budget.cap(timeoutMs), budget?.signal);
}

/** Encodes a command as one protocol line, or throws `unencodable_command`. Pure. */
export function encodeCommand(command: unknown, shellCommand: string): string {
  const type = command !== null && typeof command === 'object' ? (command as { type?: unknown }).type : undefined;
  if (isProtocolMessageType(type)) {
    throw new ProcessError(
      'unencodable_command',
      `a command may not use the protocol's own type ${JSON.stringify(type)}`,
      { command: shellCommand },
    );
  }
  try {
    // JSON.stringify(undefined) is undefined: a missing command travels as `null`, which every
    // implementation refuses with invalid_argument, as the model refuses `undefined`.
    return JSON.stringify(command) ?? 'null';
  } catch (error) {
    throw new ProcessError('unencodable_command', `cannot encode the command as JSON: ${messageOf(error)}`, {
      command: shellCommand,
      cause: error,
    });
  }
}

/**
 * What a hello reply told: the implementation's name, its storage when it is durable, whether
 * command replies carry its snapshot, whether it reads requests written ahead.
 */
interface Greeting {
  readonly implementation: string;
  readonly storage: string | undefined;
  readonly replySnapshots: boolean;
  readonly pipelining: boolean;
}

/**
 * Says hello on a peer (with `resume` for a crash restart); returns what the reply told or throws (after ending the peer). On a
 * `reused` peer, a reply that is neither a hello reply nor a refusal is a line the implementation
 * wrote after the last reply to its previous store, read in place of the hello reply: a
 * `protocol_error` of the implementation, not a failed handshake. `written`: the reply to a hello
 * already written (with the request after it, see restart()).
 */
async function hello(
  peer: Peer,
  config: Config,
  options: ProcessAdapterOptions,
  reused = false,
  resume?: string,
  written?: Promise<string>,
): Promise<Greeting> {
  let reply: string;
  try {
    reply = await (written ?? ask(peer, helloLine(config, resume), startTimeout(options), options.budget));
  } catch (error) {
    await peer.kill();
    const e = error as ProcessError;
    if (e.code === 'process_exited')
      throw new ProcessError(
        'spawn_failed',
        `${JSON.stringify(peer.command)} ended before it answered hello`,
        e.details,
      );
    throw helloTimeoutError(e, startTimeout(options));
  }
  const json = parseJsonLine(reply);
  const checked = json.ok ? checkShape(helloReplySchema, json.value) : json;
  if (checked.ok) {
    peer.pipelining = checked.value.pipelining === true;
    return {
      implementation: checked.value.implementation,
      storage: checked.value.durable?.storage,
      replySnapshots: checked.value.replySnapshots === true,
      pipelining: peer.pipelining,
    };
  }
  await peer.kill();
  const refusal = json.ok ? checkShape(protocolRejectionSchema, json.value) : undefined;
  if (reused && refusal?.ok !== true) {
    throw peer.error(
      'protocol_error',
      `a process reused for a new store answered hello with a line that is not a hello reply (${checked.problem}): a line nobody asked for, written after its last reply to the previous store`,
      reply,
    );
  }
  const problem =
    refusal?.ok === true
      ? `hello refused (${refusal.value.code}: ${refusal.value.message})`
      : `the reply to hello is ${checked.problem}`;
  throw peer.error('handshake_failed', problem, reply);
}

/** The `hello` request for a config (with `resume` for a crash restart). Pure. */
const helloLine = (config: Config, resume?: string): string =>
  JSON.stringify({ type: 'hello', protocol: PROTOCOL_VERSION, config, ...(resume === undefined ? {} : { resume }) });
const SNAPSHOT_LINE = '{"type":"snapshot"}';
/** The `restore` request of a snapshot given as JSON text. Pure. */
const restoreLine = (text: string): string => `{"type":"restore","snapshot":${text}}`;

/** A call made while requests written ahead for other calls still wait for theirs: a defect of the caller. */
const outOfPlan = (call: string): Error =>
  new Error(
    `internal: ${call} was asked while requests written ahead for other calls were unanswered (the caller's plan said otherwise)`,
  );

type RestoreOutcome =
  | { ok: true; type: 'restore'; durable?: { storage: string } | undefined }
  | { ok: false; code: string; message: string; path?: string | undefined };

/** A running implementation behind a process boundary. */
export class ProcessAdapter implements Adapter {
  readonly name: string;
  /** How many times the process has been replaced by restart(). */
  restarts = 0;
  private closed = false;
  /** The name the implementation gave in its hello reply. */
  readonly implementation: string;
  /** Where the store lives, when the implementation said it is durable (the last hello or restore reply). */
  private storage: string | undefined;
  /** Whether the process now serving the store said in its hello reply that command replies carry its snapshot. */
  private replySnapshots = false;
  /**
   * The snapshot the reply to the last request carried, when that request was a command of an
   * implementation with `replySnapshots`: snapshot() returns it once instead of asking. Any other
   * request, and any hello, drops it.
   */
  private carried: Snapshot | undefined;
  /** Whether the process now serving the store said in its hello reply that it reads requests written ahead. */
  private pipelining = false;
  /** Requests plan() wrote ahead whose replies no call has taken yet, in order. */
  private ahead: WrittenRequest[] = [];

  private constructor(
    private readonly pool: ProcessPool,
    private readonly config: Config,
    private readonly options: ProcessAdapterOptions,
    private peer: Peer,
    greeting: Greeting,
    private readonly ownsPool: boolean,
  ) {
    this.name = options.name ?? pool.command;
    this.implementation = greeting.implementation;
    this.greeted(greeting);
  }

  /** Takes what a hello reply of the process now serving the store told. */
  private greeted(greeting: Greeting): void {
    this.storage = greeting.storage;
    this.replySnapshots = greeting.replySnapshots;
    this.pipelining = greeting.pipelining;
    this.carried = undefined;
  }

  /** The process id (and process group) of the process now serving the store, for diagnostics. */
  get pid(): number | undefined {
    return this.peer.pid;
  }

  /** Starts `command`, says hello with the config, and returns the adapter. Throws ProcessError. */
  static async start(command: string, config: Config, options: ProcessAdapterOptions = {}): Promise<ProcessAdapter> {
    const pool = new ProcessPool(command, { ...options, reuse: false, spares: options.spares ?? 0 });
    try {
      return await ProcessAdapter.open(pool, config, options, true);
    } catch (error) {
      await pool.close();
      throw error;
    }
  }

  /** An adapter on a process of the pool. Throws ProcessError. */
  static async open(
    pool: ProcessPool,
    config: Config,
    options: ProcessAdapterOptions,
    ownsPool: boolean,
  ): Promise<ProcessAdapter> {
    const { peer, reused } = pool.any();
    const greeting = await hello(peer, config, options, reused);
    return new ProcessAdapter(pool, config, options, peer, greeting, ownsPool);
  }

  /**
   * Writes at once the requests the caller is about to make, in order, when the implementation
   * reads requests written ahead (`pipelining`); otherwise does nothing. The calls that follow
   * (execute(), snapshot(), resetTo()) take the replies in order, each checked as if it had been
   * asked then. A `snapshot` after a command travels in the command's reply when replies carry
   * snapshots. The caller may stop short of its plan only to give the store up: close() and a
   * reset to the empty store (a hello) read and drop the replies still ahead; any other call that
   * is not the next one planned (the store has already taken the requests written ahead) is a
   * defect of the caller, and throws. Plans nothing while replies of an earlier plan are still
   * ahead, and only the requests before the first command that cannot be encoded.
   */
  plan(requests: readonly PlannedRequest[]): void {
    if (!this.pipelining || this.closed || this.ahead.length > 0 || requests.length < 2) return;
    const lines: string[] = [];
    let afterCommand = false;
    for (const r of requests) {
      if ('execute' in r) {
        try {
          lines.push(encodeCommand(r.execute, this.pool.command));
        } catch {
          break;
        }
      } else if ('restore' in r) lines.push(restoreLine(JSON.stringify(r.restore)));
      else if (!(afterCommand && this.replySnapshots)) lines.push(SNAPSHOT_LINE);
      afterCommand = 'execute' in r;
    }
    const budget = this.options.budget;
    const timeoutMs = budget === undefined ? replyTimeout(this.options) : budget.cap(replyTimeout(this.options));
    this.ahead.push(
      ...this.peer.requestAll(
        lines,
        lines.map(() => timeoutMs),
        budget?.signal,
      ),
    );
  }

  /** Reads and drops the replies to requests written ahead that no call took. */
  private async dropAhead(): Promise<void> {
    const left = this.ahead.splice(0);
    for (const written of left) await written.reply.catch(() => undefined);
  }

  private async ask<T>(line: string, asked: string, check: (value: unknown) => LineResult<T>): Promise<T> {
    if (this.closed)
      throw new ProcessError('closed', 'the adapter is closed', { command: this.pool.command, sent: line });
    this.carried = undefined;
    const written = this.ahead.shift();
    if (written !== undefined && written.line !== line) {
      this.ahead.unshift(written);
      throw outOfPlan(asked);
    }
    const reply = await (written === undefined
      ? ask(this.peer, line, replyTimeout(this.options), this.options.budget)
      : written.reply);
    const json = parseJsonLine(reply);
    const checked = json.ok ? check(json.value) : json;
    if (!checked.ok) {
      const hint = json.ok ? misplacedReplyHint(asked, json.value) : '';
      const error = this.peer.error('protocol_error', `the reply is ${checked.problem}${hint}`, reply, written);
      this.ahead = [];
      await this.peer.kill();
      throw error;
    }
    return checked.value;
  }

  /**
   * Sends one command and returns the implementation's reply, checked for shape. From an
   * implementation with `replySnapshots`, the reply must carry the store's snapshot, which is taken
   * out of it and kept for the next snapshot().
   */
  execute(command: unknown): Promise<Reply> {
    const type = typeof command === 'object' && command !== null ? (command as { type?: unknown }).type : undefined;
    const line = encodeCommand(command, this.pool.command);
    const asked = typeof type === 'string' ? type : 'command';
    if (!this.replySnapshots) return this.ask(line, asked, checkReply);
    return this.ask(line, asked, (value) => {
      const split = splitCarriedSnapshot(value);
      if (!split.ok) return split;
      const reply = checkReply(split.value.reply);
      if (reply.ok) this.carried = split.value.snapshot;
      return reply;
    });
  }

  /** The canonical snapshot: the one the last command's reply carried, or asked for in a request of its own. */
  async snapshot(): Promise<Snapshot> {
    const carried = this.carried;
    if (carried !== undefined) {
      this.carried = undefined;
      return carried;
    }
    return snapshotOf(await this.ask(SNAPSHOT_LINE, 'snapshot', (v) => checkShape(snapshotReplySchema, v)));
  }

  /**
   * Snapshot, then hello and restore the snapshot (as JSON text) into another process: see
   * `restarts`. `taken`, when given, is a snapshot this implementation produced, to carry across
   * as it is instead of asking the store for it again: the store's snapshot as the caller last
   * read or restored it with no request sent since, or (only while restartCarriesTaken holds) one
   * it read earlier in the state the caller restarts from. A warm or cold restart sends the new
   * process that text and nothing else, so the old store plays no part in what is restored; the
   * lane-spread exploration (differentialLane.ts) passes the snapshot it has just compared, or the
   * state's own snapshot to restart into that state from a successor.
   */
  async restart(taken?: Snapshot): Promise<void> {
    if (this.ahead.length > 0) throw outOfPlan('restart');
    // Crash restarts alternate with warm ones, so that the campaign also carries snapshots across.
    if (this.nextRestartCrashes && this.storage !== undefined) return this.crash(this.storage);
    const started = performance.now();
    const text = JSON.stringify(taken ?? (await this.snapshot()));
    const old = this.peer;
    let next: { readonly peer: Peer; readonly reused: boolean };
    if (this.options.restarts === 'warm' || this.options.restarts === 'crash') {
      next = this.pool.other(old);
      await this.pool.release(old);
    } else {
      // Taken before the old one is ended: a process that must still start starts meanwhile.
      const fresh = this.pool.forColdRestart();
      const ending = await this.pool.end(old);
      if (ending !== 'exited') {
        await this.pool.release(fresh);
        // The protocol asks a process to exit when its stdin closes; one that must be killed would
        // otherwise cost every restart the grace periods (and hold whatever it holds meanwhile).
        throw old.error(
          'exit_timeout',
          `the process did not exit within ${old.grace} ms of its stdin closing; its process group got ${ending}`,
        );
      }
      next = { peer: fresh, reused: false };
    }
    this.peer = next.peer;
    // A process that has said `pipelining` gets the hello and the restore in one write; the
    // restore's reply is then taken as a planned one.
    let written: Promise<string> | undefined;
    if (next.reused && next.peer.pipelining) {
      const budget = this.options.budget;
      const cap = (ms: number): number => (budget === undefined ? ms : budget.cap(ms));
      const [helloRequest, restoreRequest] = next.peer.requestAll(
        [helloLine(this.config), restoreLine(text)],
        [cap(startTimeout(this.options)), cap(replyTimeout(this.options))],
        budget?.signal,
      );
      written = helloRequest?.reply;
      if (restoreRequest !== undefined) this.ahead.push(restoreRequest);
    }
    this.greeted(await hello(next.peer, this.config, this.options, next.reused, undefined, written));
    this.restarts += 1;
    await this.restore(text, 'the new process refused the snapshot of the old one');
    this.options.onRestart?.(
      this.options.restarts === 'cold' || this.options.restarts === undefined ? 'cold' : 'warm',
      performance.now() - started,
    );
  }

  /** Sends `restore` with a snapshot given as JSON text; throws `restore_rejected` (saying `refused`) for a refusal. */
  private async restore(text: string, refused: string): Promise<void> {
    const restored = await this.ask<RestoreOutcome>(restoreLine(text), 'restore', (v) => {
      const ok = checkShape(restoreReplySchema, v);
      if (ok.ok) return ok;
      const refusal = checkShape(protocolRejectionSchema, v);
      return refusal.ok ? refusal : ok;
    });
    if (!restored.ok) throw this.peer.error('restore_rejected', `${refused} (${restored.code}: ${restored.message})`);
    this.storage = restored.durable?.storage;
  }

  /**
   * Sends `restore` with `text` (the JSON text of a value that may be no valid snapshot) to the
   * process now serving the store, and returns its answer: `accepted`, or its refusal (code,
   * message, path). A reply that is neither is a `protocol_error`, as for any request.
   */
  async offerRestore(text: string): Promise<RestoreAnswer> {
    if (this.ahead.length > 0) throw outOfPlan('offerRestore');
    const answer = await this.ask<RestoreOutcome>(restoreLine(text), 'restore', (v) => {
      const ok = checkShape(restoreReplySchema, v);
      if (ok.ok) return ok;
      const refusal = checkShape(protocolRejectionSchema, v);
      return refusal.ok ? refusal : ok;
    });
    if (!answer.ok) {
      const { code, message, path } = answer;
      return { answer: 'refused', code, message, ...(path === undefined ? {} : { path }) };
    }
    this.storage = answer.durable?.storage;
    return { answer: 'accepted' };
  }

  /** Whether the next restart() is a crash restart of a durable implementation (they alternate with warm ones). */
  private get nextRestartCrashes(): boolean {
    return this.options.restarts === 'crash' && this.storage !== undefined && this.restarts % 2 === 0;
  }

  /**
   * Whether the next restart() restores the `taken` snapshot it is given: true unless it is a crash
   * restart of a durable implementation, which reopens the storage and carries nothing else.
   */
  get restartCarriesTaken(): boolean {
    return !this.nextRestartCrashes;
  }

  /**
   * Replaces the store on the process it is on: without a snapshot, by an empty one (`hello` with
   * the config, the protocol's reset); with one this implementation produced, by that snapshot
   * (`restore` of it as JSON text, which the protocol has an implementation accept at any time
   * after a hello and replace everything with). The lane-spread exploration
   * (conformance/explore/differentialLanes.ts) brings a store to a state this way instead of
   * replaying the state's path. Throws ProcessError (`restore_rejected` for a refused snapshot).
   */
  async resetTo(snapshot: Snapshot | undefined): Promise<void> {
    if (this.closed)
      throw new ProcessError('closed', 'the adapter is closed', { command: this.pool.command, sent: 'hello' });
    if (snapshot === undefined) {
      await this.dropAhead();
      this.greeted(await hello(this.peer, this.config, this.options, true));
    } else await this.restore(JSON.stringify(snapshot), 'the process refused a snapshot it produced itself');
  }

  /**
   * A crash restart of a durable implementation: SIGKILL to the process group while no request
   * is in flight, then a process that has never served a store reopens `storage` (hello with
   * `resume`). Nothing but the storage crosses; the next snapshot shows whether it kept everything.
   */
  private async crash(storage: string): Promise<void> {
    const started = performance.now();
    await this.pool.kill(this.peer);
    const next = this.pool.fresh();
    this.peer = next;
    this.greeted(await hello(next, this.config, this.options, false, storage));
    this.restarts += 1;
    this.options.onRestart?.('crash', performance.now() - started);
  }

  /** Gives the process back to the factory's pool (or ends it). Idempotent. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.carried = undefined;
    await this.dropAhead();
    await this.pool.release(this.peer);
    if (this.ownsPool) await this.pool.close();
  }
}

/** An AdapterFactory over a process pool; close() ends the pool's processes. */
export interface ProcessAdapterFactory extends AdapterFactory {
  /** Ends every process the factory started. Call it when the checking is over. */
  close(): Promise<void>;
  /** A factory on the same pool whose adapters restart warm (see ProcessAdapterOptions.restarts). */
  readonly warm: AdapterFactory;
  /** A factory on the same pool whose adapters crash-restart a durable implementation, and restart any other warm. */
  readonly crash: AdapterFactory;
  /** Processes started so far (restarts, plus stores that found no idle process). */
  readonly processesStarted: number;
  /** How the processes ended so far went (a correct implementation exits by itself when its stdin closes). */
  readonly endings: Readonly<Record<PeerEnding, number>>;
  /** Restarts done so far, cold and warm. */
  readonly restarts: Readonly<RestartCounts>;
}

/** Restarts of a factory's adapters, and the milliseconds they took from snapshot (or kill) to restored. */
export interface RestartCounts {
  readonly cold: number;
  readonly warm: number;
  readonly coldMs: number;
  readonly warmMs: number;
  /** Crash restarts (a durable implementation only); absent while there were none. */
  readonly crash?: number;
  readonly crashMs?: number;
}

/**
 * A factory that runs `command` for each fresh store, reusing processes as pool.ts describes. Its
 * own adapters restart cold; those of `factory.warm` restart warm (with `reuse: false`, cold too).
 */
export function processAdapterFactory(command: string, options: ProcessAdapterOptions = {}): ProcessAdapterFactory {
  const pool = new ProcessPool(command, options);
  const counts = { cold: 0, warm: 0, coldMs: 0, warmMs: 0 };
  const crashes = { crash: 0, crashMs: 0 };
  const onRestart = (kind: RestartKind, ms: number): void => {
    if (kind === 'crash') {
      crashes.crash += 1;
      crashes.crashMs += ms;
    } else {
      counts[kind] += 1;
      counts[kind === 'cold' ? 'coldMs' : 'warmMs'] += ms;
    }
    options.onRestart?.(kind, ms);
  };
  const make = (restarts: RestartKind): AdapterFactory => {
    const opts = { ...options, restarts, onRestart };
    return (config: Config): Promise<Adapter> => ProcessAdapter.open(pool, config, opts, false);
  };
  const factory = make(options.restarts ?? 'cold');
  const warm = options.reuse === false ? factory : make('warm');
  const crash = make('crash');
  return Object.defineProperties(factory, {
    close: { value: () => pool.close() },
    warm: { value: warm },
    crash: { value: crash },
    processesStarted: { get: () => pool.started },
    endings: { get: () => ({ ...pool.endings }) },
    restarts: { get: () => ({ ...counts, ...(crashes.crash === 0 ? {} : crashes) }) },
  }) as ProcessAdapterFactory;
}
