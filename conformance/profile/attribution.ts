/**
 * Which rule a divergence departs from. A run departs on rule R only when the model's step at the
 * diverging step exercised R (model/rules.ts) and the field that differs is one R decides
 * (RULE_FIELDS below); anything else is recorded as unattributed, never guessed.
 *
 * Two stages, in the contract's order:
 * 1. The clock advance (step 2). For every job the advance moved, the implementation's own record
 *    of it (in its snapshot) is held against the model's: a job the implementation left running
 *    under its old token at `now == leaseUntil` departs on `lease-equality-expires`; a job whose
 *    status or reason after the advance is not the model's departs on the rule of the transition
 *    the model took (deadline, lease expiry with or without attempts left, end of backoff).
 * 2. The command (step 3). A refusal only one side gives is filed under the rule whose check
 *    gives it (REFUSED_BY), a capacity refusal under `capacity-counts-running` whatever the other
 *    side said. Otherwise the first differing field (the reply's, else the snapshot's) goes to the
 *    first rule exercised by the step that decides it, in RULE_PRIORITY order (the specific before
 *    the general: `effect-idempotent` before `commit-keeps-delivery`); a claim that delivered
 *    another job departs on `account-head-only` (a job that is no head of its account, or none)
 *    or on `oldest-ready-head-first` (another ready head).
 */
import type { JobRecord, JobStatus } from '../../contract/index.ts';
import { RULE_IDS } from '../../contract/rules.ts';
import type { RuleId } from '../../contract/rules.ts';
import type { Difference } from '../lockstep/compare.ts';
import type { Divergence, ModelStepView } from '../lockstep/index.ts';
import { codeOf } from '../../contract/index.ts';

/** The fields of a reply or snapshot one rule decides, as a test on the differing path. */
export interface RuleFields {
  /** Reply fields (paths below `reply.`, e.g. `job.token`); `*` for every field. */
  readonly reply: readonly string[];
  /** Snapshot fields: `nextToken`, `jobs.*.token` (any job), `balances`, `effects` (anything below); `*` for every field. */
  readonly snapshot: readonly string[];
}

const ANY: RuleFields = { reply: ['*'], snapshot: ['*'] };
const JOB_OUTCOME = [
  'jobs.*.status',
  'jobs.*.reason',
  'jobs.*.notBefore',
  'jobs.*.token',
  'jobs.*.owner',
  'jobs.*.leaseUntil',
  'jobs.*',
];
const FAIL_OUTCOME: RuleFields = { reply: ['status', 'reason', 'notBefore'], snapshot: JOB_OUTCOME };
const CLAIM_CHOICE: RuleFields = {
  reply: ['job', 'job.id', 'job.payload', 'job.attempt', 'job.leaseUntil', 'job.token', 'code', 'ok'],
  snapshot: ['jobs.*', 'nextToken'],
};
const REFUSAL: RuleFields = { reply: ['*'], snapshot: ['jobs.*', 'balances', 'effects', 'nextToken', 'nextSeq'] };

/**
 * The fields each rule decides. A profile attributes a difference in such a field to the rule
 * when the model's step exercised it. Step-2 rules are attributed by the job they moved (stage 1
 * above); their entries here serve the reply of the command that follows the advance.
 */
export const RULE_FIELDS: Readonly<Record<RuleId, RuleFields>> = {
  'malformed-command-refused': ANY,
  'clock-never-regresses': ANY,
  'deadline-kills': { reply: ['*'], snapshot: JOB_OUTCOME },
  'deadline-precedes-lease': { reply: ['*'], snapshot: JOB_OUTCOME },
  'lease-equality-expires': { reply: ['*'], snapshot: JOB_OUTCOME },
  'expiry-with-attempts-left-requeues': { reply: ['*'], snapshot: JOB_OUTCOME },
  'last-attempt-expiry-is-dead': { reply: ['*'], snapshot: JOB_OUTCOME },
  'backoff-ends-at-not-before': { reply: ['*'], snapshot: JOB_OUTCOME },
  'duplicate-submit-accepted': { reply: ['*'], snapshot: ['jobs.*', 'nextSeq'] },
  'changed-payload-conflicts': { reply: ['*'], snapshot: ['jobs.*', 'nextSeq'] },
  'capacity-counts-running': { reply: ['*'], snapshot: ['jobs.*', 'nextSeq'] },
  'admission-in-seq-order': { reply: ['*'], snapshot: ['jobs.*', 'nextSeq'] },
  'account-head-only': CLAIM_CHOICE,
  'oldest-ready-head-first': CLAIM_CHOICE,
  'new-token-per-claim': { reply: ['job.token'], snapshot: ['jobs.*.token', 'nextToken'] },
  'lease-from-claim': {
    reply: ['job.leaseUntil', 'job.attempt'],
    snapshot: ['jobs.*.leaseUntil', 'jobs.*.attempts', 'jobs.*.owner', 'jobs.*.status'],
  },
  'stale-token-refused': REFUSAL,
  'owner-checked': REFUSAL,
  'effect-idempotent': { reply: ['*'], snapshot: ['balances', 'effects'] },
  'changed-amount-conflicts': { reply: ['*'], snapshot: ['balances', 'effects'] },
  'commit-keeps-delivery': { reply: ['*'], snapshot: ['jobs.*', 'balances', 'effects'] },
  'balance-stays-safe': { reply: ['*'], snapshot: ['balances', 'effects'] },
  'ack-settles-done': { reply: ['*'], snapshot: ['jobs.*'] },
  'backoff-capped': FAIL_OUTCOME,
  'no-retry-after-deadline': FAIL_OUTCOME,
  'permanent-failure-dead': FAIL_OUTCOME,
  'attempts-exhausted-dead': FAIL_OUTCOME,
  'last-error-kept': { reply: [], snapshot: ['jobs.*.lastError'] },
  'tick-advances-clock': { reply: ['*'], snapshot: ['clock'] },
  'dead-records-kept': { reply: ['*'], snapshot: ['jobs.*', 'nextSeq'] },
  'counters-stay-safe': { reply: ['*'], snapshot: ['nextSeq', 'nextToken'] },
  'snapshot-restore-round-trip': ANY,
  'snapshot-is-a-copy': ANY,
};

const STEP2_RULES: readonly RuleId[] = [
  'deadline-precedes-lease',
  'lease-equality-expires',
  'deadline-kills',
  'last-attempt-expiry-is-dead',
  'expiry-with-attempts-left-requeues',
  'backoff-ends-at-not-before',
];

/** Order of preference when several exercised rules decide the differing field: the specific before the general. */
export const RULE_PRIORITY: readonly RuleId[] = [
  'malformed-command-refused',
  'clock-never-regresses',
  'snapshot-restore-round-trip',
  'snapshot-is-a-copy',
  'counters-stay-safe',
  'duplicate-submit-accepted',
  'changed-payload-conflicts',
  'dead-records-kept',
  'capacity-counts-running',
  'admission-in-seq-order',
  'account-head-only',
  'oldest-ready-head-first',
  'new-token-per-claim',
  'lease-from-claim',
  'stale-token-refused',
  'owner-checked',
  'effect-idempotent',
  'changed-amount-conflicts',
  'balance-stays-safe',
  'commit-keeps-delivery',
  'ack-settles-done',
  'permanent-failure-dead',
  'attempts-exhausted-dead',
  'no-retry-after-deadline',
  'backoff-capped',
  'last-error-kept',
  'tick-advances-clock',
  ...STEP2_RULES,
];

/** True when `field` (a pattern of RuleFields) covers `path`. Pure. */
function covers(field: string, path: string): boolean {
  if (field === '*') return true;
  const f = field.split('.');
  const p = path.split('.');
  if (f.length > p.length) return false;
  // `jobs.*` covers every job and everything below it; `jobs.*.token` the token of any job; `balances` everything below.
  return (
    f.every((part, i) => part === '*' || part === p[i]) &&
    (f.length === p.length || f[f.length - 1] === '*' || f.length < p.length)
  );
}

/** True when `rule` decides the differing field `d` (a reply path starts with `reply`). Pure. */
export function decides(rule: RuleId, d: Difference): boolean {
  const fields = RULE_FIELDS[rule];
  if (d.path === 'reply' || d.path.startsWith('reply.')) {
    const path = d.path === 'reply' ? '' : d.path.slice('reply.'.length);
    return fields.reply.some((f) => f === '*' || (path !== '' && covers(f, path)) || (path === '' && f !== ''));
  }
  // A snapshot that is not an object at all (or a missing top-level field) is everyone's.
  return fields.snapshot.some((f) => d.path === '' || covers(f, d.path));
}

/** The implementation's record of one job in its snapshot, when it has one. */
function implJob(divergence: Divergence, id: string): Partial<JobRecord> | undefined {
  const s = divergence.implSnapshot as { jobs?: Record<string, Partial<JobRecord>> } | undefined;
  const job = s?.jobs !== undefined && Object.hasOwn(s.jobs, id) ? s.jobs[id] : undefined;
  return typeof job === 'object' && job !== null ? job : undefined;
}

/** Stage 1: a job the clock advance moved that the implementation did not move the same way. */
function advanceDeparture(
  view: ModelStepView,
  divergence: Divergence,
  exercised: readonly RuleId[],
  implReply: unknown,
): RuleId | undefined {
  const result = view.result;
  if (result === undefined || divergence.implSnapshot === undefined) return undefined;
  const now = result.state.context.clock;
  for (const s of result.trace) {
    if (s.event !== 'ADVANCE') continue;
    const was = view.before.context.jobs.get(s.job)?.context;
    const impl = implJob(divergence, s.job);
    if (was === undefined || impl === undefined) continue;
    const leaseOver = was.leaseUntil !== undefined && now >= was.leaseUntil;
    // The implementation still took the old delivery as current: its job kept the old token, or it accepted a settling command under it.
    const command = view.command as { token?: unknown } | undefined;
    const accepted = command?.token === was.token && (implReply as { ok?: unknown } | undefined)?.ok === true;
    const treatedCurrent = (impl.status === 'running' && impl.token === was.token) || accepted;
    if (s.reason === 'deadline') {
      if (impl.status === 'dead' && impl.reason === 'deadline') continue;
      if (s.from === 'running' && leaseOver && exercised.includes('deadline-precedes-lease'))
        return 'deadline-precedes-lease';
      return 'deadline-kills';
    }
    if (s.from === 'running') {
      if (treatedCurrent && now === was.leaseUntil) return 'lease-equality-expires';
      if (s.to === 'dead' && (impl.status !== 'dead' || impl.reason !== 'lease_expired'))
        return 'last-attempt-expiry-is-dead';
      if (s.to === 'ready' && (treatedCurrent || impl.status === 'waiting' || (impl.status === 'dead' && !accepted)))
        return 'expiry-with-attempts-left-requeues';
      continue;
    }
    if (s.from === 'waiting' && impl.status === 'waiting') return 'backoff-ends-at-not-before';
  }
  return undefined;
}

/** For a claim that delivered another job: did the implementation deliver a ready head of another account? */
function claimDeparture(view: ModelStepView, implReply: unknown, exercised: readonly RuleId[]): RuleId | undefined {
  const command = view.command as { type?: unknown } | undefined;
  if (command?.type !== 'claim' || view.result === undefined) return undefined;
  const delivered = (implReply as { job?: { id?: unknown } | null } | undefined)?.job;
  const id = delivered === null || delivered === undefined ? undefined : delivered.id;
  // Heads after the advance (before the delivery): the earliest unresolved job of each account.
  const heads = new Map<string, string>();
  const ordered = [...view.before.context.jobs.values()].sort((a, b) => a.context.seq - b.context.seq);
  const trace = view.result.trace;
  const advanced = (job: (typeof ordered)[number]): JobStatus =>
    (trace.find((t) => t.job === job.context.id && t.event === 'ADVANCE')?.to ?? job.value) as JobStatus;
  for (const job of ordered) {
    const status = advanced(job);
    if (status !== 'ready' && status !== 'waiting' && status !== 'running') continue;
    if (!heads.has(job.context.payload.account)) heads.set(job.context.payload.account, job.context.id);
  }
  const isHead = typeof id === 'string' && [...heads.values()].includes(id);
  // The model's choice had an earlier, terminal job in its account: skipping it means the
  // implementation let that done or dead job block (account-head-only), not a wrong order.
  const chosen = (view.result.reply as { job?: { id?: unknown } | null }).job?.id;
  const chosenJob = typeof chosen === 'string' ? view.before.context.jobs.get(chosen) : undefined;
  const behindTerminal =
    chosenJob !== undefined &&
    ordered.some(
      (j) =>
        j.context.payload.account === chosenJob.context.payload.account &&
        j.context.seq < chosenJob.context.seq &&
        (advanced(j) === 'done' || advanced(j) === 'dead'),
    );
  // Only heads are candidates of every claim: a delivered job that is no head departs on account-head-only.
  if (typeof id === 'string' && !isHead) return 'account-head-only';
  const preferred: RuleId = isHead && !behindTerminal ? 'oldest-ready-head-first' : 'account-head-only';
  const other: RuleId = preferred === 'account-head-only' ? 'oldest-ready-head-first' : 'account-head-only';
  if (exercised.includes(preferred)) return preferred;
  return exercised.includes(other) ? other : undefined;
}

const VALIDATION: Readonly<Record<string, RuleId>> = {
  invalid_argument: 'malformed-command-refused',
  clock_regressed: 'clock-never-regresses',
};
const DELIVERY: Readonly<Record<string, RuleId>> = {
  stale_token: 'stale-token-refused',
  not_owner: 'owner-checked',
};

/** For each command, the rule whose check refuses it with each code (docs/contract.md, sections 5 and 7). */
export const REFUSED_BY: Readonly<Record<string, Readonly<Record<string, RuleId>>>> = {
  submit: {
    ...VALIDATION,
    conflict: 'changed-payload-conflicts',
    capacity_exceeded: 'capacity-counts-running',
    out_of_range: 'counters-stay-safe',
  },
  claim: { ...VALIDATION, out_of_range: 'counters-stay-safe' },
  commit: { ...VALIDATION, ...DELIVERY, conflict: 'changed-amount-conflicts', out_of_range: 'balance-stays-safe' },
  ack: { ...VALIDATION, ...DELIVERY },
  fail: { ...VALIDATION, ...DELIVERY },
  tick: VALIDATION,
};

/**
 * The rule a refusal breaks, when the two replies differ in it: a capacity refusal on either side
 * is `capacity-counts-running`'s, and a refusal only one side gives is the rule whose check gives
 * it (REFUSED_BY), when the step exercised or carried that rule. Pure.
 */
function refusalDeparture(view: ModelStepView, implReply: unknown, exercised: readonly RuleId[]): RuleId | undefined {
  const model = codeOf(view.result?.reply);
  const impl = codeOf(implReply);
  if (model === impl) return undefined;
  const type = (view.command as { type?: unknown } | undefined)?.type;
  const checks = typeof type === 'string' && Object.hasOwn(REFUSED_BY, type) ? REFUSED_BY[type] : undefined;
  const ruleOf = (code: unknown): RuleId | undefined =>
    typeof code === 'string' && checks !== undefined && Object.hasOwn(checks, code) ? checks[code] : undefined;
  const capacity: RuleId = 'capacity-counts-running';
  const rule =
    model === 'capacity_exceeded' || impl === 'capacity_exceeded'
      ? capacity
      : model === undefined
        ? ruleOf(impl)
        : impl === undefined
          ? ruleOf(model)
          : undefined;
  return rule !== undefined && exercised.includes(rule) ? rule : undefined;
}

/**
 * Rules the model's step carried although rulesExercised (which names the rules that decided the
 * step's outcome) leaves them out: every capacity decision is `capacity-counts-running`'s (its
 * sentence is the whole capacity check, running jobs or not), and every terminal record the model
 * still holds is kept by `dead-records-kept`, and a `lastError` is `last-error-kept`'s whatever set
 * it. Pure.
 */
function carriedRules(view: ModelStepView, divergence: Divergence, implReply: unknown): RuleId[] {
  const out: RuleId[] = [];
  const code = (r: unknown): unknown => codeOf(r);
  if (code(view.result?.reply) === 'capacity_exceeded' || code(implReply) === 'capacity_exceeded')
    out.push('capacity-counts-running');
  const d = divergence.snapshot;
  const m = d === undefined ? undefined : /^jobs\.([^.]+)$/.exec(d.path);
  const status = (d?.model as { status?: unknown } | undefined)?.status;
  if (m !== null && m !== undefined && d?.impl === undefined && (status === 'done' || status === 'dead'))
    out.push('dead-records-kept');
  // lastError is only ever the text of an accepted fail: set by anything else, it is that rule's.
  if (d !== undefined && /^jobs\.[^.]+\.lastError$/.test(d.path)) out.push('last-error-kept');
  return out;
}

/**
 * The rule a divergence departs from, or null when no rule exercised by the diverging step
 * decides the differing field (an implementation error, or a difference the rules do not place).
 * `exercised` is the diverging step's rules. Pure.
 */
export function attributeDivergence(
  divergence: Divergence,
  view: ModelStepView | null,
  exercised: readonly RuleId[],
  implReply: unknown,
): RuleId | null {
  if (divergence.kind === 'impl_error' || view === null) return null;
  // The aliasing check after the last step: a snapshot that is not the caller's own value.
  if (divergence.kind === 'alias') return 'snapshot-is-a-copy';
  if (view.command === undefined)
    return exercised.includes('snapshot-restore-round-trip') ? 'snapshot-restore-round-trip' : null;
  exercised = [...exercised, ...carriedRules(view, divergence, implReply).filter((r) => !exercised.includes(r))];
  const advance = advanceDeparture(view, divergence, exercised, implReply);
  if (advance !== undefined && exercised.includes(advance)) return advance;
  const d = divergence.reply ?? divergence.snapshot;
  if (d === undefined) return null;
  // A lastError is decided by last-error-kept alone, whatever else the step did (a refusal, an expiry).
  if (/^jobs\.[^.]+\.lastError$/.test(d.path)) return exercised.includes('last-error-kept') ? 'last-error-kept' : null;
  if (divergence.reply !== undefined) {
    const refusal = refusalDeparture(view, implReply, exercised);
    if (refusal !== undefined) return refusal;
  }
  if (
    d.path.startsWith('reply.job') ||
    d.path === 'reply' ||
    (d.path.startsWith('jobs.') && (view.command as { type?: unknown }).type === 'claim')
  ) {
    const claim = claimDeparture(view, implReply, exercised);
    if (
      claim !== undefined &&
      decides(claim, d) &&
      (d.path.startsWith('reply') ? !/^reply\.job\.(token|leaseUntil|attempt)$/.test(d.path) : true)
    )
      return claim;
  }
  const step3 = RULE_PRIORITY.filter((r) => !STEP2_RULES.includes(r));
  for (const rule of step3) if (exercised.includes(rule) && decides(rule, d)) return rule;
  return null;
}

/** Every rule id, checked against the tables at load (a rule without fields or priority is a defect of this file). */
for (const id of RULE_IDS) {
  if (!RULE_PRIORITY.includes(id)) throw new Error(`profile: rule ${id} has no place in RULE_PRIORITY`);
}
