/**
 * A PostgreSQL cluster as scripts/pg.sh makes one (Debian's binaries, initdb with trust
 * authentication, fsync on, 200 connections), except that the postmaster runs in the foreground
 * (no pg_ctl: a kill must reach it and its children) and listens on a loopback port, with no unix
 * socket. As root the cluster belongs to `postgres` (else `nobody`). synchronous_commit is the
 * configuration's. Exports PGHOST, PGPORT, PGDATABASE (`jobcheck`) and PGUSER.
 */
import { readdirSync, realpathSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { tcpOpen } from './network.ts';
import type { Recipe } from './recipe.ts';
import { onPath, run } from './recipe.ts';
import { ServerError } from './ServerError.ts';

/** The folder of PostgreSQL's server programs: beside initdb on PATH, else Debian's newest /usr/lib/postgresql/<v>/bin. */
export function postgresBin(): string | undefined {
  const initdb = onPath('initdb');
  // /usr/local/bin may hold links to a few of them only: follow them to the folder of all.
  if (initdb !== undefined && onPath('pg_ctl') !== undefined) return dirname(realpathSync(initdb));
  let versions: string[] = [];
  try {
    versions = readdirSync('/usr/lib/postgresql').sort((a, b) => Number(b) - Number(a));
  } catch {
    return undefined;
  }
  for (const v of versions) {
    const bin = `/usr/lib/postgresql/${v}/bin`;
    if (onPath('initdb', { PATH: bin }) !== undefined) return bin;
  }
  return undefined;
}

/** The recipe of a PostgreSQL cluster with synchronous_commit on or off. Throws `server_missing`. */
export function postgresRecipe(synchronousCommit: boolean): Recipe {
  const bin = postgresBin();
  if (bin === undefined)
    throw new ServerError(
      'server_missing',
      'no PostgreSQL server programs found (initdb, pg_ctl: apt-get install postgresql)',
    );
  return {
    program: 'postgres',
    userWhenRoot: 'postgres',
    diskBytes: 128 << 20,
    readyMs: 60_000,
    // SIGINT: PostgreSQL's fast shutdown (clients disconnected, a checkpoint written).
    stopSignal: 'SIGINT',
    prepare: async (place) => {
      await run(
        place.wrap([
          join(bin, 'initdb'),
          '-D',
          place.data,
          '-U',
          place.user,
          '--auth=trust',
          '--encoding=UTF8',
          '--locale=C.UTF-8',
        ]),
      );
    },
    command: (place) => ({
      argv: [
        join(bin, 'postgres'),
        '-D',
        place.data,
        '-p',
        String(place.port),
        '-c',
        'listen_addresses=127.0.0.1',
        '-c',
        'unix_socket_directories=',
        '-c',
        'fsync=on',
        '-c',
        `synchronous_commit=${synchronousCommit ? 'on' : 'off'}`,
        '-c',
        'max_connections=200',
      ],
    }),
    // Accepting connections, recovery done: pg_isready exits 0.
    answers: async (place) => {
      if (!(await tcpOpen(place.port))) return false;
      try {
        await run([join(bin, 'pg_isready'), '-q', '-h', '127.0.0.1', '-p', String(place.port), '-U', place.user]);
        return true;
      } catch {
        return false;
      }
    },
    afterFirstStart: async (place) => {
      await run([join(bin, 'createdb'), '-h', '127.0.0.1', '-p', String(place.port), '-U', place.user, 'jobcheck']);
    },
    exports: (place) => ({
      PGHOST: '127.0.0.1',
      PGPORT: String(place.port),
      PGDATABASE: 'jobcheck',
      PGUSER: place.user,
    }),
  };
}
