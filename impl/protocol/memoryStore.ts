/** The built-in in-memory JobStore as a protocol server's store (`jobcheck serve --store memory`). */
import { JobStore } from '../memory/JobStore.ts';
import type { StoreMaker } from './server.ts';

/** Makes JobStores: empty ones for a config, restored ones from a snapshot. */
export const memoryStoreMaker: StoreMaker = {
  name: 'jobcheck-memory',
  create: (config) => new JobStore(config),
  restore: (snapshot) => JobStore.restore(snapshot),
};
