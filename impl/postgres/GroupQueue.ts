/**
 * The commands of one PostgreSQL store object waiting for their transaction (PostgresStore.ts's
 * group commit): a command queues, and the commands that wait while a group runs form the next
 * group (GROUP_MAX at most), run by the store in one transaction on a connection taken from the
 * pool for it, one group at a time. A group that failed before COMMIT comes back to the queue's
 * head as groups of one (`retryAlone`), so that the failure lands on the command that caused it.
 */
import type { Command, Reply } from '../../contract/index.ts';
import type { PgPool, PgPoolClient } from './PgPool.ts';

/** A command waiting for its group, with the settling of its promise. */
export interface Queued {
  readonly command: Command;
  readonly resolve: (reply: Reply) => void;
  readonly reject: (error: unknown) => void;
  /** Runs in a group of its own (after its group failed before COMMIT). */
  readonly alone: boolean;
}

/** Commands in one group at most (one transaction; its replies wait for its COMMIT). */
export const GROUP_MAX = 64;

/** The listener a taken connection's `error` event gets: its query fails with the error already. */
export const ignoreTakenError = (): void => undefined;

/** The queue of one store object, draining one group at a time through `run`. */
export class GroupQueue {
  private readonly queue: Queued[] = [];
  private draining = false;

  /** `run` runs one group on a connection and settles every command of it (never rejects); it releases the connection. */
  constructor(
    private readonly pool: PgPool,
    private readonly run: (client: PgPoolClient, group: Queued[]) => Promise<void>,
  ) {}

  /** Queues `command` for the next group; settles with its reply after that group's COMMIT (or its failure). */
  push(command: Command): Promise<Reply> {
    return new Promise<Reply>((resolve, reject) => {
      this.queue.push({ command, resolve, reject, alone: false });
      if (!this.draining) void this.drain();
    });
  }

  /** Puts the commands of a group that failed before COMMIT back at the queue's head, each to run alone. */
  retryAlone(group: readonly Queued[]): void {
    this.queue.unshift(...group.map((q) => ({ ...q, alone: true })));
  }

  /** Runs groups while commands wait: one group at a time, each on a connection taken from the pool. Never rejects. */
  private async drain(): Promise<void> {
    this.draining = true;
    try {
      while (this.queue.length > 0) {
        let client: PgPoolClient;
        try {
          client = await this.pool.connect();
        } catch (error) {
          for (const q of this.queue.splice(0)) q.reject(error);
          return;
        }
        // A server that goes while the connection is taken fails its query: the event is not the process's.
        client.on?.('error', ignoreTakenError);
        try {
          // Taken after the connection came: the commands queued while it did join this group.
          await this.run(client, this.next());
        } finally {
          client.off?.('error', ignoreTakenError);
        }
      }
    } finally {
      this.draining = false;
    }
  }

  /** The commands of the next group: up to GROUP_MAX from the queue's head, or one that must run alone. */
  private next(): Queued[] {
    if (this.queue[0]?.alone === true) return this.queue.splice(0, 1);
    const end = this.queue.findIndex((q, i) => q.alone || i >= GROUP_MAX);
    return this.queue.splice(0, end === -1 ? this.queue.length : end);
  }
}
