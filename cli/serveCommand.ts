/**
 * `jobcheck serve --store <kind>`: one of the built-in stores speaking the jobcheck/1 and jobcheck/2 protocols on
 * stdin and stdout until stdin ends, so that any tool (jobcheck itself included) can drive it as
 * it drives an implementation in another language.
 */
import { modelStoreMaker } from '../conformance/stores/model.ts';
import { memoryStoreMaker, postgresStoreMaker, serveLines, sqliteStoreMaker } from '../impl/protocol/index.ts';
import type { StoreMaker } from '../impl/protocol/index.ts';
import { requireDriver } from '../impl/requireDriver.ts';
import type { CliIO } from './args.ts';
import { UsageError, parseCommandArgs } from './args.ts';

/** The stores `serve` knows. */
const STORES: Record<string, StoreMaker> = { memory: memoryStoreMaker, model: modelStoreMaker };

/** The prefix of `--store sqlite:<file>`. */
const SQLITE_PREFIX = 'sqlite:';
/** The prefix of `--store postgres:<target>`. */
const POSTGRES_PREFIX = 'postgres:';

/** Usage text of `jobcheck serve`. */
export const SERVE_USAGE = `Usage: jobcheck serve --store <kind>

Serves a built-in store over the jobcheck/1 and jobcheck/2 protocols (docs/protocol.md) on stdin
and stdout, one JSON request per line in and one reply per line out, until stdin ends.
  --store <kind>   memory: the optimised impl/JobStore; model: the reference model itself;
                   sqlite:<file>: impl/SqliteStore, durable; each store gets a new file beside
                   <file> (jobs.db: jobs-<pid>-<n>.db), removed when the store is replaced or the
                   process ends, kept only by a process that is killed, for a crash restart
                   postgres:<target>: impl/PostgresStore, durable, on the server at <target> (a
                   postgres:// URL or a unix socket folder; empty: PGHOST and the rest of libpq's
                   environment); each store gets a schema of its own, dropped as a file is above
  -h, --help       show this text
Example: jobcheck check --impl "npx jobcheck serve --store memory"
         jobcheck check --impl "npx jobcheck serve --store sqlite:jobs.db"
         jobcheck check --impl "npx jobcheck serve --store postgres:/var/run/postgresql"
`;

/** Runs `jobcheck serve`; returns the exit code once stdin has ended. */
export async function serveCommand(
  argv: readonly string[],
  io: CliIO & { readonly stdin?: NodeJS.ReadableStream; readonly output?: NodeJS.WritableStream },
): Promise<number> {
  const { values } = parseCommandArgs(
    'serve',
    argv,
    { store: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
    false,
  );
  if (values.help === true) {
    io.stdout.write(SERVE_USAGE);
    return 0;
  }
  const kind = values.store;
  if (kind === undefined)
    throw new UsageError(
      `serve: say which store to serve: --store ${[...Object.keys(STORES), 'sqlite:<file>', 'postgres:<target>'].join(' | ')}`,
    );
  let maker = Object.hasOwn(STORES, kind) ? STORES[kind] : undefined;
  if (kind.startsWith(SQLITE_PREFIX)) {
    const file = kind.slice(SQLITE_PREFIX.length);
    if (file === '') throw new UsageError('serve: --store sqlite:<file> needs a file, e.g. --store sqlite:jobs.db');
    // A missing driver is told before serving (DriverMissingError, one line), not at each hello.
    requireDriver('better-sqlite3', 'jobcheck serve --store sqlite:<file>');
    maker = sqliteStoreMaker(file);
  }
  if (kind.startsWith(POSTGRES_PREFIX)) {
    // A URL keeps its scheme: `postgres://…` is passed whole, `postgres:/socket/dir` as the folder.
    const target = kind.startsWith('postgres://') ? kind : kind.slice(POSTGRES_PREFIX.length);
    if (target !== '' && !target.startsWith('/') && !/^postgres(ql)?:\/\//.test(target)) {
      throw new UsageError(
        `serve: --store postgres:<target> needs a postgres:// URL or a unix socket folder (an absolute path), not ${JSON.stringify(target)}`,
      );
    }
    requireDriver('pg', 'jobcheck serve --store postgres:<target>');
    maker = postgresStoreMaker(target);
  }
  if (maker === undefined)
    throw new UsageError(
      `serve: no store named ${JSON.stringify(kind)} (known: ${[...Object.keys(STORES), 'sqlite:<file>', 'postgres:<target>'].join(', ')})`,
    );
  await serveLines(io.stdin ?? process.stdin, io.output ?? process.stdout, maker);
  return 0;
}
