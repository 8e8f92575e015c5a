/**
 * In-process concurrent adapters, and the hook that lets fast-check's scheduler choose their
 * interleavings.
 *
 * An in-process store is concurrent only where it awaits. `AsyncJobStore` is a JobStore whose
 * commands run through `executeAsync(command, pause)`, where `pause()` marks an await point (an
 * I/O call, a lock wait, a clock read in a real system). The default is atomic: one await at
 * arrival, then the synchronous JobStore command. Broken variants (conformance/broken/concurrent/)
 * override it to await between a check and the write that relies on it.
 *
 * The hook: a `SchedulableFactory` is a ConcurrentFactory that can also be given the `pause` to
 * use. Under `fc.scheduler()` the campaign passes a pause that is a task of the scheduler, so the
 * scheduler decides which waiting request goes on next; since its choices come from the
 * property's seed, a failing interleaving replays from the seed and path, and shrinks with the
 * scenario. Without a scheduler, `pause` yields to the event loop (`setImmediate`).
 */
import type { Command, Config, Reply, Snapshot } from '../../contract/index.ts';
import { parseCommand } from '../../contract/index.ts';
import { JobStore } from '../../impl/index.ts';
import type { AdapterFactory } from '../adapter.ts';
import type { ConcurrentAdapter, ConcurrentFactory } from './adapter.ts';

/** An await point of an in-process store. */
export type Pause = () => Promise<void>;

/** Makes the await points of one request; the label names the request (lane and command type). */
export type PauseMaker = (label: string) => Promise<void>;

/** Yields to the event loop once: the await point of a run without a scheduler. */
export const yieldPause: PauseMaker = () => new Promise<void>((resolve) => setImmediate(resolve));

/** A promise-chain mutex: `run(f)` runs `f` once every earlier `run` has finished (FIFO). */
export class AsyncMutex {
  private tail: Promise<void> = Promise.resolve();

  /** Runs `f` alone; resolves or rejects with its outcome. */
  run<T>(f: () => Promise<T> | T): Promise<T> {
    const result = this.tail.then(() => f());
    this.tail = result.then(
      () => undefined,
      () => undefined,
    );
    return result;
  }
}

/**
 * A JobStore whose commands may await. `executeAsync` is atomic here (an await at arrival, then
 * the synchronous command); subclasses split commands at `pause()` points to model races.
 */
export class AsyncJobStore extends JobStore {
  /** A lock for subclasses that keep part of a command in a critical section. */
  protected readonly lock = new AsyncMutex();

  /** Executes one command, awaiting at `pause()` points. */
  async executeAsync(command: unknown, pause: Pause): Promise<Reply> {
    await pause();
    return this.execute(command);
  }

  /**
   * Steps 1 and 2 of a command (validation, clock check, clock advance): the parsed command, or
   * the rejection to reply with. For subclasses that write step 3 themselves.
   */
  protected enter(command: unknown): { readonly command: Command } | { readonly reply: Reply } {
    const parsed = parseCommand(command);
    if (!parsed.ok) return { reply: parsed.rejection };
    const c = parsed.command;
    if (c.now < this.now)
      return {
        reply: { ok: false, code: 'clock_regressed', message: `now: ${c.now} is before the clock (${this.now})` },
      };
    if (c.now > this.now) this.advance(c.now);
    return { command: c };
  }
}

/** A ConcurrentFactory that can also be handed the await points to use (see the file comment). */
export interface SchedulableFactory extends ConcurrentFactory {
  readonly withPause: (
    config: Config,
    options: { readonly workers: number; readonly pause: PauseMaker },
  ) => Promise<ConcurrentAdapter>;
}

/** Whether a factory accepts a scheduler's await points. */
export const isSchedulable = (f: ConcurrentFactory): f is SchedulableFactory =>
  typeof (f as Partial<SchedulableFactory>).withPause === 'function';

const schedulable = (withPause: SchedulableFactory['withPause']): SchedulableFactory =>
  Object.assign(
    (config: Config, options: { readonly workers: number }) => withPause(config, { ...options, pause: yieldPause }),
    { withPause },
  );

const label = (lane: number, command: unknown): string =>
  `lane ${lane} ${String((command as { type?: unknown } | null)?.type ?? 'command')}`;

class InProcessAdapter implements ConcurrentAdapter {
  readonly concurrent = true;
  constructor(
    readonly name: string,
    private readonly run: (lane: number, command: unknown, pause: Pause) => Promise<Reply>,
    private readonly snap: () => Snapshot,
    private readonly pause: PauseMaker,
  ) {}

  execute(lane: number, command: unknown): Promise<Reply> {
    const name = label(lane, command);
    return this.run(lane, command, () => this.pause(name));
  }

  snapshot(): Promise<Snapshot> {
    return Promise.resolve(this.snap());
  }

  /** Nothing to release. */
  close(): Promise<void> {
    return Promise.resolve();
  }
}

/**
 * impl/JobStore (or a subclass) behind an async mutex: every command awaits at arrival, takes the
 * lock, awaits once more inside it, then runs. The store is linearizable by construction (commands
 * never overlap inside the lock), whatever order the scheduler lets requests in.
 */
export function lockedJobStoreFactory(
  Store: typeof JobStore = JobStore,
  name = 'impl/JobStore+mutex',
): SchedulableFactory {
  return schedulable((config, { pause }) => {
    const store = Store.create(config);
    const mutex = new AsyncMutex();
    const run = async (_lane: number, command: unknown, p: Pause): Promise<Reply> => {
      await p();
      return mutex.run(async () => {
        await p();
        return store.execute(command);
      });
    };
    return Promise.resolve(new InProcessAdapter(name, run, () => store.snapshot(), pause));
  });
}

/** An AsyncJobStore class (the store itself decides what it locks). */
export type AsyncJobStoreClass = typeof AsyncJobStore;

/** An AsyncJobStore (or a subclass) run without any lock of the harness: its own `executeAsync` is what runs. */
export function asyncJobStoreFactory(
  Store: AsyncJobStoreClass = AsyncJobStore,
  name = 'impl/AsyncJobStore',
): SchedulableFactory {
  return schedulable((config, { pause }) => {
    const store = Store.create(config);
    return Promise.resolve(
      new InProcessAdapter(
        name,
        (_lane, command, p) => store.executeAsync(command, p),
        () => store.snapshot(),
        pause,
      ),
    );
  });
}

/**
 * A sequential adapter (conformance/adapter.ts) as a ConcurrentAdapter that says it is not
 * concurrent: the harness sends it one request at a time, so its history is sequential.
 */
export function sequentialFactory(factory: AdapterFactory): ConcurrentFactory {
  return async (config) => {
    const adapter = await factory(config);
    return {
      name: adapter.name,
      concurrent: false,
      execute: (_lane, command) => adapter.execute(command),
      snapshot: () => adapter.snapshot(),
      close: () => adapter.close(),
    };
  };
}
