/**
 * BUG: restore accepts any snapshot. A snapshot the store cannot use is never refused: the store
 * swallows the error and starts empty (with the snapshot's config when that one reads, a default
 * one otherwise), so a caller told `ok` has lost its state, and a snapshot no store could have
 * written goes unnoticed. Only the restore phase offers such snapshots.
 */
import { parseConfig } from '../../contract/index.ts';
import type { Config } from '../../contract/index.ts';
import { JobStore } from '../../impl/index.ts';

/** The config of a store made from a snapshot whose own config does not read. */
const FALLBACK: Config = { capacity: 1, maxAttempts: 1, leaseTicks: 1, backoffBase: 1, backoffCap: 1 };

/** JobStore whose restore never refuses. */
export class RestoreAcceptsAnything extends JobStore {
  static override restore<T extends JobStore>(this: new (config: unknown) => T, snapshot: unknown): T {
    try {
      return JobStore.restore.call(this, snapshot) as T;
    } catch {
      // the bug: no invalid_snapshot refusal, an empty store instead
      let config = FALLBACK;
      try {
        config = parseConfig((snapshot as { config?: unknown } | null)?.config);
      } catch {
        // no config that reads: the default one
      }
      return new this(config);
    }
  }
}
