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
   * Optional: offers the store `text`, the JSON text of a value that may be no snapshot a store
   * could have written, as a restore (docs/contract.md, section 10): `accepted` when the store took
   * it (it now holds that state), `refused` with its error's code when it refused it (and is as it
   * was, nothing half-applied), `unsupported` when this store cannot be offered a snapshot at all
   * (a module's adapter without `restoreFrom`). Throws only what is no answer (a dead process, a
   * timeout). The restore phase of a check offers the snapshots the model refuses through it (or,
   * without it, through `restoreFrom`); an adapter with neither leaves that phase not exercised.
   */
  offerRestore?(text: string): Promise<RestoreAnswer>;
  /**
   * Optional: told the requests the caller is about to make, in order, so that an adapter over a
   * pipe may write them all at once (docs/protocol.md, "Requests written ahead"). The calls still
   * come one by one and may stop short of the plan; every reply is checked when its call comes.
   */
  plan?(requests: readonly PlannedRequest[]): void;
  /** Releases resources (ends a process, closes a database). Idempotent. */
  close(): Promise<void>;
}

/** What a store answered to a restore it was offered (Adapter.offerRestore). */
export type RestoreAnswer =
  | { readonly answer: 'accepted' }
  | { readonly answer: 'refused'; readonly code: string; readonly message: string; readonly path?: string }
  | { readonly answer: 'unsupported'; readonly why: string };

/** A request an adapter's caller is about to make (Adapter.plan): execute(), snapshot() or a reset to a snapshot. */
export type PlannedRequest =
  | { readonly execute: unknown }
  | { readonly snapshot: true }
  | { readonly restore: Snapshot };

/** Creates a fresh, empty implementation for a config. */
export type AdapterFactory = (config: Config) => Promise<Adapter>;

/**
 * Default longest wait for one reply of an implementation, in ms: every method that waits on one
 * (a process behind the protocol, a module in a child process, competing workers) starts from it.
 */
export const DEFAULT_REPLY_TIMEOUT_MS = 5_000;
