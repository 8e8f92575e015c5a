/**
 * The child end of an isolated module (`--module`): a process of its own that loads the user's
 * module and serves it over the JSON-lines protocol the harness speaks to `--impl` programs
 * (impl/protocol/server.ts answers hello, snapshot and restore), so that the module gets every
 * guard an untrusted program gets (see moduleTarget.ts for why a process).
 *
 * Started as `runner <module>` or `runner <module> --workers <n>`:
 * - PROBE_REQUEST (wire.ts) is answered with what the module exports, or why it did not load;
 * - without `--workers`, jobcheck/1 on the module's AdapterFactory, with two requests of its own
 *   (wire.ts) of a type the harness never sends as a command: RESTART_REQUEST calls restart(),
 *   answered `{"ok":true,"type":"restart"}`; an offer hands a value to restoreFrom, whose throw
 *   with a string `code` is a refusal;
 * - with `--workers`, jobcheck/2 on the module's createConcurrentAdapter: requests run on their
 *   lanes at once (one at a time for an adapter that is not concurrent), snapshot waits until
 *   nothing is in flight.
 * A failure of the module (a call that throws or rejects, a value that is not plain JSON within
 * the depth limit, an uncaught exception) is one stderr line starting with MODULE_FAILURE_MARK and
 * exit MODULE_FAILURE_EXIT, read back by the harness as a typed error. The module's own stdout
 * writes (console.log) go to stderr, so that they cannot be taken for replies.
 */
import { createInterface } from 'node:readline';
import { resolve } from 'node:path';
import type { Config, Reply, Snapshot } from '../../contract/index.ts';
import { JobcheckError, clipText } from '../../contract/index.ts';
import { PROTOCOL_VERSION_2 } from '../../contract/protocol.ts';
import { answerLine } from '../../impl/protocol/server.ts';
import type { ServedStore, Session, StoreMaker } from '../../impl/protocol/server.ts';
import type { Adapter } from '../adapter.ts';
import type { ConcurrentAdapter } from '../concurrent/adapter.ts';
import { jsonValueProblem } from '../outside/jsonValue.ts';
import { MAX_REPLY_DEPTH } from '../protocol/limits.ts';
import { importModule } from './load.ts';
import { MODULE_FAILURE_EXIT, MODULE_FAILURE_MARK, PROBE_REQUEST, RESTART_REQUEST } from './wire.ts';
import type { ModuleFailureCode } from './wire.ts';

// The protocol's own channel, kept before the module can touch process.stdout.
const stdout = process.stdout;
const writeOut = stdout.write.bind(stdout);
const writeLine = (value: unknown): void => {
  writeOut(`${JSON.stringify(value)}\n`);
};
process.stdout.write = process.stderr.write.bind(process.stderr) as typeof process.stdout.write;

const describe = (error: unknown): string => {
  try {
    return clipText(
      (error instanceof Error ? `${error.name}: ${error.message}` : String(error)).split('\n')[0] ?? '',
      300,
    );
  } catch {
    return 'a value that cannot be shown';
  }
};

/** Ends the process with a typed failure line on stderr. */
function fail(code: ModuleFailureCode, message: string): never {
  process.stderr.write(`${MODULE_FAILURE_MARK}${JSON.stringify({ code, message: clipText(message, 500) })}\n`);
  process.exit(MODULE_FAILURE_EXIT);
}
process.on('uncaughtException', (error) => fail('threw', `an exception nobody caught: ${describe(error)}`));
process.on('unhandledRejection', (error) => fail('threw', `a rejection nobody handled: ${describe(error)}`));

/** `value` if it is plain JSON within the depth limit; otherwise the process fails. */
function checked<T>(value: T, what: string): T {
  let problem: string | undefined;
  try {
    problem = jsonValueProblem(value, MAX_REPLY_DEPTH);
    if (problem === undefined) JSON.stringify(value);
  } catch (error) {
    problem = `it cannot be read (${describe(error)})`;
  }
  if (problem !== undefined) fail('invalid_value', `${what}: ${problem}`);
  return value;
}

/** Runs one call of the module; a throw or rejection ends the process. */
async function call<T>(what: string, run: () => T | Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof JobcheckError) throw error;
    return fail('threw', `${what} threw ${describe(error)}`);
  }
}

const [file, flag, workersText] = process.argv.slice(2);
if (file === undefined) fail('load_failed', 'usage: runner <module> [--workers <n>]');

let mod: Record<string, unknown> | undefined;
let loadProblem: string | undefined;
try {
  mod = await importModule(resolve(file));
} catch (error) {
  loadProblem = describe(error).replace(/^Error: /, '');
}

/** The module's exports, read once (a getter that throws is a failure of the module). */
function exportOf(name: string): unknown {
  try {
    return mod?.[name];
  } catch (error) {
    return fail('threw', `reading its export ${name} threw ${describe(error)}`);
  }
}

const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });

/** The value of an offered restore (`{"type":"restore","offer":<value>}`, wire.ts), or undefined for any other request. Pure. */
function offerOf(message: unknown): { value: unknown } | undefined {
  if (message === null || typeof message !== 'object') return undefined;
  const keys = Object.keys(message);
  return keys.length === 2 && keys.includes('offer') ? { value: (message as { offer: unknown }).offer } : undefined;
}

/** The answer to PROBE_REQUEST: what the module exports, or why it did not load. */
function probeAnswer(): unknown {
  if (mod === undefined) return { ok: false, code: 'load_failed', message: loadProblem ?? 'it did not load' };
  const main = exportOf('default');
  const factory = typeof main === 'function' ? main : exportOf('createAdapter');
  return { ok: true, factory: typeof factory === 'function', concurrent: typeof exportOf('createConcurrentAdapter') };
}

/** A sequential adapter as a served store, with its restart and the answer to an offered restore. */
function sequentialStore(
  adapter: Adapter,
): ServedStore & { restart(): Promise<void>; offer(value: unknown): Promise<unknown> } {
  return {
    execute: async (command) => checked(await call('execute', () => adapter.execute(command)), 'the reply'),
    snapshot: async (): Promise<Snapshot> => checked(await call('snapshot', () => adapter.snapshot()), 'the snapshot'),
    restart: () => call('restart', () => adapter.restart()),
    offer: (value) => offered(adapter, value),
    close: () => call('close', () => adapter.close()),
  };
}

/**
 * The answer to an offered restore (wire.ts, offerLine): the adapter's restoreFrom given the value;
 * an error with a string `code` is its refusal, any other throw a failure of the module.
 */
async function offered(adapter: Adapter, value: unknown): Promise<unknown> {
  const restoreFrom = await call('reading restoreFrom', () => adapter.restoreFrom);
  if (typeof restoreFrom !== 'function')
    return {
      ok: false,
      unsupported:
        "the module's adapter has no restoreFrom(snapshot), so no snapshot can be offered to it (give it one, or leave the phase out with --no-restore)",
    };
  try {
    await restoreFrom.call(adapter, value as Snapshot);
    return { ok: true, type: 'restore' };
  } catch (error) {
    const e = (error !== null && typeof error === 'object' ? error : {}) as {
      code?: unknown;
      path?: unknown;
      message?: unknown;
    };
    if (typeof e.code !== 'string') return fail('threw', `restoreFrom threw ${describe(error)}`);
    const path = typeof e.path === 'string' ? { path: clipText(e.path, 200) } : {};
    const message = typeof e.message === 'string' ? clipText(e.message, 300) : describe(error);
    return { ok: false, code: clipText(e.code, 100), message, ...path };
  }
}

/** A concurrent adapter as a served store; a jobcheck/1 command goes on lane 0. */
/** A served store whose execute also takes a lane (a jobcheck/2 request's). */
type LaneStore = ServedStore & { execute(command: unknown, lane?: number): Promise<Reply> };

function concurrentStore(adapter: ConcurrentAdapter, concurrent: boolean): LaneStore {
  return {
    execute: async (command: unknown, lane: number = 0) =>
      checked(await call('execute', () => adapter.execute(lane, command)), 'the reply'),
    snapshot: async (): Promise<Snapshot> => checked(await call('snapshot', () => adapter.snapshot()), 'the snapshot'),
    close: () => call('close', () => adapter.close()),
    concurrent,
  };
}

/** Refuses a restore: a module is restarted by its own restart(), never given a snapshot. */
const noRestore = (): never => {
  throw new JobcheckError(
    'invalid_snapshot',
    'snapshot',
    'restore: a module is not restored from a snapshot by the harness',
  );
};

/** `made` if it is an adapter (an object with execute); otherwise the process fails. */
async function adapterOf<T>(made: unknown, what: string): Promise<T> {
  const isAdapter = (): boolean =>
    made !== null && typeof made === 'object' && typeof (made as { execute?: unknown }).execute === 'function';
  if (await call("the factory's value", isAdapter)) return made as T;
  return fail(
    'invalid_value',
    `${what} did not return an adapter (an object with execute, snapshot, restart and close)`,
  );
}

const session: Session = {};
const workers = flag === '--workers' ? Number(workersText) : undefined;
if (workers !== undefined && !(Number.isSafeInteger(workers) && workers >= 1)) {
  fail('load_failed', `--workers must be an integer >= 1 (got ${String(workersText)})`);
}

/** How stores are made; built at the first hello, so that a probe is answered whatever the module is. */
function makerOf(): StoreMaker {
  if (mod === undefined) fail('load_failed', loadProblem ?? 'it did not load');
  if (workers === undefined) {
    const main = exportOf('default');
    const factory = typeof main === 'function' ? main : exportOf('createAdapter');
    if (typeof factory !== 'function')
      fail('load_failed', 'it exports no AdapterFactory (expected a default export or createAdapter)');
    return {
      name: 'module',
      create: async (config: Config) => {
        const made = await call('the factory', () => factory(config) as unknown);
        return sequentialStore(await adapterOf<Adapter>(made, 'the factory'));
      },
      restore: noRestore,
    };
  } else {
    const factory = exportOf('createConcurrentAdapter');
    if (typeof factory !== 'function')
      fail('load_failed', `it exports no createConcurrentAdapter function (got ${typeof factory})`);
    return {
      name: 'module',
      create: async (config: Config) => {
        const made = await call('createConcurrentAdapter', () => factory(config, { workers }) as unknown);
        const adapter = await adapterOf<ConcurrentAdapter>(made, 'createConcurrentAdapter');
        return concurrentStore(adapter, await call("the adapter's concurrent flag", () => adapter.concurrent === true));
      },
      restore: noRestore,
    };
  }
}
let maker: StoreMaker | undefined;

/** Requests of a jobcheck/2 session in flight, and the last of each lane (or of all, when the store is not concurrent). */
const inFlight = new Set<Promise<void>>();
const lanes = new Map<number, Promise<void>>();
const settle = async (): Promise<void> => {
  while (inFlight.size > 0) await Promise.all(inFlight);
  lanes.clear();
};

for await (const line of lines) {
  if (line.trim() === '') continue;
  let message: unknown;
  try {
    message = JSON.parse(line);
  } catch {
    message = undefined;
  }
  const type = message !== null && typeof message === 'object' ? (message as { type?: unknown }).type : undefined;
  const store = session.store as
    | (LaneStore & { restart?: () => Promise<void>; offer?: (value: unknown) => Promise<unknown> })
    | undefined;
  if (line.trim() === PROBE_REQUEST) {
    writeLine(probeAnswer());
    continue;
  }
  if (line.trim() === RESTART_REQUEST && store?.restart !== undefined) {
    await store.restart();
    writeLine({ ok: true, type: 'restart' });
    continue;
  }
  const offer = type === 'restore' ? offerOf(message) : undefined;
  if (offer !== undefined && store?.offer !== undefined) {
    writeLine(await store.offer(offer.value));
    continue;
  }
  // A line that is not an object (`null`, a number: a malformed command) has no envelope to read.
  const envelope = (message !== null && typeof message === 'object' ? message : {}) as {
    id?: unknown;
    lane?: unknown;
    command?: unknown;
  };
  const wellFormed = Number.isSafeInteger(envelope.id) && Number.isSafeInteger(envelope.lane);
  if (type === 'request' && session.protocol === PROTOCOL_VERSION_2 && store !== undefined && wellFormed) {
    const id = envelope.id as number;
    const key = store.concurrent === true ? (envelope.lane as number) : -1;
    const before = lanes.get(key) ?? Promise.resolve();
    const lane = envelope.lane as number;
    const run = before.then(async () =>
      writeLine({ type: 'reply', id, reply: await store.execute(envelope.command, lane) }),
    );
    const tracked = run.finally(() => {
      inFlight.delete(tracked);
      if (lanes.get(key) === tracked) lanes.delete(key);
    });
    inFlight.add(tracked);
    lanes.set(key, tracked);
    continue;
  }
  await settle();
  let reply: unknown;
  try {
    maker ??= makerOf();
    reply = await answerLine(session, line, maker);
  } catch (error) {
    fail('threw', describe(error));
  }
  // The server says a jobcheck/2 store is concurrent; a module's adapter says for itself.
  if (type === 'hello' && (reply as { concurrent?: unknown }).concurrent === true) {
    reply = { ...(reply as object), concurrent: session.store?.concurrent === true };
  }
  writeLine(reply);
}
await settle();
await session.store?.close?.();
process.exit(0);
