/**
 * The in-process adapter for impl/JobStore (and any subclass of it, such as the deliberately
 * broken variants in conformance/broken/). Restart is real: snapshot -> JSON text -> parse ->
 * `restore` into a fresh store of the same class.
 */
import type { Reply, Snapshot } from '../../contract/index.ts';
import { JobStore } from '../../impl/index.ts';
import type { Adapter, AdapterFactory, RestoreAnswer } from '../adapter.ts';
import { offerTo } from './offerRestore.ts';

/** JobStore or a subclass of it (same constructor and static `create`/`restore`). */
export type JobStoreClass = typeof JobStore;

/** An adapter over one JobStore instance; a restart replaces the instance. */
export class JobStoreAdapter implements Adapter {
  constructor(
    private store: JobStore,
    private readonly Store: JobStoreClass,
    readonly name: string,
  ) {}

  /** Executes one command (validated by the store itself). */
  execute(command: unknown): Promise<Reply> {
    return Promise.resolve(this.store.execute(command));
  }

  /** The store's canonical snapshot. */
  snapshot(): Promise<Snapshot> {
    return Promise.resolve(this.store.snapshot());
  }

  /** Snapshot -> JSON text -> parse -> restore into a fresh store of the same class. */
  restart(): Promise<void> {
    this.store = this.Store.restore(JSON.parse(JSON.stringify(this.store.snapshot())));
    return Promise.resolve();
  }

  /** Restores a copy of `snapshot` into a fresh store of the same class (throws JobcheckError for a bad one). */
  restoreFrom(snapshot: Snapshot): Promise<void> {
    this.store = this.Store.restore(JSON.parse(JSON.stringify(snapshot)));
    return Promise.resolve();
  }

  /** Restores the value of `text` into a fresh store of the same class, which replaces this one; a refusal keeps this one. */
  offerRestore(text: string): Promise<RestoreAnswer> {
    return offerTo(text, (value) => {
      this.store = this.Store.restore(value);
    });
  }

  /** Nothing to release. */
  close(): Promise<void> {
    return Promise.resolve();
  }
}

/** A factory of adapters over `Store` (default: impl/JobStore), named `name` in reports. */
export function jobStoreFactory(Store: JobStoreClass = JobStore, name = 'impl/JobStore'): AdapterFactory {
  return (config) => Promise.resolve(new JobStoreAdapter(Store.create(config), Store, name));
}
