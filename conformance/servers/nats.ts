/**
 * nats-server with JetStream as scripts/brokers.sh starts it (loopback, its store in the data
 * folder). The storage of a stream is the stream's own setting, chosen by whoever creates it: the
 * server exports JOBCHECK_NATS_STORAGE, which adapters/nats-jetstream reads.
 */
import { natsAnswers } from './network.ts';
import type { Recipe } from './recipe.ts';
import { onPath } from './recipe.ts';
import { ServerError } from './ServerError.ts';

/** The recipe of a NATS JetStream server whose streams use `storage`. Throws `server_missing`. */
export function natsRecipe(storage: 'file' | 'memory'): Recipe {
  const bin = onPath('nats-server');
  if (bin === undefined) throw new ServerError('server_missing', 'no nats-server found (apt-get install nats-server)');
  return {
    program: 'nats-server',
    diskBytes: 64 << 20,
    readyMs: 20_000,
    stopSignal: 'SIGTERM',
    prepare: async () => undefined,
    command: (place) => ({
      argv: [bin, '-a', '127.0.0.1', '-p', String(place.port), '-js', '-sd', `${place.data}/jetstream`],
    }),
    answers: (place) => natsAnswers(place.port),
    exports: (place) => ({ JOBCHECK_NATS_URL: `nats://127.0.0.1:${place.port}`, JOBCHECK_NATS_STORAGE: storage }),
  };
}
