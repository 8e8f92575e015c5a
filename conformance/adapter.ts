/**
 * The one interface every implementation under test is driven through. It is async so that an
 * implementation behind a process boundary or a database plugs in unchanged; in-process adapters
 * simply return resolved promises.
 */
import type { Config, Reply, Snapshot } from '../contract/index.ts';

/** A running implementation under test. */
export interface Adapter {
  /** A short name for reports (e.g. `impl/JobStore`, `python3 examples/python/jobstore.py`). */
  readonly name: string;
  /** Executes one command (possibly malformed: validation is part of the contract) and returns its reply. */
  execute(command: unknown): Promise<Reply>;
  /** The canonical snapshot of the current state, as a fresh JSON value. */
  snapshot(): Promise<Snapshot>;
  /**
   * A real restart: snapshot -> JSON.stringify -> JSON.parse -> restore into a fresh instance,
   * which then replaces the current one.
   */
  restart(): Promise<void>;
  /**
   * Optional: replaces the state with `snapshot` (a canonical snapshot, possibly one no command
   * sequence from an empty store reaches in reasonable time, such as counters near TIME_MAX), as a
   * restore into a fresh instance does. Profiles use it to reach the counters' edge; an adapter
   * without it leaves that rule not reached.
   */
  restoreFrom?(snapshot: Snapshot): Promise<void>;
  /**
   * Optional: told the requests the caller is about to make, in order, so that an adapter over a
   * pipe may write them all at once (docs/protocol.md, "Requests written ahead"). The calls still
   * come one by one and may stop short of the plan; every reply is checked when its call comes.
   */
  plan?(requests: readonly PlannedRequest[]): void;
  /** Releases resources (ends a process, closes a database). Idempotent. */
  close(): Promise<void>;
}

/** A request an adapter's caller is about to make (Adapter.plan): execute(), snapshot() or a reset to a snapshot. */
export type PlannedRequest =
  | { readonly execute: unknown }
  | { readonly snapshot: true }
  | { readonly restore: Snapshot };

/** Creates a fresh, empty implementation for a config. */
export type AdapterFactory = (config: Config) => Promise<Adapter>;
