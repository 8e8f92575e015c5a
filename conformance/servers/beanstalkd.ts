/**
 * beanstalkd as scripts/brokers.sh starts it: under libfaketime, its clock the absolute time written
 * in a timestamp file in its folder (read again at every call), starting at a fixed instant and kept
 * across restarts; with its configuration, a binlog (-b) in the data folder.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beanstalkdAnswers } from './network.ts';
import type { Recipe } from './recipe.ts';
import { firstExisting, onPath } from './recipe.ts';
import { ServerError } from './ServerError.ts';
import { readdirSync } from 'node:fs';

/** Where Debian's libfaketime is, or undefined. */
function libfaketime(): string | undefined {
  let arch: string[] = [];
  try {
    arch = readdirSync('/usr/lib').map((d) => `/usr/lib/${d}/faketime/libfaketime.so.1`);
  } catch {
    // No /usr/lib.
  }
  return firstExisting([...arch, '/usr/lib/faketime/libfaketime.so.1']);
}

/** The recipe of a beanstalkd server, with or without a binlog. Throws `server_missing`. */
export function beanstalkdRecipe(binlog: boolean): Recipe {
  const bin = onPath('beanstalkd');
  if (bin === undefined) throw new ServerError('server_missing', 'no beanstalkd found (apt-get install beanstalkd)');
  const lib = libfaketime();
  if (lib === undefined)
    throw new ServerError(
      'server_missing',
      'no libfaketime found (apt-get install libfaketime); beanstalkd runs under it',
    );
  const clock = (folder: string): string => join(folder, 'beanstalkd.faketime');
  return {
    program: 'beanstalkd',
    diskBytes: 64 << 20,
    readyMs: 20_000,
    stopSignal: 'SIGTERM',
    prepare: async (place) => writeFileSync(clock(place.folder), '@2026-01-01 00:00:00\n'),
    command: (place) => ({
      argv: [bin, '-l', '127.0.0.1', '-p', String(place.port), ...(binlog ? ['-b', place.data] : [])],
      env: { LD_PRELOAD: lib, FAKETIME_TIMESTAMP_FILE: clock(place.folder), FAKETIME_NO_CACHE: '1' },
    }),
    answers: (place) => beanstalkdAnswers(place.port),
    exports: (place) => ({
      JOBCHECK_BEANSTALKD_ADDR: `127.0.0.1:${place.port}`,
      JOBCHECK_BEANSTALKD_CLOCK: clock(place.folder),
    }),
  };
}
