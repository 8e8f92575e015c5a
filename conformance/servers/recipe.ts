/**
 * What BrokerServer needs to know of one broker: how to prepare its folder once, the command that
 * runs it (every time it starts, on the same folder and port), how to tell it answers, how to stop
 * it cleanly, and the environment that tells an adapter where it is. One recipe a broker, each in
 * a file of its own; BrokerServer owns the processes, the folder and the faults.
 */
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { ServerError } from './ServerError.ts';

/** Where one server lives: its folders, its ports, and the prefix every server-side command runs under. */
export interface ServerPlace {
  /** The server's own folder (logs, configuration files); removed by dispose. */
  readonly folder: string;
  /** The data folder inside it (on a tmpfs of its own with a disk limit). */
  readonly data: string;
  /** The main port on 127.0.0.1. */
  readonly port: number;
  /** More ports, drawn once (RabbitMQ's distribution, rabbitmqctl and epmd ports). */
  readonly ports: readonly number[];
  /** The user the server runs as (root runs brokers that refuse root as their own user). */
  readonly user: string;
  /**
   * Runs `argv` as the server's user, inside its mount namespace when it has one: the argv that does.
   * Every command that touches the data folder goes through it.
   */
  readonly wrap: (argv: readonly string[]) => string[];
}

/** One broker; see the top of the file. */
export interface Recipe {
  /** The program, for messages (`redis-server`). */
  readonly program: string;
  /** The user to run as when the harness is root (undefined: root itself). */
  readonly userWhenRoot?: string;
  /** The extra ports to draw. */
  readonly extraPorts?: number;
  /** Bytes of the tmpfs a disk-limited data folder gets (enough to start; a fault fills the rest). */
  readonly diskBytes: number;
  /** Longest wait for the server to answer after a start, ms. */
  readonly readyMs: number;
  /** Writes the folder's files once, before the first start (configuration, initdb). Throws ServerError. */
  prepare(place: ServerPlace): Promise<void>;
  /** Processes that run beside the server for its whole life (RabbitMQ's epmd), each an argv. */
  companions?(place: ServerPlace): string[][];
  /** The server's argv (before `wrap`), and the environment it adds. */
  command(place: ServerPlace): { readonly argv: string[]; readonly env?: Record<string, string> };
  /** Whether it answers now. Never throws. */
  answers(place: ServerPlace): Promise<boolean>;
  /** Once, after the first time it answers (PostgreSQL creates its database). */
  afterFirstStart?(place: ServerPlace): Promise<void>;
  /** The signal that stops it cleanly (sent to the leader alone). */
  readonly stopSignal: NodeJS.Signals;
  /** The environment an adapter reads to find it (the variables scripts/brokers.sh and scripts/pg.sh export). */
  exports(place: ServerPlace): Record<string, string>;
}

/** The time a tool run by `run` has, ms. */
const RUN_MS = 120_000;

/**
 * Runs `argv` to its end; throws an Error carrying its output when it fails, ServerError
 * `no_answer` (after SIGKILL) when it has not ended within RUN_MS.
 */
export function run(argv: readonly string[], env?: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      argv[0] as string,
      argv.slice(1),
      { env: env ?? process.env, timeout: RUN_MS, killSignal: 'SIGKILL', maxBuffer: 1 << 20 },
      (error, stdout, stderr) => {
        if (error === null) resolve(`${stdout}`);
        else if (error.killed === true && error.signal === 'SIGKILL')
          reject(new ServerError('no_answer', `${argv.join(' ')} did not end within ${RUN_MS} ms`));
        else reject(new Error(`${argv.join(' ')}: ${error.message}\n${stderr}`.trim()));
      },
    );
  });
}

/** The first of `paths` that is an executable file, else undefined. */
export const firstExisting = (paths: readonly string[]): string | undefined => paths.find((p) => existsSync(p));

/** The program on PATH or in the sbin folders, else undefined. */
export function onPath(name: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const dirs = [...(env['PATH'] ?? '').split(':').filter((d) => d !== ''), '/usr/sbin', '/usr/local/sbin', '/sbin'];
  return firstExisting(dirs.map((d) => `${d}/${name}`));
}

/** The last `lines` lines of a log file, each quoted behind `| ` so that none reads as the harness's own. */
export function logTail(path: string, lines = 20): string {
  let text = '';
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return '  | (no log)';
  }
  return text
    .split('\n')
    .filter((l) => l.trim() !== '')
    .slice(-lines)
    .map((l) => `  | ${l.slice(0, 300)}`)
    .join('\n');
}
