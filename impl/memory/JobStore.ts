/**
 * The optimised job store: the contract of docs/contract.md (same commands, replies, rejection
 * codes and canonical snapshot as the reference model), built so that no command scans all jobs.
 * The decisions are impl/decisions' pure functions; this file keeps the indexes (n resident jobs,
 * u unresolved):
 * - `jobs`: id -> entry in admission order (a Map keeps insertion order), so the snapshot needs no sort;
 * - `accounts`: per account, a doubly linked FIFO of its unresolved jobs in seq order (only the head
 *   may run; a non-head is always ready, and one dying by deadline is unlinked in O(1));
 * - `claimable`: a min-heap by seq of the ready account heads; `timers`: a min-heap by time of each
 *   unresolved job's next instant, so advancing the clock pops only what is due, O(k log u);
 * - `byToken`: token -> running job; `ledgers`: account -> balance and key -> effect.
 * Both heaps are lazy: a status change bumps the job's generation, stale entries are skipped when
 * they surface, and a heap is compacted in O(size) once they outnumber live ones (memory O(u)).
 * Step 2 handles due jobs in time order, not seq order: equivalent, since each job's outcome
 * depends only on its own fields and `now`, and each moves at most once per advance.
 * Terminal jobs stay resident, as the contract requires (queries, deduplication, the snapshot);
 * they hold no heap or FIFO entries. Heap bytes per resident job: docs/benchmarks.md. A store that
 * must run forever needs a retention policy on top, which the contract leaves out.
 */
import type {
  AckCommand,
  AckResult,
  ClaimCommand,
  ClaimResult,
  Command,
  CommitCommand,
  CommitResult,
  Config,
  FailCommand,
  FailResult,
  JobRecord,
  JobStatus,
  Rejection,
  Reply,
  Snapshot,
  SubmitCommand,
  SubmitResult,
  TickCommand,
  TickResult,
} from '../../contract/index.ts';
import { SNAPSHOT_FORMAT, parseCommand, parseConfig, parseSnapshot } from '../../contract/index.ts';
import { DECISIONS, claimReply, clockRegressed, commitReply, dueOf, isUnresolvedStatus } from '../decisions/index.ts';
import type { Decisions } from '../decisions/index.ts';
import { MinHeap } from './heap.ts';
import { JobEntry, NO_TIME, NO_TOKEN } from './JobEntry.ts';

/** Number of jobs in each status. */
export type StatusCounts = Record<JobStatus, number>;

/** Arguments of a command method: the command without its `type`. */
export type ArgsOf<C extends Command> = Omit<C, 'type'>;

/** The FIFO of one account's unresolved jobs (a doubly linked list through JobEntry.prev/next). */
export interface AccountQueue {
  head: JobEntry | null;
  tail: JobEntry | null;
}

/** One ledger entry, as stored. */
export interface Effect {
  readonly amount: number;
  readonly job: string;
  readonly token: number;
}

/** An account's balance and effect ledger, kept together so that a commit looks the account up once. */
export interface AccountLedger {
  balance: number;
  readonly effects: Map<string, Effect>;
}

/** Heaps are compacted once they hold more than this many entries beyond twice the live ones. */
const COMPACT_SLACK = 1024;

/** Sets `obj[key] = value` as an own data property, even for the key `__proto__`. */
function put<V>(obj: Record<string, V>, key: string, value: V): void {
  if (key === '__proto__')
    Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
  else obj[key] = value;
}

const sortedKeys = <V>(map: Map<string, V>): string[] => [...map.keys()].sort();

/**
 * A job store with O(log n) commands. Mutable; one instance per store. Methods are overridable
 * and internals protected, so that test variants can be built by subclassing.
 */
export class JobStore {
  /** The decision functions this store runs: the contract's, unless a test variant replaced one (`withDecisions`). */
  readonly decisions: Decisions = DECISIONS;
  protected readonly cfg: Config;
  protected now = 0;
  protected nextToken = 1;
  protected nextSeq = 1;
  protected unresolved = 0;
  protected readonly jobs = new Map<string, JobEntry>();
  /** An account's record is kept once its FIFO is empty, so that accounts which drain and refill do not churn the map. */
  protected readonly accounts = new Map<string, AccountQueue>();
  protected readonly byToken = new Map<number, JobEntry>();
  protected readonly claimable = new MinHeap<JobEntry>();
  protected readonly timers = new MinHeap<JobEntry>();
  /** Accounts with at least one applied effect (exactly the accounts that have a balance). */
  protected readonly ledgers = new Map<string, AccountLedger>();
  protected readonly statusCounts: StatusCounts = { ready: 0, waiting: 0, running: 0, done: 0, dead: 0 };

  /** An empty store. Throws JobcheckError `invalid_config` naming the bad field. */
  constructor(config: unknown) {
    this.cfg = parseConfig(config);
  }

  /** An empty store for a config (validated; throws JobcheckError `invalid_config`). */
  static create<T extends JobStore>(this: new (config: unknown) => T, config: unknown): T {
    return new this(config);
  }

  /**
   * A store from a snapshot (a restart). Validates the whole snapshot with the contract's schema
   * (throws JobcheckError `invalid_snapshot` naming the field) and rebuilds every index in
   * O(n log n); keeps no reference to the caller's object.
   */
  static restore<T extends JobStore>(this: new (config: unknown) => T, snapshot: unknown): T {
    const valid = parseSnapshot(snapshot);
    const store = new this(valid.config);
    store.load(valid);
    return store;
  }

  // ---------------------------------------------------------------------------------------------
  // Commands

  /**
   * Executes one command from outside: validates it (step 1: `invalid_argument`, then
   * `clock_regressed`), advances the clock (step 2) and applies it (step 3). Never throws for bad
   * input; a refused command changes nothing.
   */
  execute(command: unknown): Reply {
    const parsed = parseCommand(command);
    if (!parsed.ok) return parsed.rejection;
    return this.executeTrusted(parsed.command);
  }

  /**
   * Executes a command that is already known to satisfy the command schema (e.g. built in-process
   * from typed, checked values): skips the schema parse, still checks the clock and every domain
   * rule. Passing an unvalidated object here can corrupt the store; use `execute` for outside input.
   */
  executeTrusted(command: Command): Reply {
    if (command.now < this.now) return clockRegressed(command.now, this.now);
    if (command.now > this.now) this.advance(command.now);
    switch (command.type) {
      case 'submit':
        return this.applySubmit(command);
      case 'claim':
        return this.applyClaim(command);
      case 'commit':
        return this.applyCommit(command);
      case 'ack':
        return this.applyAck(command);
      case 'fail':
        return this.applyFail(command);
      case 'tick':
        return this.applyTick(command);
    }
  }

  /** Submits a job (validated like `execute`). */
  submit(args: ArgsOf<SubmitCommand>): SubmitResult | Rejection {
    return this.execute({ type: 'submit', ...args }) as SubmitResult | Rejection;
  }
  /** Claims the next due job for a worker (validated like `execute`). */
  claim(args: ArgsOf<ClaimCommand>): ClaimResult | Rejection {
    return this.execute({ type: 'claim', ...args }) as ClaimResult | Rejection;
  }
  /** Commits the effect of the worker's current delivery (validated like `execute`). */
  commit(args: ArgsOf<CommitCommand>): CommitResult | Rejection {
    return this.execute({ type: 'commit', ...args }) as CommitResult | Rejection;
  }
  /** Acknowledges the worker's current delivery (validated like `execute`). */
  ack(args: ArgsOf<AckCommand>): AckResult | Rejection {
    return this.execute({ type: 'ack', ...args }) as AckResult | Rejection;
  }
  /** Reports a failure of the worker's current delivery (validated like `execute`). */
  fail(args: ArgsOf<FailCommand>): FailResult | Rejection {
    return this.execute({ type: 'fail', ...args }) as FailResult | Rejection;
  }
  /** Moves the clock (validated like `execute`). */
  tick(args: ArgsOf<TickCommand>): TickResult | Rejection {
    return this.execute({ type: 'tick', ...args }) as TickResult | Rejection;
  }

  // ---------------------------------------------------------------------------------------------
  // Read-only queries (cheap; each returns fresh values)

  /** The store's config (a copy). */
  get config(): Config {
    return { ...this.cfg };
  }
  /** The clock: the largest `now` accepted so far. */
  get clock(): number {
    return this.now;
  }
  /** Number of resident jobs, terminal ones included. */
  get size(): number {
    return this.jobs.size;
  }
  /** One job's canonical record (fresh), or undefined. O(1). */
  job(id: string): JobRecord | undefined {
    return this.jobs.get(id)?.toRecord();
  }
  /** An account's balance (0 when no effect was applied to it). O(1). */
  balance(account: string): number {
    return this.ledgers.get(account)?.balance ?? 0;
  }
  /** All balances of accounts with an effect, keys sorted (fresh). O(a log a). */
  balances(): Record<string, number> {
    const out: Record<string, number> = {};
    for (const account of sortedKeys(this.ledgers))
      put(out, account, (this.ledgers.get(account) as AccountLedger).balance);
    return out;
  }
  /** Number of jobs per status (fresh). O(1). */
  counts(): StatusCounts {
    return { ...this.statusCounts };
  }

  // ---------------------------------------------------------------------------------------------
  // Snapshot

  /**
   * The canonical snapshot: a fresh JSON value sharing nothing with the store (jobs in admission
   * order, accounts and keys sorted). O(n + e log e) for e ledger entries.
   */
  snapshot(): Snapshot {
    const jobs: Record<string, JobRecord> = {};
    for (const job of this.jobs.values()) put(jobs, job.id, job.toRecord());
    const effects: Record<string, Record<string, Effect>> = {};
    for (const account of sortedKeys(this.ledgers)) {
      const ledger = (this.ledgers.get(account) as AccountLedger).effects;
      const copy: Record<string, Effect> = {};
      for (const key of sortedKeys(ledger)) {
        const e = ledger.get(key) as Effect;
        put(copy, key, { amount: e.amount, job: e.job, token: e.token });
      }
      put(effects, account, copy);
    }
    return {
      format: SNAPSHOT_FORMAT,
      config: { ...this.cfg },
      clock: this.now,
      nextToken: this.nextToken,
      nextSeq: this.nextSeq,
      jobs,
      balances: this.balances(),
      effects,
    };
  }

  /** Fills this empty store from a validated snapshot and builds the indexes. O(n log n). */
  protected load(s: Snapshot): void {
    this.now = s.clock;
    this.nextToken = s.nextToken;
    this.nextSeq = s.nextSeq;
    const entries = Object.entries(s.jobs);
    let sorted = true;
    for (let i = 1; i < entries.length && sorted; i++)
      sorted = (entries[i - 1] as [string, JobRecord])[1].seq < (entries[i] as [string, JobRecord])[1].seq;
    if (!sorted) entries.sort(([, a], [, b]) => a.seq - b.seq);
    for (const [id, r] of entries) {
      const p = r.payload;
      const job = new JobEntry(id, p.account, p.key, p.amount, p.deadline, r.seq);
      job.status = r.status;
      job.attempts = r.attempts;
      if (r.status === 'running') {
        job.token = r.token;
        job.owner = r.owner;
        job.leaseUntil = r.leaseUntil;
        this.byToken.set(job.token, job);
      } else if (r.status === 'waiting') {
        job.notBefore = r.notBefore;
      } else if (r.status === 'dead') {
        job.reason = r.reason;
      }
      if (r.lastError !== undefined) job.lastError = r.lastError;
      this.statusCounts[r.status]++;
      this.jobs.set(id, job);
      if (isUnresolvedStatus(r.status)) {
        this.unresolved++;
        this.link(job);
        this.timers.append(this.nextInstant(job), job, job.gen);
      }
    }
    for (const queue of this.accounts.values()) {
      const head = queue.head;
      if (head !== null && head.status === 'ready') this.claimable.append(head.seq, head, head.gen);
    }
    this.timers.heapify();
    this.claimable.heapify();
    for (const [account, entries] of Object.entries(s.effects)) {
      const effects = new Map<string, Effect>();
      for (const [key, e] of Object.entries(entries))
        effects.set(key, { amount: e.amount, job: e.job, token: e.token });
      // The schema guarantees that every account with effects has a balance equal to their sum.
      this.ledgers.set(account, { balance: s.balances[account] as number, effects });
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Step 2: the clock

  /** Moves the clock to `now` and lets every job whose time has come move (deadline first). */
  protected advance(now: number): void {
    this.now = now;
    const timers = this.timers;
    let unmoved: JobEntry[] | undefined;
    while (timers.size > 0 && timers.peekKey() <= now) {
      const job = timers.peekValue();
      const tag = timers.peekTag();
      timers.pop();
      if (tag === job.gen && !this.expire(job, now)) {
        unmoved ??= [];
        unmoved.push(job);
      }
    }
    // A live timer that was due always moves its job; should one not (a variant built for testing
    // may do that), its timer is kept for the next advance rather than re-examined in this loop.
    if (unmoved !== undefined) for (const job of unmoved) this.schedule(job);
  }

  /**
   * One unresolved job hears the clock: deadline, else lease expiry, else end of backoff.
   * Returns whether the job moved.
   */
  protected expire(job: JobEntry, now: number): boolean {
    switch (this.decisions.expiry(this.cfg, job, now)) {
      case 'deadline':
        this.kill(job, 'deadline');
        return true;
      case 'lease_expired':
        this.kill(job, 'lease_expired');
        return true;
      case 'requeue':
        this.endDelivery(job);
        this.makeReady(job);
        return true;
      case 'retry':
        job.notBefore = NO_TIME;
        this.makeReady(job);
        return true;
      case 'none':
        return false;
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Step 3: the commands

  protected applySubmit(c: SubmitCommand): Reply {
    const existing = this.jobs.get(c.id);
    let admission = this.decisions.admission(this.cfg, c, existing, {
      unresolved: this.unresolved,
      nextSeq: this.nextSeq,
    });
    if (admission.type === 'ask') {
      const load = { unresolved: this.unresolved, nextSeq: this.nextSeq, running: this.statusCounts.running };
      admission = this.decisions.admission(this.cfg, c, existing, load);
    }
    if (admission.type === 'duplicate')
      return { ok: true, type: 'submit', id: c.id, seq: admission.seq, duplicate: true };
    if (admission.type === 'refused') return admission.rejection;
    if (admission.type === 'ask') throw new Error(`admission asked for ${admission.fact} twice`);
    const seq = this.nextSeq++;
    const job = new JobEntry(c.id, c.account, c.key, c.amount, c.deadline, seq);
    this.jobs.set(c.id, job);
    this.statusCounts.ready++;
    this.unresolved++;
    if (this.link(job)) this.offer(job);
    this.schedule(job);
    return { ok: true, type: 'submit', id: c.id, seq, duplicate: false };
  }

  protected applyClaim(c: ClaimCommand): Reply {
    const heap = this.claimable;
    while (heap.size > 0 && heap.peekTag() !== heap.peekValue().gen) heap.pop();
    if (heap.size === 0) return claimReply(null);
    const exhausted = this.tokensExhausted();
    if (exhausted !== undefined) return exhausted;
    const job = heap.peekValue();
    heap.pop();
    return this.deliver(job, c);
  }

  /** The refusal of a claim that would hand out a token past the safe-integer range, or undefined while tokens are left. */
  protected tokensExhausted(): Rejection | undefined {
    return this.decisions.claimGate(this.nextToken);
  }

  /** Delivers a ready job to the claiming worker: a new token, one more attempt, a lease. */
  protected deliver(job: JobEntry, c: ClaimCommand): ClaimResult {
    const token = this.nextToken++;
    job.attempts++;
    job.token = token;
    job.owner = c.worker;
    job.leaseUntil = this.decisions.leaseUntil(this.cfg, c.now);
    this.setStatus(job, 'running');
    this.byToken.set(token, job);
    this.schedule(job);
    return claimReply({ id: job.id, token, attempt: job.attempts, leaseUntil: job.leaseUntil, payload: job });
  }

  /** The running job holding the command's token for its worker, or the rejection to reply with. */
  protected delivery(c: CommitCommand | AckCommand | FailCommand): JobEntry | Rejection {
    const job = this.byToken.get(c.token);
    return this.decisions.deliveryCheck(c, job) ?? (job as JobEntry);
  }

  protected applyCommit(c: CommitCommand): Reply {
    const job = this.delivery(c);
    if (!(job instanceof JobEntry)) return job;
    const { account, key, amount } = job;
    let ledger = this.ledgers.get(account);
    const plan = this.decisions.commitPlan(
      job,
      ledger?.effects.get(key)?.amount,
      ledger === undefined ? 0 : ledger.balance,
    );
    if (plan.type !== 'apply') return commitReply(job.id, plan);
    const balance = plan.balance;
    if (ledger === undefined) {
      ledger = { balance, effects: new Map() };
      this.ledgers.set(account, ledger);
    } else {
      ledger.balance = balance;
    }
    ledger.effects.set(key, { amount, job: job.id, token: c.token });
    return commitReply(job.id, plan);
  }

  protected applyAck(c: AckCommand): Reply {
    const job = this.delivery(c);
    if (!(job instanceof JobEntry)) return job;
    this.endDelivery(job);
    this.resolve(job, 'done');
    return { ok: true, type: 'ack', id: job.id };
  }

  protected applyFail(c: FailCommand): Reply {
    const job = this.delivery(c);
    if (!(job instanceof JobEntry)) return job;
    this.endDelivery(job);
    job.lastError = c.error;
    const outcome = this.decisions.failOutcome(this.cfg, c, job);
    if (outcome.status === 'waiting') {
      job.notBefore = outcome.notBefore;
      this.setStatus(job, 'waiting');
      this.schedule(job);
      return { ok: true, type: 'fail', id: job.id, status: 'waiting', notBefore: outcome.notBefore };
    }
    job.reason = outcome.reason;
    this.resolve(job, 'dead');
    return { ok: true, type: 'fail', id: job.id, status: 'dead', reason: outcome.reason };
  }

  protected applyTick(_c: TickCommand): Reply {
    return { ok: true, type: 'tick', clock: this.now };
  }

  // ---------------------------------------------------------------------------------------------
  // Lifecycle helpers: every status change goes through setStatus, which bumps the generation.

  protected setStatus(job: JobEntry, status: JobStatus): void {
    this.statusCounts[job.status]--;
    this.statusCounts[status]++;
    job.status = status;
    job.gen++;
  }

  /** Ends the current delivery: the token is no longer current. */
  protected endDelivery(job: JobEntry): void {
    this.byToken.delete(job.token);
    job.token = NO_TOKEN;
    job.owner = undefined;
    job.leaseUntil = NO_TIME;
  }

  /** An unresolved job dies (from any unresolved status). */
  protected kill(job: JobEntry, reason: 'deadline' | 'lease_expired'): void {
    if (job.status === 'running') this.endDelivery(job);
    job.notBefore = NO_TIME;
    job.reason = reason;
    this.resolve(job, 'dead');
  }

  /** An unresolved job becomes terminal: it leaves its account's FIFO and stops counting. */
  protected resolve(job: JobEntry, status: 'done' | 'dead'): void {
    this.setStatus(job, status);
    this.unresolved--;
    this.unlink(job);
  }

  /** A running or waiting job becomes ready again (it is its account's head). */
  protected makeReady(job: JobEntry): void {
    this.setStatus(job, 'ready');
    this.schedule(job);
    if (job.prev === null) this.offer(job);
  }

  /** The next instant at which an unresolved job may move by itself. */
  protected nextInstant(job: JobEntry): number {
    return dueOf(job) as number;
  }

  /** Registers the job's next instant in the timer heap (under its current generation). */
  protected schedule(job: JobEntry): void {
    const timers = this.timers;
    timers.push(this.nextInstant(job), job, job.gen);
    if (timers.size > 2 * this.unresolved + COMPACT_SLACK) timers.retain((j, tag) => tag === j.gen);
  }

  /** Offers a ready account head to claims (under its current generation). */
  protected offer(job: JobEntry): void {
    const heap = this.claimable;
    heap.push(job.seq, job, job.gen);
    if (heap.size > 2 * this.unresolved + COMPACT_SLACK) heap.retain((j, tag) => tag === j.gen);
  }

  /** Appends a job to its account's FIFO; true when it is the head. */
  protected link(job: JobEntry): boolean {
    const queue = this.accounts.get(job.account);
    if (queue === undefined) {
      this.accounts.set(job.account, { head: job, tail: job });
      return true;
    }
    const tail = queue.tail;
    if (tail === null) {
      queue.head = job;
      queue.tail = job;
      return true;
    }
    tail.next = job;
    job.prev = tail;
    queue.tail = job;
    return false;
  }

  /** Removes a job from its account's FIFO; a new head that is ready is offered to claims. */
  protected unlink(job: JobEntry): void {
    const queue = this.accounts.get(job.account) as AccountQueue;
    const { prev, next } = job;
    if (prev === null) queue.head = next;
    else prev.next = next;
    if (next === null) queue.tail = prev;
    else next.prev = prev;
    job.prev = null;
    job.next = null;
    if (prev === null && queue.head !== null && queue.head.status === 'ready') this.offer(queue.head);
  }
}
