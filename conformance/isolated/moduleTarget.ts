/**
 * A user's module (`--module`) run isolated, in a child process that serves it over the
 * JSON-lines protocol (runner.ts), driven by the harness as it drives an `--impl` program.
 *
 * A child process rather than a worker thread: in a worker a module's `process.exit` ends the
 * harness, its `process.kill`, `process.chdir` and signal handlers reach it, a spinning native addon
 * survives `worker.terminate()`, and its values still need copying and checking. A process has the
 * boundary the harness already guards for untrusted programs (peer.ts, pool.ts): a process group of
 * its own, always ended; every wait cut to `--timeout` and the check's budget; reply lines of at
 * most 1 MiB, strict UTF-8, JSON depth limits, values parsed by the harness, so that a cycle, a
 * Proxy, a throwing getter or a polluted `Object.prototype` stay in the child. The node start it
 * costs is paid once per process: `hello` resets a process for the next store, as for `--impl`.
 *
 * The sequential factory speaks jobcheck/1 with one request of the runner's own (restart, see
 * wire.ts); the concurrent factory is the protocol's jobcheck/2 adapter on a runner started with
 * `--workers`. A failure the child reports (a call that threw, a value that is not JSON) arrives
 * as a typed AdapterError; a child that ends otherwise (`process.exit` in the module) as a
 * ProcessError `process_exited`. Both are divergences of the run, never a crash of the harness.
 */
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CodedError } from '../../contract/CodedError.ts';
import type { Config, Reply, Snapshot } from '../../contract/index.ts';
import { clipText } from '../../contract/index.ts';
import {
  PROTOCOL_VERSION,
  helloReplySchema,
  protocolRejectionSchema,
  snapshotReplySchema,
} from '../../contract/protocol.ts';
import type { Adapter, AdapterFactory, RestoreAnswer } from '../adapter.ts';
import { AdapterError } from '../stores/guarded.ts';
import type { AdapterErrorCode } from '../stores/guarded.ts';
import type { Budget } from '../budget.ts';
import type { ConcurrentFactory } from '../concurrent/adapter.ts';
import { concurrentProcessFactory } from '../protocol/concurrentProcessAdapter.ts';
import type { ConcurrentProcessFactory } from '../protocol/concurrentProcessAdapter.ts';
import { DEFAULT_REPLY_TIMEOUT_MS } from '../protocol/limits.ts';
import type { Peer } from '../protocol/peer.ts';
import { ProcessPool } from '../protocol/pool.ts';
import { encodeCommand } from '../protocol/processAdapter.ts';
import { ProcessError, isProcessError } from '../protocol/processError.ts';
import { checkReply, checkShape, parseJsonLine, snapshotOf } from '../protocol/replies.ts';
import type { LineResult } from '../protocol/replies.ts';
import { tsxEntry } from './load.ts';
import { MODULE_FAILURE_MARK, PROBE_REQUEST, RESTART_REQUEST, offerLine } from './wire.ts';

/** Options of an isolated module. */
export interface IsolatedModuleOptions {
  /** Longest wait for one call, in ms (default 5000); loading the module and hello get twice as long. */
  readonly timeoutMs?: number;
  /** The check's time budget: every wait is cut to what is left of it (error code `time_limit`). */
  readonly budget?: Budget;
  /** Receives every line the module writes on stderr (its console.log included). */
  readonly onStderr?: (line: string) => void;
  /** Name for reports (default: the path). */
  readonly name?: string;
}

/** What the module exports, as the probe found it. */
export interface ModuleExports {
  /** It exports an AdapterFactory (a default export or createAdapter that is a function). */
  readonly factory: boolean;
  /** `typeof` its createConcurrentAdapter export. */
  readonly concurrent: string;
}

/** A module run isolated: its two factories, and close() that ends every process they started. */
export interface IsolatedModule {
  readonly exports: ModuleExports;
  readonly factory: AdapterFactory;
  /** The module's createConcurrentAdapter, isolated; undefined when it exports none. */
  readonly concurrentFactory: ConcurrentFactory | undefined;
  close(): Promise<void>;
}

/** Why a module cannot be run: it does not load, or it exports no factory. */
export class ModuleLoadError extends CodedError<'load_failed' | 'no_factory' | 'bad_export'> {
  override name = 'ModuleLoadError' as const;
}

/**
 * Added to the wait for a process's first reply (the probe, the hello of a new process): starting
 * node with tsx and loading the module is the harness's cost, not the module's, and takes seconds
 * on a loaded machine. A reused process's hello gets twice the call timeout alone.
 */
export const MODULE_START_ALLOWANCE_MS = 10_000;

const shellQuote = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;

/** The shell command that runs the runner on `file` with `args`: on node, with tsx when the harness runs from its sources. */
export function runnerCommand(file: string, args: readonly string[]): string {
  const here = fileURLToPath(import.meta.url);
  const runner = fileURLToPath(new URL(`./runner${extname(here)}`, import.meta.url));
  const loader = extname(here) === '.ts' ? ['--import', new URL(`file://${tsxEntry(here, 'esm')}`).href] : [];
  return [process.execPath, ...loader, runner, file, ...args].map(shellQuote).join(' ');
}

/** The module's failure as the child reported it on stderr, if it did. */
function reportedFailure(error: ProcessError): AdapterError | undefined {
  const line = [...(error.details.stderr ?? [])].reverse().find((l) => l.startsWith(MODULE_FAILURE_MARK));
  if (line === undefined) return undefined;
  try {
    const { code, message } = JSON.parse(line.slice(MODULE_FAILURE_MARK.length)) as {
      code: AdapterErrorCode;
      message: string;
    };
    return new AdapterError(code, String(message));
  } catch {
    return undefined;
  }
}

/** An error of the child, typed: the module's reported failure, a timeout in the words of a call, or the ProcessError itself. */
function typed(error: unknown, what: string, timeoutMs: number): unknown {
  if (!isProcessError(error)) return error;
  if (error.code === 'process_exited' || error.code === 'spawn_failed') return reportedFailure(error) ?? error;
  if (error.code === 'timeout') return new AdapterError('timeout', `${what} did not settle within ${timeoutMs} ms`);
  return error;
}

/**
 * The runner's answer to an offer (wire.ts, offerLine), checked, its text clipped as the runner
 * clips it (the module shares the runner's process and may write a line of its own). Pure.
 */
function offerAnswer(v: unknown): LineResult<RestoreAnswer> {
  const o = (v !== null && typeof v === 'object' ? v : {}) as Record<string, unknown>;
  const keys = Object.keys(o).sort().join(',');
  if (o['ok'] === true && o['type'] === 'restore' && keys === 'ok,type')
    return { ok: true, value: { answer: 'accepted' } };
  if (o['ok'] === false && typeof o['unsupported'] === 'string' && keys === 'ok,unsupported')
    return { ok: true, value: { answer: 'unsupported', why: clipText(o['unsupported'], 300) } };
  const { code, message, path } = o;
  if (
    o['ok'] === false &&
    typeof code === 'string' &&
    typeof message === 'string' &&
    (path === undefined || typeof path === 'string')
  )
    return {
      ok: true,
      value: {
        answer: 'refused',
        code: clipText(code, 100),
        message: clipText(message, 300),
        ...(path === undefined ? {} : { path: clipText(path, 200) }),
      },
    };
  return { ok: false, problem: "a line that is not the runner's answer to an offered restore" };
}

/** A sequential adapter on a runner process. */
class IsolatedAdapter implements Adapter {
  private closed = false;
  constructor(
    readonly name: string,
    private readonly pool: ProcessPool,
    private readonly peer: Peer,
    private readonly options: IsolatedModuleOptions,
  ) {}

  private get timeoutMs(): number {
    return this.options.timeoutMs ?? DEFAULT_REPLY_TIMEOUT_MS;
  }

  /** Says hello on a process of the pool; throws a typed error. */
  static async open(
    name: string,
    pool: ProcessPool,
    config: Config,
    options: IsolatedModuleOptions,
  ): Promise<IsolatedAdapter> {
    const { peer, reused } = pool.any();
    const adapter = new IsolatedAdapter(name, pool, peer, options);
    const line = JSON.stringify({ type: 'hello', protocol: PROTOCOL_VERSION, config });
    const allowance = reused ? 0 : MODULE_START_ALLOWANCE_MS;
    const check = (v: unknown): LineResult<unknown> => {
      const hello = checkShape(helloReplySchema, v);
      if (hello.ok) return hello;
      const refusal = checkShape(protocolRejectionSchema, v);
      return {
        ok: false,
        problem: refusal.ok ? `a refusal of hello (${refusal.value.code}: ${refusal.value.message})` : hello.problem,
      };
    };
    // Not cut below the allowance by the budget: a check whose time ran out while node started still
    // gets its store, to find that the time is up (INCOMPLETE) rather than fail to start (exit 2).
    const limit = 2 * adapter.timeoutMs + allowance;
    await adapter.ask(line, 'the factory', limit, check, MODULE_START_ALLOWANCE_MS).catch(async (error: unknown) => {
      await pool.end(peer);
      throw error;
    });
    return adapter;
  }

  /**
   * Sends one line and checks its reply. `floorMs`: the wait is cut by the budget, but not below
   * this (the hello of a new process, whose start is the harness's cost).
   */
  private async ask<T>(
    line: string,
    what: string,
    timeoutMs: number,
    check: (value: unknown) => LineResult<T>,
    floorMs = 0,
  ): Promise<T> {
    if (this.closed)
      throw new ProcessError('closed', 'the adapter is closed', { command: this.pool.command, sent: line });
    const budget = this.options.budget;
    let reply: string;
    try {
      const ms = budget === undefined ? timeoutMs : Math.min(timeoutMs, Math.max(budget.cap(timeoutMs), floorMs));
      reply = await this.peer.request(line, ms, floorMs > 0 ? undefined : budget?.signal);
    } catch (error) {
      throw typed(error, what, timeoutMs);
    }
    const json = parseJsonLine(reply);
    const checked = json.ok ? check(json.value) : json;
    if (!checked.ok) {
      const error = this.peer.error(
        'protocol_error',
        `the module's process answered ${what} with ${checked.problem}`,
        reply,
      );
      await this.peer.kill();
      throw error;
    }
    return checked.value;
  }

  execute(command: unknown): Promise<Reply> {
    return this.ask(encodeCommand(command, this.name), 'execute', this.timeoutMs, checkReply);
  }

  async snapshot(): Promise<Snapshot> {
    return snapshotOf(
      await this.ask('{"type":"snapshot"}', 'snapshot', this.timeoutMs, (v) => checkShape(snapshotReplySchema, v)),
    );
  }

  async restart(): Promise<void> {
    await this.ask(RESTART_REQUEST, 'restart', this.timeoutMs, (v) =>
      v !== null &&
      typeof v === 'object' &&
      (v as { ok?: unknown }).ok === true &&
      (v as { type?: unknown }).type === 'restart'
        ? { ok: true, value: undefined }
        : { ok: false, problem: 'a line that is not {"ok":true,"type":"restart"}' },
    );
  }

  /** Offers the module's adapter the value of `text` (its restoreFrom): accepted, refused with a code, or unsupported. */
  offerRestore(text: string): Promise<RestoreAnswer> {
    return this.ask(offerLine(text), 'restoreFrom', this.timeoutMs, offerAnswer);
  }

  /** Gives the process back to the pool, to be reset by the next store's hello. Idempotent. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.pool.release(this.peer);
  }
}

/**
 * Asks a process of the pool what the module exports, then gives the process back to the pool
 * (the first store's hello resets it). The wait is the start allowance plus twice the call
 * timeout, cut by the budget but never below the allowance: starting node is the harness's cost.
 * Throws ModuleLoadError when the module does not load, a ProcessError when the runner fails.
 */
async function probe(pool: ProcessPool, options: IsolatedModuleOptions): Promise<ModuleExports> {
  const { peer } = pool.any();
  const limit = 2 * (options.timeoutMs ?? DEFAULT_REPLY_TIMEOUT_MS) + MODULE_START_ALLOWANCE_MS;
  const ms =
    options.budget === undefined
      ? limit
      : Math.min(limit, Math.max(options.budget.cap(limit), MODULE_START_ALLOWANCE_MS));
  let text: string;
  try {
    text = await peer.request(PROBE_REQUEST, ms);
  } catch (error) {
    await pool.end(peer);
    const failure = isProcessError(error) ? reportedFailure(error) : undefined;
    if (failure !== undefined) throw new ModuleLoadError('load_failed', failure.message.replace(/^\w+: /, ''));
    if (isProcessError(error) && error.code === 'timeout')
      throw new ModuleLoadError('load_failed', `loading took more than ${ms} ms`);
    if (isProcessError(error) && error.code === 'process_exited') {
      throw new ModuleLoadError('load_failed', `its process ended while it loaded (${error.message})`);
    }
    throw error;
  }
  const json = parseJsonLine(text);
  const value = (json.ok ? json.value : {}) as {
    ok?: unknown;
    message?: unknown;
    factory?: unknown;
    concurrent?: unknown;
  };
  if (value.ok !== true || typeof value.factory !== 'boolean' || typeof value.concurrent !== 'string') {
    await pool.end(peer);
    const why = value.ok === false ? String(value.message) : "its process gave an answer that is not the runner's";
    throw new ModuleLoadError('load_failed', why);
  }
  await pool.release(peer);
  return { factory: value.factory, concurrent: value.concurrent };
}

/**
 * Loads `file` in a child process and returns its factories, each running the module in processes
 * of its own. Throws ModuleLoadError when the module does not load or exports no AdapterFactory,
 * or exports a createConcurrentAdapter that is not a function.
 */
export async function isolatedModule(file: string, options: IsolatedModuleOptions = {}): Promise<IsolatedModule> {
  const peerOptions = options.onStderr === undefined ? {} : { onStderr: options.onStderr };
  // One spare started ahead: a store after a killed process need not wait for a node start.
  const pool = new ProcessPool(runnerCommand(file, []), { ...peerOptions, spares: 1 });
  const exports = await probe(pool, options).catch(async (error: unknown) => {
    await pool.close();
    throw error;
  });
  if (!exports.factory) await pool.close();
  if (!exports.factory)
    throw new ModuleLoadError('no_factory', 'exports no AdapterFactory (expected a default export or createAdapter)');
  if (exports.concurrent !== 'undefined' && exports.concurrent !== 'function') {
    await pool.close();
    throw new ModuleLoadError(
      'bad_export',
      `exports createConcurrentAdapter, but it is not a function (got ${exports.concurrent})`,
    );
  }
  const name = options.name ?? file;
  const factory: AdapterFactory = (config) => IsolatedAdapter.open(name, pool, config, options);
  const timeoutMs = options.timeoutMs ?? DEFAULT_REPLY_TIMEOUT_MS;
  /** One jobcheck/2 factory per number of workers (the runner is told it on its command line). */
  const concurrent = new Map<number, ConcurrentProcessFactory>();
  const concurrentFactory: ConcurrentFactory | undefined =
    exports.concurrent !== 'function'
      ? undefined
      : async (config, o) => {
          let made = concurrent.get(o.workers);
          if (made === undefined) {
            made = concurrentProcessFactory(runnerCommand(file, ['--workers', String(o.workers)]), {
              ...peerOptions,
              name,
              replyTimeoutMs: timeoutMs,
              startTimeoutMs: 2 * timeoutMs + MODULE_START_ALLOWANCE_MS,
              ...(options.budget === undefined ? {} : { budget: options.budget }),
            });
            concurrent.set(o.workers, made);
          }
          try {
            return await made(config, o);
          } catch (error) {
            throw typed(error, 'createConcurrentAdapter', timeoutMs);
          }
        };
  return {
    exports,
    factory,
    concurrentFactory,
    close: async () => {
      await Promise.all([pool.close(), ...[...concurrent.values()].map((f) => f.close())]);
    },
  };
}
