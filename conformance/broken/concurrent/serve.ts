/**
 * The racy catalogue over the protocol: serves one broken concurrent variant (or, with `atomic`,
 * the correct AsyncJobStore) over jobcheck/1 and jobcheck/2 on stdio, as `jobcheck serve` serves
 * the built-in stores, so that what the in-process campaign catches can be caught over `--impl`
 * too, with real concurrency:
 *
 *     node --import tsx conformance/broken/concurrent/serve.ts ack-checks-then-settles
 *
 * The store says it is `concurrent`, so the server runs the envelopes of different lanes at once;
 * each await point of the variant is a real wait (a timer of 0 to 2 ms), during which requests of
 * other lanes run. Which interleavings happen is up to the timers, not to a seed: a failure found
 * this way may need several runs to come back.
 */
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Config, Reply } from '../../../contract/index.ts';
import { serveLines } from '../../../impl/protocol/server.ts';
import type { ServedStore, StoreMaker } from '../../../impl/protocol/server.ts';
import { AsyncJobStore } from '../../concurrent/inProcess.ts';
import type { AsyncJobStoreClass, Pause } from '../../concurrent/inProcess.ts';
import { concurrentBrokenVariant } from './index.ts';

/** A real await point: 0 to 2 ms, so that other lanes' requests may run in between. */
const pause: Pause = () => new Promise((resolve) => setTimeout(resolve, Math.floor(Math.random() * 3)));

/** A store maker over an AsyncJobStore class, every command run through its `executeAsync`. */
export function racyStoreMaker(Store: AsyncJobStoreClass, name: string): StoreMaker {
  const served = (store: AsyncJobStore): ServedStore => ({
    concurrent: true,
    execute: (command: unknown): Promise<Reply> => store.executeAsync(command, pause),
    snapshot: () => store.snapshot(),
  });
  return {
    name,
    create: (config: Config) => served(Store.create(config)),
    restore: (snapshot: unknown) => served(Store.restore(snapshot)),
  };
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const which = process.argv[2] ?? '';
  const variant = which === 'atomic' ? { Store: AsyncJobStore, name: 'atomic' } : concurrentBrokenVariant(which);
  if (variant === undefined) {
    process.stderr.write(`serve.ts: no broken concurrent variant named ${JSON.stringify(which)}\n`);
    process.exit(2);
  }
  await serveLines(process.stdin, process.stdout, racyStoreMaker(variant.Store, `broken/${variant.name}`));
}
