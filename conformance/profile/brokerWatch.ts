/**
 * A profile's watch on its broker. Every store a profile opens, and every call on it, goes through
 * the watch (wrapCalls.ts), which (1) notes the first BrokerLostError any of them throws: from then
 * on the broker is lost, every call still waiting is ended with that error and every new one
 * fails at once, so nothing asks a lost broker again and nothing waits on it; (2) ends every wait
 * when the time limit does (TimeLimitReached, a timer that keeps the process alive until then), so
 * that a client that never settles cannot outlive `--time-limit`. A run whose own calls met the
 * loss is `lost`: what it showed is the loss's doing, never a departure. Closing a store once the
 * broker is lost waits at most CLOSE_AFTER_LOSS_MS: a client may wait forever on a dead server.
 */
import type { AdapterFactory } from '../adapter.ts';
import { TimeLimitReached } from '../budget.ts';
import type { Budget } from '../budget.ts';
import type { ConcurrentFactory } from '../concurrent/adapter.ts';
import { brokerLostIn } from './BrokerLostError.ts';
import type { BrokerLostError } from './BrokerLostError.ts';
import { isThenable, wrapCalls } from './wrapCalls.ts';

/** The calls that ask the broker something: never made once it is lost. */
const REQUESTS: ReadonlySet<string> = new Set([
  'create',
  'execute',
  'snapshot',
  'restart',
  'restoreFrom',
  'offerRestore',
]);

/** Longest wait for a store to close once its broker is lost. */
export const CLOSE_AFTER_LOSS_MS = 2_000;

/** One run's view of the watch: its factories, and whether its own calls met the loss. */
export interface WatchedRun {
  readonly factory: (factory: AdapterFactory) => AdapterFactory;
  readonly concurrentFactory: (factory: ConcurrentFactory) => ConcurrentFactory;
  /** True once a call of this run failed because the broker is lost. */
  readonly lost: boolean;
}

/** The watch on one profile's broker (shared by its sequential and concurrent parts). */
export class BrokerWatch {
  private error: BrokerLostError | undefined;
  private readonly waiting = new Set<(error: unknown) => void>();

  constructor(private readonly budget?: Budget) {}

  /** The loss, once a call met it. */
  get lost(): BrokerLostError | undefined {
    return this.error;
  }

  /** Why what the loss touched is unknown, in a sentence. */
  get reason(): string | undefined {
    return this.error === undefined
      ? undefined
      : `${this.error.message}; nothing is known of what it was asked from then on.`;
  }

  /** A run's factories, which note whether its own calls met the loss. */
  run(): WatchedRun {
    const state = { lost: false };
    const wrap = async <T extends object>(create: () => Promise<T>): Promise<T> => {
      const adapter = (await this.call('create', create, state)) as T;
      return wrapCalls(adapter, (method, invoke) => this.call(method, invoke, state));
    };
    return {
      factory: (f) => (config) => wrap(() => f(config)),
      concurrentFactory: (f) => (config, o) => wrap(() => f(config, o)),
      get lost() {
        return state.lost;
      },
    };
  }

  /**
   * One call: once the broker is lost, a request fails at once without being made and a close
   * waits at most CLOSE_AFTER_LOSS_MS; otherwise it is made, and ended by a loss elsewhere or the
   * time limit. A method that returns no promise (`plan`) is made as it is.
   */
  private call(method: string, invoke: () => unknown, state: { lost: boolean }): unknown {
    if (this.error !== undefined && REQUESTS.has(method)) {
      state.lost = true;
      return Promise.reject(this.error);
    }
    const result = invoke();
    if (!isThenable(result)) return result;
    if (this.error !== undefined) return this.bounded(result, CLOSE_AFTER_LOSS_MS).catch(() => undefined);
    return this.bounded(result, undefined).catch((error: unknown) => {
      const lost = brokerLostIn(error);
      if (lost !== undefined) {
        state.lost = true;
        this.lose(lost);
      }
      throw error;
    });
  }

  /** Notes the loss and ends every call still waiting with it. */
  private lose(error: BrokerLostError): void {
    if (this.error !== undefined) return;
    this.error = error;
    for (const end of [...this.waiting]) end(error);
  }

  /** `p`, ended by a loss, by the time limit, or after `ms` (then settled as undefined). */
  private bounded(p: Promise<unknown>, ms: number | undefined): Promise<unknown> {
    const budget = this.budget;
    return new Promise((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      const done = (): void => {
        clearTimeout(timer);
        this.waiting.delete(end);
        budget?.signal.removeEventListener('abort', onLimit);
      };
      const end = (error: unknown): void => {
        done();
        reject(error);
      };
      const onLimit = (): void => end(new TimeLimitReached());
      this.waiting.add(end);
      if (budget?.expired === true) return onLimit();
      budget?.signal.addEventListener('abort', onLimit, { once: true });
      // A timer of its own, not unref'd: a call nothing else keeps alive still ends at the time limit.
      const limit = Math.min(ms ?? Number.POSITIVE_INFINITY, budget?.remainingMs() ?? Number.POSITIVE_INFINITY);
      if (Number.isFinite(limit))
        timer = setTimeout(() => {
          if (ms === undefined || ms > limit) return onLimit();
          done();
          resolve(undefined);
        }, limit + 50);
      p.then(
        (v) => {
          done();
          resolve(v);
        },
        (e: unknown) => {
          done();
          reject(e);
        },
      );
    });
  }
}
