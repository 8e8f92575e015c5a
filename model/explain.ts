/**
 * Why one step of the model came out as it did: the guard that decided each part of it and the
 * values that guard compared, as data and as a sentence a learner can check by hand ("the lease
 * runs until 5; now is 4"). The prediction game of `jobcheck demo --predict` and the lab answer a
 * wrong guess with these sentences.
 *
 * Everything is read off the model's own values: the state before the step, the command, and the
 * step's result (its reply, its job transitions, the state after). Nothing comes from an
 * implementation. Each rule that `rulesExercised` names for the step gets an explanation of its own;
 * a rule this file has no sentence for gets its title, marked `generic`, so a test can find it.
 * Beside the rules, a step that left a job where it was says why, when a reader would ask: a claim
 * that delivered nothing names what holds every job back, and the `focus` job, when it did not
 * move, says what it waits for.
 */
import type { ClaimCommand, JobStatus, SubmitCommand } from '../contract/index.ts';
import { ruleOf } from '../contract/rules.ts';
import type { RuleId } from '../contract/rules.ts';
import { backoffDelay } from './jobMachine.ts';
import type { JobContext } from './jobMachine.ts';
import { rulesExercised } from './rules.ts';
import type { ModelState, StepResult } from './step.ts';
import { statusOf } from './storeMachine.ts';
import type { JobStep } from './storeMachine.ts';

/** One reason of a step: the guard (a machine guard name) that decided it, its values, and the sentence. */
export interface Explanation {
  /** The contract rule this reason is about, or null for a "why nothing moved" reason no rule names. */
  readonly rule: RuleId | null;
  /** The deciding guard as the machines name it (`leaseExpired`, `atCapacity`, ...), or the step of step.ts. */
  readonly guard: string;
  /** The job it is about, when it is about one. */
  readonly job?: string;
  /** The values the guard compared, by name. */
  readonly values: Readonly<Record<string, number | string | null>>;
  /** The reason in words, values included. */
  readonly sentence: string;
  /** True when this file has no sentence of its own for the rule and gives the rule's title instead. */
  readonly generic?: true;
}

/** Options of explainStep. */
export interface ExplainOptions {
  /** The job a reader follows: when the step leaves it where it was, say why. */
  readonly focus?: string;
}

type Values = Record<string, number | string | null>;
const q = (s: string): string => JSON.stringify(s);

function reason(rule: RuleId | null, guard: string, values: Values, sentence: string, job?: string): Explanation {
  return job === undefined ? { rule, guard, values, sentence } : { rule, guard, job, values, sentence };
}

/** The retry formula with its values: `now + min(base·2^(attempts−1), cap) = …`. Pure. */
function retrySum(c: JobContext, now: number): { readonly text: string; readonly at: number } {
  const delay = backoffDelay(c.policy, c.attempts);
  const { backoffBase: base, backoffCap: cap } = c.policy;
  const at = now + delay;
  return {
    text: `now + min(base·2^(attempts−1), cap) = ${now} + min(${base}·2^${c.attempts - 1}, ${cap}) = ${now} + ${delay} = ${at}`,
    at,
  };
}

/** Reasons for the job transitions of a step (the clock advance, and a failure's outcome). */
function transitionReasons(
  before: ModelState,
  trace: readonly JobStep[],
  now: number,
  rules: Set<RuleId>,
): Explanation[] {
  const out: Explanation[] = [];
  const has = (r: RuleId): RuleId | null => (rules.has(r) ? r : null);
  for (const s of trace) {
    const c = before.context.jobs.get(s.job)?.context;
    if (c === undefined) continue;
    const id = s.job;
    if (s.event === 'ADVANCE') {
      if (s.reason === 'deadline') {
        out.push(
          reason(
            has('deadline-kills'),
            'deadlinePassed',
            { deadline: c.payload.deadline, now },
            `job ${id}'s deadline is ${c.payload.deadline}; now is ${now}: it is dead (deadline)`,
            id,
          ),
        );
        if (s.from === 'running' && c.leaseUntil !== undefined && now >= c.leaseUntil)
          out.push(
            reason(
              has('deadline-precedes-lease'),
              'deadlinePassed && leaseExpired',
              { deadline: c.payload.deadline, leaseUntil: c.leaseUntil, now },
              `job ${id}'s lease ran until ${c.leaseUntil} too, but the deadline ${c.payload.deadline} comes first: dead, not requeued`,
              id,
            ),
          );
      } else if (s.from === 'running') {
        const lease = c.leaseUntil ?? 0;
        const used = `attempts ${c.attempts} of ${c.policy.maxAttempts} used`;
        if (s.to === 'dead')
          out.push(
            reason(
              has('last-attempt-expiry-is-dead'),
              'leaseExpired && !hasAttemptsLeft',
              { leaseUntil: lease, now, attempts: c.attempts, maxAttempts: c.policy.maxAttempts },
              `job ${id}'s lease ran until ${lease}; now is ${now}, and ${used}: it is dead (lease_expired)`,
              id,
            ),
          );
        else
          out.push(
            reason(
              has('expiry-with-attempts-left-requeues'),
              'leaseExpired',
              { leaseUntil: lease, now, attempts: c.attempts, maxAttempts: c.policy.maxAttempts },
              `job ${id}'s lease ran until ${lease}; now is ${now} (${used}): it is ready again, its token ${c.token ?? '-'} no longer current`,
              id,
            ),
          );
        if (now === lease)
          out.push(
            reason(
              has('lease-equality-expires'),
              'leaseExpired',
              { leaseUntil: lease, now },
              `the lease ends at ${lease} and now is ${now}: a lease has expired at the tick it ends`,
              id,
            ),
          );
      } else if (s.from === 'waiting') {
        const due = c.notBefore ?? 0;
        out.push(
          reason(
            has('backoff-ends-at-not-before'),
            'backoffElapsed',
            { notBefore: due, now },
            `job ${id} was due again at ${due}; now is ${now}: it is ready`,
            id,
          ),
        );
      }
      if (c.lastError !== undefined && rules.has('last-error-kept'))
        out.push(
          reason(
            'last-error-kept',
            'recordError',
            { lastError: c.lastError },
            `job ${id} keeps its last error ${q(c.lastError)}`,
            id,
          ),
        );
    }
    if (s.event === 'FAIL') {
      const used = { attempts: c.attempts, maxAttempts: c.policy.maxAttempts };
      if (s.reason === 'permanent')
        out.push(
          reason(
            has('permanent-failure-dead'),
            'isPermanent',
            { kind: 'permanent' },
            `the failure is permanent: job ${id} is dead, whatever attempts are left`,
            id,
          ),
        );
      else if (s.reason === 'attempts_exhausted')
        out.push(
          reason(
            has('attempts-exhausted-dead'),
            '!hasAttemptsLeft',
            used,
            `attempts ${c.attempts} of ${c.policy.maxAttempts} are used: no attempt is left, job ${id} is dead`,
            id,
          ),
        );
      else {
        const sum = retrySum(c, now);
        const values = {
          now,
          attempts: c.attempts,
          base: c.policy.backoffBase,
          cap: c.policy.backoffCap,
          retryAt: sum.at,
        };
        if (s.to === 'waiting')
          out.push(
            reason(
              has('backoff-capped'),
              'retryStartsBeforeDeadline',
              { ...values, deadline: c.payload.deadline },
              `retry at ${sum.text}, before the deadline ${c.payload.deadline}: job ${id} waits until ${sum.at}`,
              id,
            ),
          );
        else {
          out.push(
            reason(
              has('no-retry-after-deadline'),
              '!retryStartsBeforeDeadline',
              { ...values, deadline: c.payload.deadline },
              `a retry would start at ${sum.text}, not before the deadline ${c.payload.deadline}: job ${id} is dead (no_time_for_retry)`,
              id,
            ),
          );
          if (rules.has('backoff-capped'))
            out.push(
              reason(
                'backoff-capped',
                'retryStartsBeforeDeadline',
                values,
                `the delay is min(${c.policy.backoffBase}·2^${c.attempts - 1}, ${c.policy.backoffCap}) = ${sum.at - now}`,
                id,
              ),
            );
        }
      }
      if (rules.has('last-error-kept'))
        out.push(
          reason('last-error-kept', 'recordError', {}, `job ${id} keeps the worker's error text as its last error`, id),
        );
    }
  }
  return out;
}

interface JobAfter {
  readonly id: string;
  readonly c: JobContext;
  readonly status: JobStatus;
}

const UNRESOLVED: ReadonlySet<JobStatus> = new Set(['ready', 'waiting', 'running']);

/** The jobs after the step, in admission order. */
function jobsAfter(state: ModelState): JobAfter[] {
  return [...state.context.jobs.values()]
    .map((j) => ({ id: j.context.id, c: j.context, status: statusOf(j) }))
    .sort((a, b) => a.c.seq - b.c.seq);
}

/** Why a job that did not move stays where it is (running: the lease; waiting: the backoff; ready: its account's order). */
function whyStill(job: JobAfter, jobs: readonly JobAfter[], now: number, rules: Set<RuleId>): Explanation | undefined {
  const { id, c } = job;
  if (job.status === 'running')
    return reason(
      null,
      '!leaseExpired',
      { leaseUntil: c.leaseUntil ?? null, now, token: c.token ?? null },
      `job ${id} is running under token ${c.token}: the lease runs until ${c.leaseUntil}; now is ${now}`,
      id,
    );
  if (job.status === 'waiting')
    return reason(
      null,
      '!backoffElapsed',
      { notBefore: c.notBefore ?? null, now },
      `job ${id} is waiting: it is due at ${c.notBefore}; now is ${now}`,
      id,
    );
  if (job.status === 'ready') {
    const earlier = jobs.find(
      (o) => o.c.payload.account === c.payload.account && o.c.seq < c.seq && UNRESOLVED.has(o.status),
    );
    if (earlier !== undefined)
      return reason(
        rules.has('account-head-only') ? 'account-head-only' : null,
        'hasClaimableHead',
        { account: c.payload.account, earlier: earlier.id, earlierStatus: earlier.status },
        `job ${id} is ready, but job ${earlier.id}, an earlier job of account ${q(c.payload.account)}, is not done (it is ${earlier.status})`,
        id,
      );
  }
  return undefined;
}

/** Reasons for the command's own decision (step 3). */
function commandReasons(
  before: ModelState,
  command: unknown,
  result: StepResult,
  rules: Set<RuleId>,
  focus: string | undefined,
): Explanation[] {
  const out: Explanation[] = [];
  const after = result.state.context;
  const now = after.clock;
  const reply = result.reply;
  const cmd = command as { readonly type: string; readonly token?: number; readonly worker?: string };
  const jobs = jobsAfter(result.state);
  const has = (r: RuleId): RuleId | null => (rules.has(r) ? r : null);
  switch (cmd.type) {
    case 'submit': {
      const c = command as SubmitCommand;
      // A rejection changes nothing after the clock advance, so `after` is the store the guards read;
      // an admission added one job, which the count below leaves out.
      const others = jobs.filter((j) => j.id !== c.id || !reply.ok || (reply.type === 'submit' && reply.duplicate));
      const unresolved = others.filter((j) => UNRESOLVED.has(j.status));
      const running = unresolved.filter((j) => j.status === 'running').length;
      const count =
        unresolved.length === 0
          ? 'no job is ready, waiting or running'
          : `${unresolved.length} job${unresolved.length === 1 ? ' is' : 's are'} ready, waiting or running (${running} running)`;
      const capacity = after.config.capacity;
      if (reply.ok && reply.type === 'submit' && reply.duplicate)
        out.push(
          reason(
            has('duplicate-submit-accepted'),
            'isDuplicateSubmit',
            { id: c.id, seq: reply.seq },
            `job ${c.id} exists with exactly this payload: a repeat, accepted again with its seq ${reply.seq}`,
            c.id,
          ),
        );
      else if (reply.ok && reply.type === 'submit') {
        out.push(
          reason(
            has('capacity-counts-running'),
            '!atCapacity',
            { unresolved: unresolved.length, running, capacity },
            `${count}; the capacity is ${capacity}: there is room`,
            c.id,
          ),
        );
        out.push(
          reason(
            has('admission-in-seq-order'),
            'admit',
            { seq: reply.seq },
            `job ${c.id} is admitted, ready, with the next admission number ${reply.seq}`,
            c.id,
          ),
        );
      } else if (!reply.ok && reply.code === 'conflict') {
        const p = before.context.jobs.get(c.id)?.context.payload;
        out.push(
          reason(
            has('changed-payload-conflicts'),
            'isIdTaken',
            { id: c.id },
            `job ${c.id} exists with another payload (${JSON.stringify(p)}): a changed resubmission is refused`,
            c.id,
          ),
        );
      } else if (!reply.ok && reply.code === 'capacity_exceeded')
        out.push(
          reason(
            has('capacity-counts-running'),
            'atCapacity',
            { unresolved: unresolved.length, running, capacity },
            `${count}; the capacity is ${capacity}: no room`,
            c.id,
          ),
        );
      else if (!reply.ok && reply.code === 'out_of_range')
        out.push(
          reason(
            has('counters-stay-safe'),
            'seqExhausted',
            { nextSeq: after.nextSeq },
            `the next admission number is ${after.nextSeq}: one more would leave the safe-integer range`,
          ),
        );
      if (rules.has('dead-records-kept')) {
        const kept = others.filter((j) => !UNRESOLVED.has(j.status));
        const existing = before.context.jobs.get(c.id);
        out.push(
          reason(
            'dead-records-kept',
            existing !== undefined ? 'isIdTaken' : '!atCapacity',
            { kept: kept.length },
            existing !== undefined
              ? `job ${c.id}'s record is kept after it ended (${statusOf(existing)}), so its id is still taken`
              : `${kept.length} ended job${kept.length === 1 ? ' is' : 's are'} kept as records, and they do not count against the capacity`,
            c.id,
          ),
        );
      }
      break;
    }
    case 'claim': {
      const c = command as ClaimCommand;
      const unresolved = jobs.filter((j) => UNRESOLVED.has(j.status));
      if (reply.ok && reply.type === 'claim' && reply.job !== null) {
        const got = reply.job;
        const heads = new Map<string, JobAfter>();
        // The heads as the claim saw them: the chosen job was ready then.
        for (const j of unresolved.map((u) => (u.id === got.id ? { ...u, status: 'ready' as const } : u)))
          if (!heads.has(j.c.payload.account)) heads.set(j.c.payload.account, j);
        const ready = [...heads.values()].filter((h) => h.status === 'ready').map((h) => h.id);
        out.push(
          reason(
            has('new-token-per-claim'),
            'hasClaimableHead',
            { job: got.id, token: got.token },
            `job ${got.id} is delivered to ${q(c.worker)} under a new token, ${got.token} (attempt ${got.attempt})`,
            got.id,
          ),
        );
        out.push(
          reason(
            has('lease-from-claim'),
            'startDelivery',
            { now, leaseTicks: after.config.leaseTicks, leaseUntil: got.leaseUntil },
            `its lease runs until now + leaseTicks = ${now} + ${after.config.leaseTicks} = ${got.leaseUntil}`,
            got.id,
          ),
        );
        if (rules.has('oldest-ready-head-first'))
          out.push(
            reason(
              'oldest-ready-head-first',
              'hasClaimableHead',
              { heads: ready.join(', ') },
              `of the ready heads of their accounts (${ready.join(', ')}), job ${got.id} was admitted first`,
              got.id,
            ),
          );
      } else if (reply.ok && reply.type === 'claim') {
        if (unresolved.length === 0)
          out.push(
            reason(null, '!hasClaimableHead', { unresolved: 0 }, 'nothing is due: no job is ready, waiting or running'),
          );
        else
          out.push(
            reason(
              null,
              '!hasClaimableHead',
              { unresolved: unresolved.length },
              'nothing is due: no ready job heads its account',
            ),
          );
      } else if (!reply.ok && reply.code === 'out_of_range')
        out.push(
          reason(
            has('counters-stay-safe'),
            'tokensExhausted',
            { nextToken: after.nextToken },
            `the next token is ${after.nextToken}: one more would leave the safe-integer range`,
          ),
        );
      // Every job that a claim passed over, and why.
      const chosen = reply.ok && reply.type === 'claim' ? reply.job?.id : undefined;
      for (const j of unresolved) {
        if (j.id === chosen) continue;
        const why = whyStill(j, jobs, now, rules);
        if (why !== undefined && (reply.ok && reply.type === 'claim' && reply.job === null ? true : why.rule !== null))
          out.push(why);
      }
      const head = jobs.find((j) => j.id === chosen);
      if (head !== undefined && rules.has('account-head-only') && !out.some((e) => e.rule === 'account-head-only')) {
        const ended = jobs.filter(
          (j) => j.c.payload.account === head.c.payload.account && j.c.seq < head.c.seq && !UNRESOLVED.has(j.status),
        );
        out.push(
          reason(
            'account-head-only',
            'hasClaimableHead',
            { account: head.c.payload.account, ended: ended.map((j) => j.id).join(', ') },
            ended.length === 0
              ? `job ${head.id} is the earliest unresolved job of account ${q(head.c.payload.account)}: its head`
              : `job ${head.id} heads account ${q(head.c.payload.account)}: its earlier job${ended.length === 1 ? '' : 's'} (${ended.map((j) => `${j.id}, ${j.status}`).join('; ')}) ended and hold${ended.length === 1 ? 's' : ''} nothing back`,
            head.id,
          ),
        );
      }
      break;
    }
    case 'commit':
    case 'ack':
    case 'fail': {
      const token = cmd.token ?? 0;
      const worker = cmd.worker ?? '';
      if (!reply.ok && reply.code === 'stale_token') {
        // The job the token belonged to: the one that held it before the step (its lease ran out
        // in this step's clock advance), else the job the reader follows.
        const holder =
          [...before.context.jobs.values()].find((j) => j.context.token === token)?.context.id ?? focus ?? null;
        const job = holder === null ? undefined : after.jobs.get(holder);
        const current = job?.context.token;
        const sentence =
          job === undefined
            ? `the token is ${token}; no running job holds it`
            : current !== undefined
              ? `the token is ${token}; job ${holder}'s current token is ${current}`
              : `the token is ${token}; job ${holder} has no current delivery (it is ${statusOf(job)})`;
        out.push(
          reason(
            has('stale-token-refused'),
            'isStaleToken',
            { token, current: current ?? null },
            sentence,
            job === undefined ? undefined : (holder ?? undefined),
          ),
        );
        break;
      }
      const job = [...after.jobs.values()].find((j) => j.context.token === token);
      const beforeJob = [...before.context.jobs.values()].find((j) => j.context.token === token);
      const id = (job ?? beforeJob)?.context.id;
      if (!reply.ok && reply.code === 'not_owner') {
        const owner = job?.context.owner ?? null;
        out.push(
          reason(
            has('owner-checked'),
            'isNotOwner',
            { token, owner, worker },
            `token ${token} is held by worker ${q(owner ?? '')}, not ${q(worker)}`,
            id,
          ),
        );
        break;
      }
      const p = (job ?? beforeJob)?.context.payload;
      const effect = p === undefined ? undefined : before.context.effects.get(p.account)?.get(p.key);
      const balanceBefore = p === undefined ? 0 : (before.context.balances.get(p.account) ?? 0);
      if (cmd.type === 'commit' && reply.ok && reply.type === 'commit') {
        out.push(
          reason(
            has('commit-keeps-delivery'),
            'isCurrentDelivery',
            { token, worker },
            `token ${token} is job ${reply.id}'s current delivery, held by ${q(worker)}: the commit is taken, and the job stays running under token ${token}`,
            reply.id,
          ),
        );
        if (reply.applied)
          out.push(
            reason(
              null,
              '!isEffectRecorded',
              { before: balanceBefore, amount: p?.amount ?? 0, balance: reply.balance },
              `the effect (${q(p?.account ?? '')}, ${q(p?.key ?? '')}) is new: balance ${balanceBefore} + ${p?.amount} = ${reply.balance}`,
              reply.id,
            ),
          );
        else
          out.push(
            reason(
              has('effect-idempotent'),
              'isEffectRecorded',
              { amount: effect?.amount ?? null, token: effect?.token ?? null, balance: reply.balance },
              `the ledger already holds (${q(p?.account ?? '')}, ${q(p?.key ?? '')}) with amount ${effect?.amount}, from job ${effect?.job}'s token ${effect?.token}: not applied again, the balance stays ${reply.balance}`,
              reply.id,
            ),
          );
      } else if (cmd.type === 'commit' && !reply.ok && reply.code === 'conflict')
        out.push(
          reason(
            has('changed-amount-conflicts'),
            'isEffectConflict',
            { recorded: effect?.amount ?? null, amount: p?.amount ?? null },
            `the ledger holds (${q(p?.account ?? '')}, ${q(p?.key ?? '')}) with amount ${effect?.amount}; this job's amount is ${p?.amount}`,
            id,
          ),
        );
      else if (cmd.type === 'commit' && !reply.ok && reply.code === 'out_of_range')
        out.push(
          reason(
            has('balance-stays-safe'),
            'balanceWouldOverflow',
            { balance: balanceBefore, amount: p?.amount ?? null },
            `balance ${balanceBefore} + ${p?.amount} would leave the safe-integer range`,
            id,
          ),
        );
      else if (reply.ok && reply.type === 'ack')
        out.push(
          reason(
            has('ack-settles-done'),
            'isCurrentDelivery',
            { token, worker },
            `token ${token} is job ${reply.id}'s current delivery, held by ${q(worker)}: job ${reply.id} is done, committed or not`,
            reply.id,
          ),
        );
      break;
    }
    case 'tick':
      if (reply.ok)
        out.push(
          reason(
            has('tick-advances-clock'),
            'advance',
            { from: before.context.clock, now },
            `the clock moves from ${before.context.clock} to ${now}; nothing else is asked`,
          ),
        );
      break;
    default:
      break;
  }
  return out;
}

/**
 * The reasons of one step of the model: `result` is `step(before, command)`. First the validation
 * (a refused command says why and nothing else), then the clock advance's transitions, then the
 * command's decision, then why the focus job stayed where it was when it did not move. Every rule
 * `rulesExercised` names gets at least one reason. Pure.
 */
export function explainStep(
  before: ModelState,
  command: unknown,
  result: StepResult,
  options: ExplainOptions = {},
): readonly Explanation[] {
  const reply = result.reply;
  if (!reply.ok && reply.code === 'invalid_argument')
    return [
      reason(
        'malformed-command-refused',
        'parseCommand',
        { message: reply.message },
        `the command is refused: ${reply.message}`,
      ),
    ];
  if (!reply.ok && reply.code === 'clock_regressed') {
    const now = (command as { now?: unknown }).now;
    return [
      reason(
        'clock-never-regresses',
        'now >= clock',
        { clock: before.context.clock, now: typeof now === 'number' ? now : null },
        `the clock is ${before.context.clock}; now is ${String(now)}: time never runs backwards, nothing changes`,
      ),
    ];
  }
  const rules = new Set(rulesExercised(before, command, result));
  const now = result.state.context.clock;
  const out = [
    ...transitionReasons(before, result.trace, now, rules),
    ...commandReasons(before, command, result, rules, options.focus),
  ];
  const focus = options.focus;
  if (focus !== undefined && !result.trace.some((s) => s.job === focus) && !out.some((e) => e.job === focus)) {
    const jobs = jobsAfter(result.state);
    const job = jobs.find((j) => j.id === focus);
    const why = job === undefined ? undefined : whyStill(job, jobs, now, rules);
    if (why !== undefined) out.push(why);
  }
  for (const r of rules)
    if (!out.some((e) => e.rule === r))
      out.push({ rule: r, guard: '', values: {}, sentence: ruleOf(r).title, generic: true });
  return out;
}

/** The reason of a restart: the snapshot went through JSON text into a fresh store, counters kept. Pure. */
export function explainRestart(state: ModelState): readonly Explanation[] {
  const c = state.context;
  return [
    reason(
      'snapshot-restore-round-trip',
      'toSnapshot, fromSnapshot',
      { clock: c.clock, nextToken: c.nextToken, nextSeq: c.nextSeq },
      `a restart restores the snapshot as it was: clock ${c.clock}, next token ${c.nextToken}, next seq ${c.nextSeq}, every job and the ledger`,
    ),
  ];
}

/** The reason of an aliasing check: a snapshot (or the object a store was restored from) shares nothing with the store. Pure. */
export function explainSnapshotCopy(): readonly Explanation[] {
  return [
    reason(
      'snapshot-is-a-copy',
      'toSnapshot, fromSnapshot',
      {},
      'a snapshot is a fresh copy: changing it, or the object a store was restored from, leaves the store as it was',
    ),
  ];
}
