/**
 * redis-server as scripts/brokers.sh starts it (loopback, noeviction, protected mode, in the
 * foreground), with the persistence of its configuration: Debian's default RDB save points, or
 * the append-only file fsynced every second or before every acknowledgement (no RDB then).
 */
import { redisAnswers } from './network.ts';
import type { Recipe } from './recipe.ts';
import { onPath } from './recipe.ts';
import { ServerError } from './ServerError.ts';

/** The save points of Debian's redis.conf (Redis 7). */
export const DEBIAN_SAVE = '3600 1 300 100 60 10000';

/** The recipe of a Redis server with `persistence`. Throws `server_missing`. */
export function redisRecipe(persistence: 'rdb' | 'aof-everysec' | 'aof-always'): Recipe {
  const bin = onPath('redis-server');
  if (bin === undefined)
    throw new ServerError('server_missing', 'no redis-server found (apt-get install redis-server)');
  const durability =
    persistence === 'rdb'
      ? ['--save', DEBIAN_SAVE, '--appendonly', 'no']
      : ['--save', '', '--appendonly', 'yes', '--appendfsync', persistence === 'aof-always' ? 'always' : 'everysec'];
  return {
    program: 'redis-server',
    diskBytes: 16 << 20,
    readyMs: 20_000,
    stopSignal: 'SIGTERM',
    prepare: async () => undefined,
    command: (place) => ({
      argv: [
        bin,
        '--bind',
        '127.0.0.1',
        '--port',
        String(place.port),
        '--dir',
        place.data,
        '--maxmemory-policy',
        'noeviction',
        '--daemonize',
        'no',
        '--protected-mode',
        'yes',
        ...durability,
      ],
    }),
    answers: (place) => redisAnswers(place.port),
    exports: (place) => ({ JOBCHECK_REDIS_URL: `redis://127.0.0.1:${place.port}` }),
  };
}
