/**
 * A guard around an in-process adapter nobody trusts yet: every call has a time
 * limit, every value it hands back must be a plain JSON value of bounded depth, and the check's
 * budget cuts any wait short. A module whose promise never settles, that throws something odd, or
 * that returns a cycle, a BigInt or a value nested 100,000 deep then fails with a typed
 * AdapterError (a divergence of the run), instead of hanging the harness or crashing it.
 *
 * A process adapter needs no such guard: its values come from JSON.parse behind the protocol's
 * own limits (protocol/limits.ts). Nor does `--module` any more: it runs isolated in processes
 * (conformance/isolated/), since a guard in process cannot stop a call that spins synchronously,
 * a `process.exit` or a polluted prototype. The guard stays for library users who check an
 * in-process adapter they half trust, and AdapterError types the failures of both.
 */
import { CodedError } from '../../contract/CodedError.ts';
import type { Config, Reply, Snapshot } from '../../contract/index.ts';
import type { Adapter, AdapterFactory, RestoreAnswer } from '../adapter.ts';
import { TimeLimitReached } from '../budget.ts';
import type { Budget } from '../budget.ts';
import { jsonValueProblem } from '../outside/jsonValue.ts';
import { MAX_REPLY_DEPTH } from '../protocol/limits.ts';

/**
 * Stable codes of a guarded or isolated adapter's failures: a call that did not settle in time, a
 * value that is not plain JSON within the limits, a call that threw (isolated: reported by the
 * module's process), a module that would not load.
 */
export type AdapterErrorCode = 'timeout' | 'invalid_value' | 'threw' | 'load_failed';

/** A misbehaviour of an in-process adapter caught by the guard, or of an isolated module (conformance/isolated/). */
export class AdapterError extends CodedError<AdapterErrorCode> {
  override name = 'AdapterError' as const;
  constructor(code: AdapterErrorCode, message: string) {
    super(code, `${code}: ${message}`);
  }
}

/** Options of the guard. */
export interface GuardOptions {
  /** Longest wait for one call (execute, snapshot, restart, close), and for the factory, in ms. */
  readonly callTimeoutMs: number;
  /** The check's time budget. */
  readonly budget?: Budget;
}

function checked<T>(value: T, what: string): T {
  const problem = jsonValueProblem(value, MAX_REPLY_DEPTH);
  if (problem !== undefined) throw new AdapterError('invalid_value', `${what}: ${problem}`);
  return value;
}

/** Runs `call` with the guard's time limit and budget; a synchronous throw becomes a rejection. */
function guarded<T>(what: string, call: () => Promise<T> | T, options: GuardOptions): Promise<T> {
  const budget = options.budget;
  if (budget?.expired === true) return Promise.reject(new TimeLimitReached());
  return new Promise<T>((resolve, reject) => {
    const ms = budget === undefined ? options.callTimeoutMs : budget.cap(options.callTimeoutMs);
    const timer = setTimeout(() => {
      cleanup();
      reject(
        budget?.expired === true
          ? new TimeLimitReached()
          : new AdapterError('timeout', `${what} did not settle within ${options.callTimeoutMs} ms`),
      );
    }, ms);
    const onAbort = (): void => {
      cleanup();
      reject(new TimeLimitReached());
    };
    budget?.signal.addEventListener('abort', onAbort, { once: true });
    function cleanup(): void {
      clearTimeout(timer);
      budget?.signal.removeEventListener('abort', onAbort);
    }
    Promise.resolve()
      .then(call)
      .then(
        (value) => {
          cleanup();
          resolve(value);
        },
        (error: unknown) => {
          cleanup();
          reject(error);
        },
      );
  });
}

/** The adapter wrapped by the guard. */
class GuardedAdapter implements Adapter {
  /** The inner adapter's offerRestore, guarded; absent when it has none (the restore phase then says so). */
  readonly offerRestore?: (text: string) => Promise<RestoreAnswer>;

  constructor(
    private readonly inner: Adapter,
    private readonly options: GuardOptions,
  ) {
    const offer = inner.offerRestore;
    if (typeof offer === 'function')
      this.offerRestore = (text) => guarded('offerRestore', () => offer.call(inner, text), options);
  }

  get name(): string {
    return this.inner.name;
  }

  async execute(command: unknown): Promise<Reply> {
    return checked(await guarded('execute', () => this.inner.execute(command), this.options), 'the reply');
  }

  async snapshot(): Promise<Snapshot> {
    return checked(await guarded('snapshot', () => this.inner.snapshot(), this.options), 'the snapshot');
  }

  restart(): Promise<void> {
    return guarded('restart', () => this.inner.restart(), this.options);
  }

  close(): Promise<void> {
    // A close that hangs or fails must not hold up the check; it is given the same time limit.
    return guarded('close', () => this.inner.close(), { callTimeoutMs: this.options.callTimeoutMs }).catch(
      () => undefined,
    );
  }
}

/** A factory whose adapters are guarded; the factory itself gets the same time limit. */
export function guardedFactory(factory: AdapterFactory, options: GuardOptions): AdapterFactory {
  return async (config: Config) => {
    const adapter = await guarded('the factory', () => factory(config), options);
    if (
      adapter === null ||
      typeof adapter !== 'object' ||
      typeof (adapter as Partial<Adapter>).execute !== 'function'
    ) {
      throw new AdapterError(
        'invalid_value',
        'the factory did not return an adapter (an object with execute, snapshot, restart and close)',
      );
    }
    return new GuardedAdapter(adapter, options);
  };
}
