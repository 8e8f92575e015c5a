/**
 * An implementation handed to `jobcheck check --module examples/typescript/jobStoreModule.ts`: a
 * module whose default export is an AdapterFactory (a function from a config to a fresh Adapter,
 * conformance/adapter.ts). This one wraps the built-in impl/JobStore; an in-process
 * implementation of your own plugs in the same way. Its restoreFrom lets the check's restore phase
 * offer it invalid snapshots (without one, that phase is NOT EXERCISED, and the check incomplete).
 */
import type { Adapter, AdapterFactory } from '../../conformance/adapter.ts';
import type { Reply, Snapshot } from '../../contract/index.ts';
import { JobStore } from '../../impl/index.ts';

/** Creates a fresh JobStore for the config and drives it through the Adapter interface. */
const createAdapter: AdapterFactory = (config) => {
  let store = JobStore.create(config);
  const adapter: Adapter = {
    name: 'examples/typescript/jobStoreModule.ts',
    execute: (command: unknown): Promise<Reply> => Promise.resolve(store.execute(command)),
    snapshot: (): Promise<Snapshot> => Promise.resolve(store.snapshot()),
    restart: (): Promise<void> => {
      // A real restart: the snapshot goes through JSON text into a fresh store.
      store = JobStore.restore(JSON.parse(JSON.stringify(store.snapshot())));
      return Promise.resolve();
    },
    // The restore phase offers snapshots no store could have written: JobStore.restore refuses
    // each with a JobcheckError `invalid_snapshot` before anything is built, and the store stays.
    restoreFrom: (snapshot: Snapshot): Promise<void> => {
      store = JobStore.restore(snapshot);
      return Promise.resolve();
    },
    close: (): Promise<void> => Promise.resolve(),
  };
  return Promise.resolve(adapter);
};

export default createAdapter;
