/**
 * A recorder a team puts around the BullMQ Queue and Worker it already runs, so that they write
 * `jobcheck-history/1` (docs/history-format.md) while they work: each `queue.add` a submit; each
 * job the processor is handed a claim under BullMQ's lock token, its `leaseUntil` the claim's time
 * plus `lockDuration`; each `moveToCompleted` / `moveToFailed` the worker calls an ack / fail with
 * BullMQ's answer (a lost lock is `stale_token`, a call that never answered `unknown`); each lock
 * extension an extend; each stalled job BullMQ reports a broker `redelivered` line.
 *
 * Invariants: it never changes what BullMQ does (every wrapped call gets the same arguments and
 * gives back the same result or error; only public methods of the instances handed to it are
 * wrapped, never BullMQ's prototypes); an invoke is on disk before its call is sent (one
 * synchronous write a line), so a worker killed mid-call leaves an invoke whose outcome is unknown.
 * A claim's invoke time is `job.processedOn`, the time BullMQ sent with its move to active, so
 * `leaseUntil` is the lock's earliest end: audit with a few ms of `--clock-uncertainty`.
 * A sandboxed processor (a file BullMQ runs in a child) is not wrapped: pass a function.
 * The line writer here is minimal (one file, appended); see HistoryFileWriter.
 */
import { closeSync, openSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import type { Job, Processor, Queue, Worker } from 'bullmq';
import { codeOf } from '../../contract/index.ts';
import { HISTORY_FORMAT, type HistoryHeader, type HistoryLine } from '../../contract/history.ts';
import { LOST_LOCK_CODES } from '../bullmq-postgres/finish.ts';
import { payloadHash as hashOf } from '../historyWriter.ts';

/** Where a recorder's lines go. */
export interface HistoryLineSink {
  /** Writes one line; it is durable (as the file system keeps it) when this returns. */
  write(line: HistoryLine): void;
}

/**
 * A `jobcheck-history/1` file written line by line, synchronously: the header when it opens, the
 * `end` line (counting the lines before it) when it is closed. A file one process writes alone.
 */
export class HistoryFileWriter implements HistoryLineSink {
  private fd: number | undefined;
  private lines = 0;
  constructor(path: string, header: Omit<HistoryHeader, 'type' | 'format'> = {}) {
    this.fd = openSync(path, 'wx');
    this.write({ type: 'header', format: HISTORY_FORMAT, ...header });
  }
  write(line: HistoryLine): void {
    if (this.fd === undefined) return;
    writeSync(this.fd, `${JSON.stringify(line)}\n`);
    this.lines++;
  }
  /** Writes the end line and closes the file; later writes are dropped. */
  close(): void {
    if (this.fd === undefined) return;
    this.write({ type: 'end', lines: this.lines });
    closeSync(this.fd);
    this.fd = undefined;
  }
}

/** What a recorder writes into each line, and where. */
export interface BullmqRecorderOptions {
  readonly sink: HistoryLineSink;
  /** This process's worker name in the history (default `pid<pid>`); ids of its lines start with it. */
  readonly worker?: string;
  /** The host's name (default the machine's hostname). */
  readonly host?: string;
  /** The Worker's `lockDuration` when the Worker is not given to `worker()` (BullMQ's default 30000). */
  readonly lockDuration?: number;
  /** The account (ordering group) of a job's data, when the application has one. */
  readonly accountOf?: (data: unknown) => string | undefined;
  /** The idempotency key of a job's data, when the application has one. */
  readonly keyOf?: (data: unknown) => string | undefined;
  /** The clock (default Date.now): milliseconds, the clock BullMQ stamps `processedOn` with. */
  readonly now?: () => number;
}

/** BullMQ's default lock duration (ms). */
const BULLMQ_LOCK_DURATION = 30_000;

/** A payload's hash: the first 16 hex digits of the SHA-256 of its JSON. Pure. */
export const payloadHash = (data: unknown): string => hashOf(JSON.stringify(data) ?? 'undefined');

/** BullMQ's answer to a finish or extend call as an outcome: a lost lock is `stale_token`. Pure. */
export function outcomeOf(error: unknown): string {
  const code = codeOf(error);
  if (typeof code === 'number' && LOST_LOCK_CODES.has(code)) return 'stale_token';
  if (typeof code === 'number') return `bullmq_${Math.abs(code)}`;
  return 'unknown';
}

/**
 * Records one process's BullMQ traffic. `queue(q)` wraps `q.add`; `processor(fn)` wraps the
 * processor handed to `new Worker`; `worker(w)` listens for stalled jobs and wraps the lock
 * extensions; `close()` ends the history file when the sink is a HistoryFileWriter.
 */
export class BullmqRecorder {
  private readonly workerName: string;
  private readonly host: string;
  private readonly now: () => number;
  private lockDuration: number;
  private seq = 0;
  constructor(private readonly options: BullmqRecorderOptions) {
    this.workerName = options.worker ?? `pid${process.pid}`;
    this.host = options.host ?? hostname();
    this.now = options.now ?? Date.now;
    this.lockDuration = options.lockDuration ?? BULLMQ_LOCK_DURATION;
  }

  private nextId(): string {
    this.seq++;
    return `${this.workerName}:${this.seq}`;
  }

  private get who(): { worker: string; host: string } {
    return { worker: this.workerName, host: this.host };
  }

  /** Wraps `queue.add` so that each add is a submit; returns the same queue. */
  queue<Q extends Queue>(queue: Q): Q {
    const add = queue.add.bind(queue);
    const record = async (...args: Parameters<Queue['add']>): Promise<Job> => {
      const [, data, opts] = args;
      const id = this.nextId();
      const account = this.options.accountOf?.(data);
      const key = this.options.keyOf?.(data);
      this.options.sink.write({
        type: 'invoke',
        id,
        op: 'submit',
        at: this.now(),
        ...(opts?.jobId === undefined ? {} : { job: opts.jobId }),
        ...(account === undefined ? {} : { account }),
        ...(key === undefined ? {} : { key }),
        payloadHash: payloadHash(data),
        ...this.who,
      });
      try {
        const job = await add(...args);
        this.options.sink.write({
          type: 'return',
          id,
          at: this.now(),
          outcome: 'ok',
          ...(job.id === undefined ? {} : { job: job.id }),
        });
        return job;
      } catch (error) {
        this.options.sink.write({ type: 'return', id, at: this.now(), outcome: outcomeOf(error) });
        throw error;
      }
    };
    (queue as { add: unknown }).add = record;
    return queue;
  }

  /** Wraps a processor: each job it is handed is a claim, and its finish calls are recorded. */
  processor<D, R, N extends string>(fn: Processor<D, R, N>): Processor<D, R, N> {
    return (job, token, signal) => {
      const at = this.now();
      const claimedAt = Math.min(job.processedOn ?? at, at);
      this.options.sink.write({
        type: 'op',
        id: this.nextId(),
        op: 'claim',
        invokedAt: claimedAt,
        returnedAt: at,
        outcome: 'ok',
        ...(job.id === undefined ? {} : { job: job.id }),
        ...(token === undefined ? {} : { token }),
        attempt: job.attemptsStarted > 0 ? job.attemptsStarted : job.attemptsMade + 1,
        leaseUntil: claimedAt + this.lockDuration,
        ...this.who,
      });
      this.wrapFinish(job, 'moveToCompleted', 'ack');
      this.wrapFinish(job, 'moveToFailed', 'fail');
      return fn(job, token, signal);
    };
  }

  /** Wraps one job's finish call (ack or fail) on that instance only. */
  private wrapFinish(job: Job, method: 'moveToCompleted' | 'moveToFailed', op: 'ack' | 'fail'): void {
    const original = job[method].bind(job) as (...a: unknown[]) => Promise<unknown>;
    const record = async (...args: unknown[]): Promise<unknown> => {
      const id = this.nextId();
      const token = typeof args[1] === 'string' ? args[1] : undefined;
      this.options.sink.write({
        type: 'invoke',
        id,
        op,
        at: this.now(),
        ...(job.id === undefined ? {} : { job: job.id }),
        ...(token === undefined ? {} : { token }),
        ...this.who,
      });
      try {
        const result = await original(...args);
        const dead = op === 'fail' && (job.finishedOn ?? 0) > 0;
        this.options.sink.write({
          type: 'return',
          id,
          at: this.now(),
          outcome: 'ok',
          ...(op === 'fail' ? { next: dead ? 'dead' : 'retry' } : {}),
        });
        return result;
      } catch (error) {
        this.options.sink.write({ type: 'return', id, at: this.now(), outcome: outcomeOf(error) });
        throw error;
      }
    };
    (job as unknown as Record<string, unknown>)[method] = record;
  }

  /** Listens for the stalled jobs `worker` reports and wraps its lock extensions; returns it. */
  worker<W extends Worker>(worker: W): W {
    this.lockDuration = worker.opts.lockDuration ?? this.lockDuration;
    worker.on('stalled', (jobId: string) => {
      this.options.sink.write({ type: 'broker', event: 'redelivered', job: jobId, at: this.now(), host: this.host });
    });
    const extend = worker.extendJobLocks.bind(worker);
    const record = async (jobIds: string[], tokens: string[], duration: number): Promise<string[]> => {
      const at = this.now();
      const line = (i: number, returnedAt: number, outcome: string): void => {
        const token = tokens[i];
        this.options.sink.write({
          type: 'op',
          id: this.nextId(),
          op: 'extend',
          invokedAt: at,
          returnedAt,
          outcome,
          job: jobIds[i] as string,
          ...(token === undefined || token === '' ? {} : { token }),
          leaseUntil: at + duration,
          ...this.who,
        });
      };
      try {
        const errored = await extend(jobIds, tokens, duration);
        const back = this.now();
        for (const [i, jobId] of jobIds.entries()) line(i, back, errored.includes(jobId) ? 'stale_token' : 'ok');
        return errored;
      } catch (error) {
        const back = this.now();
        for (const i of jobIds.keys()) line(i, back, outcomeOf(error));
        throw error;
      }
    };
    (worker as { extendJobLocks: unknown }).extendJobLocks = record;
    return worker;
  }
}
