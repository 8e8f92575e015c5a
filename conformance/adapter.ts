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
  /** Releases resources (ends a process, closes a database). Idempotent. */
  close(): Promise<void>;
}

/** Creates a fresh, empty implementation for a config. */
export type AdapterFactory = (config: Config) => Promise<Adapter>;
