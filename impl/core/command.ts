/**
 * The command core of the durable stores: steps 1b to 3 of one command (the clock check, the
 * advance over due jobs, the command's decisions) as a generator that asks for storage
 * operations (`ask`, StorageRequest.ts) and returns the reply. It does no I/O: the SQLite store
 * drives it synchronously inside better-sqlite3's transaction function (runSync.ts), the
 * PostgreSQL store asynchronously inside its transaction (runAsync.ts), each answering with its
 * own statements, locks and token guards. The decisions are impl/decisions' pure functions; the
 * order of reads and writes is this file's, once for both stores.
 *
 * - The order of requests matters for the fault points and, on PostgreSQL, for which rows are
 *   locked when: the counters are read by the caller (PostgreSQL: the meta row `FOR UPDATE`,
 *   first), then the due jobs, then the command's reads and writes, then the counters are
 *   written if they changed.
 * - Step 2 handles the due jobs in `due` order rather than seq order, which is equivalent for the
 *   reason impl/memory/JobStore.ts gives: each job's outcome depends only on its own fields and
 *   `now`, and each moves at most once per advance.
 */
import type {
  AckCommand,
  Command,
  CommitCommand,
  Config,
  FailCommand,
  Rejection,
  Reply,
  TickCommand,
} from '../../contract/index.ts';
import type { Decisions, Load } from '../decisions/index.ts';
import { claimReply, clockRegressed, commitReply } from '../decisions/index.ts';
import type { Counters, Job } from '../durable/index.ts';
import { ask } from './ask.ts';
import type { CoreRun, Guard } from './StorageRequest.ts';

/** What the core decides with: the store's config and its decisions. */
export interface CoreContext {
  readonly cfg: Config;
  readonly decisions: Decisions;
}

/**
 * Steps 1b, 2 and 3 of command `c` over counters `m` (read by the caller inside its transaction,
 * changed here in place): the reply, with every change asked for as a request.
 */
export function* runCommand(ctx: CoreContext, m: Counters, c: Command): CoreRun<Reply> {
  const before = { clock: m.clock, nextToken: m.nextToken, nextSeq: m.nextSeq, unresolved: m.unresolved };
  const refused = yield* advanceClock(ctx, m, c.now);
  if (refused !== undefined) return refused;
  const reply = c.type === 'tick' ? ({ ok: true, type: 'tick', clock: m.clock } as const) : yield* decide(ctx, m, c);
  yield* writeCounters(m, before);
  return reply;
}

/** Step 1b and 2: refuses a `now` before the clock, else moves the clock and every job whose time has come. */
export function* advanceClock(ctx: CoreContext, m: Counters, now: number): CoreRun<Rejection | undefined> {
  if (now < m.clock) return clockRegressed(now, m.clock);
  if (now > m.clock) {
    m.clock = now;
    const due = yield* ask({ op: 'due', now });
    for (const job of due) yield* expire(ctx, m, job, now);
  }
  return undefined;
}

/** Writes the counters when the command changed them. */
export function* writeCounters(m: Counters, before: Counters): CoreRun<void> {
  if (
    m.clock !== before.clock ||
    m.nextToken !== before.nextToken ||
    m.nextSeq !== before.nextSeq ||
    m.unresolved !== before.unresolved
  ) {
    yield { op: 'setCounters', counters: m };
  }
}

/** Step 3: the command's decisions. */
function decide(ctx: CoreContext, m: Counters, c: Exclude<Command, TickCommand>): CoreRun<Reply> {
  switch (c.type) {
    case 'submit':
      return submit(ctx, m, c);
    case 'claim':
      return claim(ctx, m, c);
    case 'commit':
      return commit(ctx, c);
    case 'ack':
      return ack(ctx, m, c);
    case 'fail':
      return fail(ctx, m, c);
  }
}

/** One unresolved job hears the clock (impl/decisions/expiry.ts). */
function* expire(ctx: CoreContext, m: Counters, job: Job, now: number): CoreRun<void> {
  switch (ctx.decisions.expiry(ctx.cfg, job, now)) {
    case 'deadline':
      return yield* kill(m, job, 'deadline');
    case 'lease_expired':
      return yield* kill(m, job, 'lease_expired');
    case 'requeue':
      endDelivery(job);
      return yield* makeReady(job);
    case 'retry':
      job.notBefore = null;
      return yield* makeReady(job);
    case 'none':
      return;
  }
}

function* submit(ctx: CoreContext, m: Counters, c: Extract<Command, { type: 'submit' }>): CoreRun<Reply> {
  const existing = yield* ask({ op: 'byId', id: c.id });
  let admission = ctx.decisions.admission(ctx.cfg, c, existing, m);
  if (admission.type === 'ask') {
    const load: Load = {
      unresolved: m.unresolved,
      nextSeq: m.nextSeq,
      running: yield* ask({ op: 'countRunning' }),
    };
    admission = ctx.decisions.admission(ctx.cfg, c, existing, load);
  }
  if (admission.type === 'duplicate')
    return { ok: true, type: 'submit', id: c.id, seq: admission.seq, duplicate: true };
  if (admission.type === 'refused') return admission.rejection;
  if (admission.type === 'ask') throw new Error(`admission asked for ${admission.fact} twice`);
  const seq = m.nextSeq++;
  const head = (yield* ask({ op: 'accountHead', account: c.account })) === undefined;
  const job: Job = {
    seq,
    id: c.id,
    account: c.account,
    key: c.key,
    amount: c.amount,
    deadline: c.deadline,
    status: 'ready',
    attempts: 0,
    token: null,
    owner: null,
    leaseUntil: null,
    notBefore: null,
    reason: null,
    lastError: null,
    claimable: head,
  };
  yield { op: 'insertJob', job };
  m.unresolved += 1;
  return { ok: true, type: 'submit', id: c.id, seq, duplicate: false };
}

function* claim(ctx: CoreContext, m: Counters, c: Extract<Command, { type: 'claim' }>): CoreRun<Reply> {
  const job = yield* ask({ op: 'claimHead' });
  if (job === undefined) return claimReply(null);
  const refused = ctx.decisions.claimGate(m.nextToken);
  if (refused !== undefined) return refused;
  const token = m.nextToken++;
  const leaseUntil = ctx.decisions.leaseUntil(ctx.cfg, c.now);
  job.attempts += 1;
  job.token = token;
  job.owner = c.worker;
  job.leaseUntil = leaseUntil;
  job.status = 'running';
  job.claimable = false;
  yield { op: 'saveJob', job, guard: undefined };
  return claimReply({ id: job.id, token, attempt: job.attempts, leaseUntil, payload: job });
}

/** The delivery check: the running job holding the command's token for its worker, or the rejection to reply with. */
export function* delivery(ctx: CoreContext, c: CommitCommand | AckCommand | FailCommand): CoreRun<Job | Rejection> {
  const job = yield* ask({ op: 'byToken', token: c.token });
  const refused = ctx.decisions.deliveryCheck(c, job);
  if (refused !== undefined) return refused;
  if (job === undefined) throw new Error(`the delivery check passed token ${c.token}, which no job holds`);
  return job;
}

function* commit(ctx: CoreContext, c: CommitCommand): CoreRun<Reply> {
  const job = yield* delivery(ctx, c);
  if ('ok' in job) return job;
  const recorded = yield* ask({ op: 'effect', account: job.account, key: job.key });
  const before = (yield* ask({ op: 'balance', account: job.account })) ?? 0;
  const plan = ctx.decisions.commitPlan(job, recorded, before);
  if (plan.type === 'apply')
    yield { op: 'recordEffect', job, guard: guardOf(c), balance: plan.balance, replaces: plan.replaces };
  return commitReply(job.id, plan);
}

function* ack(ctx: CoreContext, m: Counters, c: AckCommand): CoreRun<Reply> {
  const job = yield* delivery(ctx, c);
  if ('ok' in job) return job;
  endDelivery(job);
  yield* resolve(m, job, 'done', guardOf(c));
  return { ok: true, type: 'ack', id: job.id };
}

function* fail(ctx: CoreContext, m: Counters, c: FailCommand): CoreRun<Reply> {
  const job = yield* delivery(ctx, c);
  if ('ok' in job) return job;
  endDelivery(job);
  job.lastError = c.error;
  const outcome = ctx.decisions.failOutcome(ctx.cfg, c, job);
  if (outcome.status === 'waiting') {
    job.notBefore = outcome.notBefore;
    job.status = 'waiting';
    yield { op: 'saveJob', job, guard: guardOf(c) };
    return { ok: true, type: 'fail', id: job.id, status: 'waiting', notBefore: outcome.notBefore };
  }
  job.reason = outcome.reason;
  yield* resolve(m, job, 'dead', guardOf(c));
  return { ok: true, type: 'fail', id: job.id, status: 'dead', reason: outcome.reason };
}

const guardOf = (c: CommitCommand | AckCommand | FailCommand): Guard => ({ token: c.token, worker: c.worker });

/** Ends the current delivery: the token is no longer current (the caller saves). */
function endDelivery(job: Job): void {
  job.token = null;
  job.owner = null;
  job.leaseUntil = null;
}

/** An unresolved job dies by the clock (from any unresolved status). */
function* kill(m: Counters, job: Job, reason: 'deadline' | 'lease_expired'): CoreRun<void> {
  if (job.status === 'running') endDelivery(job);
  job.notBefore = null;
  job.reason = reason;
  yield* resolve(m, job, 'dead', undefined);
}

/** An unresolved job becomes terminal: it stops counting, and its account's next job may become claimable. */
export function* resolve(m: Counters, job: Job, status: 'done' | 'dead', guard: Guard | undefined): CoreRun<void> {
  job.status = status;
  job.claimable = false;
  yield { op: 'saveJob', job, guard };
  m.unresolved -= 1;
  const head = yield* ask({ op: 'accountHead', account: job.account });
  if (head !== undefined && head.status === 'ready') yield { op: 'makeClaimable', seq: head.seq };
}

/** A running or waiting job becomes ready again; being its account's head, it is claimable. */
function* makeReady(job: Job): CoreRun<void> {
  job.status = 'ready';
  job.claimable = true;
  yield { op: 'saveJob', job, guard: undefined };
}
