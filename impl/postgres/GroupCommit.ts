/**
 * Group commit for one PostgreSQL store object. The commands that wait while its transaction runs
 * form the next group (GroupQueue.ts), run through the core one after the other in one READ
 * COMMITTED transaction under one meta row lock, the counters passed from each command to the
 * next; their replies are handed back only after that transaction's COMMIT.
 *
 * - An acknowledged reply is durable; a failed COMMIT fails every command of its group.
 * - Queue order is the total order. Every command of a group was waiting before any of them took
 *   effect and none replies before all have, so any order of them is a linearization.
 * - A failure before COMMIT rolls the group back and runs its commands again one per
 *   transaction, so that it lands on the command that caused it alone.
 * - A group opens on the rows its store's last COMMIT left (ReadAhead.ts), behind a guarded lock
 *   that checks nobody wrote since, when it has them; else, or when they were stale, it runs on
 *   the locked path: BEGIN and the lock with the reads its commands will ask for (GroupReads.ts).
 * - A group of one claim or ack goes first as one statement (FastPath.ts): the server takes the
 *   lock, decides, commits and flushes; a `jobcheck_slow` answer sends it on to the paths above.
 * - A connection whose transaction failed is dropped rather than reused.
 */
import type { Command, Reply } from '../../contract/index.ts';
import type { Counters } from '../durable/index.ts';
import { FAULT_POINTS, faultArmed, faultPoint } from '../faults.ts';
import { GroupQueue } from './GroupQueue.ts';
import type { Queued } from './GroupQueue.ts';
import type { GroupReads } from './GroupReads.ts';
import type { PgPool, PgPoolClient } from './PgPool.ts';
import type { Prepared } from './Prepared.ts';
import type { PreparedKey } from './queries.ts';
import { fastRows, isSlow } from './FastPath.ts';
import type { FastCall } from './FastPath.ts';
import { ReadAheadKeeper, readAheadOf } from './ReadAhead.ts';
import type { ReadAhead } from './ReadAhead.ts';
import { StaleReadAhead, Tx, xminOf } from './Tx.ts';

/** Whether JOBCHECK_FAULT arms after-begin in this process: a transaction then opens in a message of its own. */
const AFTER_BEGIN_ARMED = faultArmed(FAULT_POINTS.afterBegin);

/**
 * Whether JOBCHECK_FAULT arms after-first-write in this process: the counters are then written by
 * a write of their own, as on the locked path, so that a command whose only write is its counters
 * still passes that point (Tx.ts) rather than writing them with the guard in its opening.
 */
const FIRST_WRITE_ARMED = faultArmed(FAULT_POINTS.afterFirstWrite);

/** What the group commit asks of its store. */
export interface GroupStore {
  /** BEGIN and the meta row's lock, reading the counters: a group's opening on the locked path. */
  lock(commands: readonly Command[]): string;
  /** The lock on rows read ahead: writes counters `to` while the meta row's version and counters `c` are as read. */
  guard(version: string, c: Counters, to: Counters): string;
  /** Steps 1b to 3 of one command, inside the group's transaction. */
  apply(tx: Tx, m: Counters, c: Command): Promise<Reply>;
  /** The one-statement call of a command alone in its group, or undefined when it takes the other paths. */
  fast(c: Command): FastCall | undefined;
}

/** What a store's transactions cost so far (for the benchmark's profile). */
export interface Traffic {
  readonly roundTrips: number;
  readonly groups: number;
  readonly commands: number;
  readonly heldMs: number;
  readonly readAheadGroups: number;
  readonly staleGroups: number;
  /** Commands run as one statement (FastPath.ts), and those the server sent on to the other paths. */
  readonly fastCommands: number;
  readonly slowCommands: number;
}

/** What a failed transaction leaves for its group: whether COMMIT was in flight, and a broken connection. */
interface Outcome {
  committing: boolean;
  broken: Error | undefined;
}

/** The groups of one store object, one transaction at a time. */
export class GroupCommit {
  private readonly queue: GroupQueue;
  /** The rows read behind this store's last COMMIT, for the next group (ReadAhead.ts). */
  private readonly readAhead = new ReadAheadKeeper();
  /** The clock as this store's last transaction committed it (-1 before any). */
  private lastClock = -1;
  private roundTrips = 0;
  private groups = 0;
  private commands = 0;
  private heldMs = 0;
  private fastCommands = 0;
  private slowCommands = 0;

  constructor(
    pool: PgPool,
    private readonly p: Prepared<PreparedKey>,
    private readonly reads: GroupReads,
    private readonly store: GroupStore,
    /** Whether groups may open on rows read ahead (not when a subclass changes the lock). */
    private readonly readAheadAllowed: boolean,
  ) {
    this.queue = new GroupQueue(pool, (client, group) => this.run(client, group));
  }

  /** Queues a validated command for the next group; resolves after that group's COMMIT. */
  push(command: Command): Promise<Reply> {
    return this.queue.push(command);
  }

  /**
   * Round trips to the server, groups (transactions) and the commands in them (a group failed
   * before COMMIT counts again when its commands rerun), milliseconds from BEGIN sent to COMMIT
   * answered summed over the committed groups, and the groups opened on rows read ahead.
   */
  get traffic(): Traffic {
    return {
      roundTrips: this.roundTrips,
      groups: this.groups,
      commands: this.commands,
      heldMs: this.heldMs,
      readAheadGroups: this.readAhead.groups,
      staleGroups: this.readAhead.staleGroups,
      fastCommands: this.fastCommands,
      slowCommands: this.slowCommands,
    };
  }

  /**
   * One group on `client`: in one transaction opened on the rows read behind the last COMMIT when
   * there are any, else, or when those rows were stale, in one on the locked path; then each
   * reply. A failure before COMMIT fails a group of one, and puts the commands of a larger group
   * back at the queue's head to run alone (the others took no effect and run again); a failure of
   * the COMMIT message fails them all. Settles every command of the group; never rejects.
   */
  private async run(client: PgPoolClient, group: Queued[]): Promise<void> {
    const outcome: Outcome = { committing: false, broken: undefined };
    let replies: Reply[] | undefined;
    try {
      const fast = group.length === 1 ? this.store.fast((group[0] as Queued).command) : undefined;
      if (fast !== undefined) replies = await this.fastTransaction(client, fast);
      const cached = replies === undefined ? this.readAhead.take() : undefined;
      if (cached !== undefined) {
        try {
          replies = await this.transaction(client, group, cached, outcome);
        } catch (error) {
          if (!(error instanceof StaleReadAhead) || outcome.broken !== undefined) throw error;
          this.readAhead.stale();
        }
      }
      replies ??= await this.transaction(client, group, undefined, outcome);
    } catch (error) {
      outcome.broken ??= error as Error;
      if (outcome.committing || group.length === 1) for (const q of group) q.reject(error);
      else this.queue.retryAlone(group);
      return;
    } finally {
      client.release(outcome.broken);
    }
    group.forEach((q, i) => {
      faultPoint(FAULT_POINTS.afterCommit);
      q.resolve(replies[i] as Reply);
    });
  }

  /**
   * The one statement of a command alone in its group (FastPath.ts), its own transactions: the
   * reply, or undefined when the server left it to the other paths (nothing was written). The rows
   * read ahead are dropped: this COMMIT changed the meta row behind them.
   */
  private async fastTransaction(client: PgPoolClient, fast: FastCall): Promise<Reply[] | undefined> {
    if (await this.p.ensure(client)) this.roundTrips += 1;
    const started = performance.now();
    this.roundTrips += 1;
    this.groups += 1;
    this.commands += 1;
    let rows: unknown[];
    try {
      rows = fastRows((await client.query(fast.sql)).rows);
    } catch (error) {
      if (!isSlow(error)) throw error;
      this.slowCommands += 1;
      return undefined;
    }
    this.fastCommands += 1;
    this.heldMs += performance.now() - started;
    this.lastClock = fast.now;
    this.readAhead.keep(undefined);
    return [fast.reply(rows)];
  }

  /**
   * One transaction of a group, each command through the core in order, COMMIT with the reads
   * behind it, and the replies. On the locked path (`cached` undefined): BEGIN and the lock with
   * the reads its commands will ask for. Opened on rows read ahead (`cached`): the counters and
   * rows come from them, and BEGIN with the guarded lock travels in front of the first message, a
   * message of its own only when the group needs reads those rows do not hold (then with them) or
   * after-begin is armed; a stale guard fails with StaleReadAhead and nothing of the transaction
   * ran. A failure before COMMIT rolls back; `outcome` says whether COMMIT was in flight and
   * whether the connection broke.
   */
  private async transaction(
    client: PgPoolClient,
    group: readonly Queued[],
    cached: ReadAhead | undefined,
    outcome: Outcome,
  ): Promise<Reply[]> {
    const tx = new Tx(client, cached?.prefetch);
    const replies: Reply[] = [];
    try {
      if (await this.p.ensure(client)) this.roundTrips += 1;
      const commands = group.map((q) => q.command);
      let m: Counters;
      // BEGIN and the guarded lock writing counters `to`, for a transaction opened on rows read ahead.
      let opening: ((to: Counters) => string) | undefined;
      if (cached === undefined) {
        const ahead = this.reads.ahead(commands, this.lastClock);
        const rows = await tx.begin(
          this.store.lock(commands),
          ahead.map((a) => a.sql),
        );
        faultPoint(FAULT_POINTS.afterBegin);
        // The lock's row: the counters (queries.ts's COUNTER_COLUMNS).
        m = rows[0]?.[0] as Counters;
        ahead.forEach((a, i) => {
          a.keep(tx.prefetch, rows[1 + i] ?? []);
        });
      } else {
        m = { ...cached.counters };
        opening = (to: Counters): string =>
          `BEGIN ISOLATION LEVEL READ COMMITTED; ${this.store.guard(cached.version, cached.counters, to)}`;
        const ahead = this.reads.ahead(commands, this.lastClock, tx.prefetch);
        if (ahead.length > 0 || AFTER_BEGIN_ARMED) {
          const rows = await tx.begin(
            opening(cached.counters),
            ahead.map((a) => a.sql),
          );
          tx.openedRows = rows[0] ?? [];
          faultPoint(FAULT_POINTS.afterBegin);
          ahead.forEach((a, i) => {
            a.keep(tx.prefetch, rows[1 + i] ?? []);
          });
        } else tx.beginLater(opening(cached.counters));
      }
      const clock = m.clock;
      for (const command of commands) replies.push(await this.store.apply(tx, m, command));
      // Every transaction that writes changes the meta row, so that its version tells other stores.
      if (cached === undefined && tx.anyWrite && !tx.metaWritten) tx.defer(this.p.exec('touchMeta'));
      // Opened on rows read ahead and nothing sent yet: the guard writes the new counters itself,
      // one statement fewer in the only message.
      if (opening !== undefined && !FIRST_WRITE_ARMED && tx.openingHeld && tx.dropPending('counters'))
        tx.beginLater(opening(m));
      const behind = this.reads.behind(
        tx.prefetch,
        this.readAheadAllowed && !this.readAhead.backingOff,
        commands.length,
        m.clock > clock ? m.clock : undefined,
        cached !== undefined,
      );
      const rows = await tx.commit((behind ?? []).map((b) => b.sql));
      this.lastClock = m.clock;
      if (cached !== undefined) this.readAhead.fresh();
      // Opened on rows read ahead, the guard wrote the meta row: its version is this transaction's id.
      const version = cached === undefined ? undefined : xminOf(tx.openedRows);
      this.readAhead.keep(
        behind === undefined || (cached !== undefined && version === undefined)
          ? undefined
          : readAheadOf(behind, rows, tx.prefetch, m, version),
      );
      return replies;
    } catch (error) {
      outcome.committing = tx.committing;
      if (!tx.committing) await client.query('ROLLBACK').catch((e: unknown) => (outcome.broken = e as Error));
      throw error;
    } finally {
      this.roundTrips += tx.roundTrips;
      this.groups += 1;
      this.commands += group.length;
      this.heldMs += tx.heldMs;
    }
  }
}
