/**
 * The contract's rules (contract/rules.ts) tied to the model: for each rule, the guards and
 * transitions of the machines (or the step of step.ts) that carry it, and `rulesExercised`, which
 * says which rules decided one step. Profiles and coverage count rules with it, so it names a rule
 * only when the step's outcome depended on it: a capacity decision taken with running jobs in the
 * store exercises `capacity-counts-running`, a submit into an empty store does not.
 *
 * Everything here is read off the machines' own configuration (guard names, transition lists),
 * and conformance/rules.test.ts checks that every guard of the machines belongs to some rule.
 */
import type { DeadReason, JobStatus } from '../contract/index.ts';
import { RULE_IDS } from '../contract/rules.ts';
import type { RuleId } from '../contract/rules.ts';
import { jobMachine } from './jobMachine.ts';
import { actionName, renderGuard, transitionOf } from './lifecycle.ts';
import type { StepResult, ModelState } from './step.ts';
import { storeMachine } from './storeMachine.ts';
import type { JobStep } from './storeMachine.ts';

/** Where the model carries one rule. */
export interface RuleCarrier {
  readonly rule: RuleId;
  /** Guard names, as declared in jobMachine's or storeMachine's `setup({ guards })`. */
  readonly guards: readonly string[];
  /** Lifecycle transitions (model/lifecycle.ts ids, e.g. `running --ADVANCE [leaseExpired]--> ready`). */
  readonly jobTransitions: readonly string[];
  /** Store transitions (storeTransitions() ids, e.g. `store --submit [atCapacity]--> reject(capacity_exceeded)`). */
  readonly storeTransitions: readonly string[];
  /** The part of step.ts (or of the machines outside their transitions) that carries it, when not a transition. */
  readonly step?: string;
}

/** One transition of the store machine, as declared (the store has one state, `open`). */
export interface StoreTransition {
  /** Stable name: `store --<event> [<guard>]--> <action>`. */
  readonly id: string;
  readonly event: string;
  /** The guard as written (`and`, `not` rendered as `&&`, `!`); null when unguarded. */
  readonly guard: string | null;
  /** The actions after `begin`, e.g. `reject(capacity_exceeded)`, `admit`. */
  readonly actions: readonly string[];
  /** Position among the candidates for the same event (first matching guard wins). */
  readonly order: number;
}

let storeCache: readonly StoreTransition[] | undefined;

/** Every transition of the store machine, in declaration order. Pure (computed once). */
export function storeTransitions(): readonly StoreTransition[] {
  if (storeCache !== undefined) return storeCache;
  const list: StoreTransition[] = [];
  const open = storeMachine.root.states['open'];
  for (const [event, defs] of open?.transitions ?? []) {
    defs.forEach((def, order) => {
      const guard = def.guard === undefined ? null : renderGuard(def.guard);
      const actions = def.actions.map(actionName).filter((a) => a !== 'begin');
      list.push({
        id: `store --${event}${guard === null ? '' : ` [${guard}]`}--> ${actions.join(', ')}`,
        event,
        guard,
        actions,
        order,
      });
    });
  }
  storeCache = list;
  return list;
}

/** The guard names declared by the two machines (their `setup({ guards })`). Pure. */
export function machineGuards(): { readonly job: readonly string[]; readonly store: readonly string[] } {
  return {
    job: Object.keys(jobMachine.implementations.guards),
    store: Object.keys(storeMachine.implementations.guards),
  };
}

/** `running --ADVANCE [leaseExpired && !hasAttemptsLeft]--> dead`: the declared transition a job step took, guard as written. Pure. */
export function describeTransition(step: JobStep): string {
  return transitionOf(step).id;
}

const J = {
  readyDeadline: 'ready --ADVANCE [deadlinePassed]--> dead',
  readyClaim: 'ready --CLAIM--> running',
  runningDeadline: 'running --ADVANCE [deadlinePassed]--> dead',
  leaseLast: 'running --ADVANCE [leaseExpired && !hasAttemptsLeft]--> dead',
  leaseRequeue: 'running --ADVANCE [leaseExpired]--> ready',
  commit: 'running --COMMIT [isCurrentDelivery]--> running',
  ack: 'running --ACK [isCurrentDelivery]--> done',
  failPermanent: 'running --FAIL [isCurrentDelivery && isPermanent]--> dead',
  failExhausted: 'running --FAIL [isCurrentDelivery && !hasAttemptsLeft]--> dead',
  failRetry: 'running --FAIL [isCurrentDelivery && retryStartsBeforeDeadline]--> waiting',
  failNoTime: 'running --FAIL [isCurrentDelivery]--> dead',
  waitingDeadline: 'waiting --ADVANCE [deadlinePassed]--> dead',
  backoff: 'waiting --ADVANCE [backoffElapsed]--> ready',
} as const;

const delivery = (code: string): string[] =>
  ['commit', 'ack', 'fail'].map(
    (e) => `store --${e} [${code === 'stale_token' ? 'isStaleToken' : 'isNotOwner'}]--> reject(${code})`,
  );

/** Where the model carries each rule, in RULE_IDS order. */
export const RULE_CARRIERS: readonly RuleCarrier[] = [
  {
    rule: 'malformed-command-refused',
    guards: [],
    jobTransitions: [],
    storeTransitions: [],
    step: 'step: parseCommand (step 1), the state returned unchanged',
  },
  {
    rule: 'clock-never-regresses',
    guards: [],
    jobTransitions: [],
    storeTransitions: [],
    step: 'step: now < clock (step 1), the state returned unchanged',
  },
  {
    rule: 'deadline-kills',
    guards: ['deadlinePassed'],
    jobTransitions: [J.readyDeadline, J.runningDeadline, J.waitingDeadline],
    storeTransitions: ['store --advance--> advanceClock'],
  },
  {
    rule: 'deadline-precedes-lease',
    guards: ['deadlinePassed', 'leaseExpired'],
    jobTransitions: [J.runningDeadline],
    storeTransitions: [],
  },
  {
    rule: 'lease-equality-expires',
    guards: ['leaseExpired'],
    jobTransitions: [J.leaseLast, J.leaseRequeue],
    storeTransitions: [],
  },
  {
    rule: 'expiry-with-attempts-left-requeues',
    guards: ['leaseExpired', 'hasAttemptsLeft'],
    jobTransitions: [J.leaseRequeue],
    storeTransitions: [],
  },
  {
    rule: 'last-attempt-expiry-is-dead',
    guards: ['leaseExpired', 'hasAttemptsLeft'],
    jobTransitions: [J.leaseLast],
    storeTransitions: [],
  },
  { rule: 'backoff-ends-at-not-before', guards: ['backoffElapsed'], jobTransitions: [J.backoff], storeTransitions: [] },
  {
    rule: 'duplicate-submit-accepted',
    guards: ['isDuplicateSubmit'],
    jobTransitions: [],
    storeTransitions: ['store --submit [isDuplicateSubmit]--> replyDuplicate'],
  },
  {
    rule: 'changed-payload-conflicts',
    guards: ['isIdTaken'],
    jobTransitions: [],
    storeTransitions: ['store --submit [isIdTaken]--> reject(conflict)'],
  },
  {
    rule: 'capacity-counts-running',
    guards: ['atCapacity'],
    jobTransitions: [],
    storeTransitions: ['store --submit [atCapacity]--> reject(capacity_exceeded)', 'store --submit--> admit'],
  },
  { rule: 'admission-in-seq-order', guards: [], jobTransitions: [], storeTransitions: ['store --submit--> admit'] },
  {
    rule: 'account-head-only',
    guards: ['hasClaimableHead'],
    jobTransitions: [J.readyClaim],
    storeTransitions: ['store --claim [hasClaimableHead]--> deliverHead', 'store --claim--> replyNothingDue'],
  },
  {
    rule: 'oldest-ready-head-first',
    guards: ['hasClaimableHead'],
    jobTransitions: [J.readyClaim],
    storeTransitions: ['store --claim [hasClaimableHead]--> deliverHead'],
  },
  {
    rule: 'new-token-per-claim',
    guards: [],
    jobTransitions: [J.readyClaim],
    storeTransitions: ['store --claim [hasClaimableHead]--> deliverHead'],
  },
  {
    rule: 'lease-from-claim',
    guards: [],
    jobTransitions: [J.readyClaim],
    storeTransitions: ['store --claim [hasClaimableHead]--> deliverHead'],
  },
  {
    rule: 'stale-token-refused',
    guards: ['isStaleToken'],
    jobTransitions: [],
    storeTransitions: delivery('stale_token'),
  },
  {
    rule: 'owner-checked',
    guards: ['isNotOwner', 'isCurrentDelivery'],
    jobTransitions: [],
    storeTransitions: delivery('not_owner'),
  },
  {
    rule: 'effect-idempotent',
    guards: ['isEffectRecorded'],
    jobTransitions: [J.commit],
    storeTransitions: ['store --commit [isEffectRecorded]--> reuseEffect'],
  },
  {
    rule: 'changed-amount-conflicts',
    guards: ['isEffectConflict'],
    jobTransitions: [],
    storeTransitions: ['store --commit [isEffectConflict]--> reject(conflict)'],
  },
  {
    rule: 'commit-keeps-delivery',
    guards: ['isCurrentDelivery'],
    jobTransitions: [J.commit],
    storeTransitions: ['store --commit [isEffectRecorded]--> reuseEffect', 'store --commit--> applyEffect'],
  },
  {
    rule: 'balance-stays-safe',
    guards: ['balanceWouldOverflow'],
    jobTransitions: [],
    storeTransitions: ['store --commit [balanceWouldOverflow]--> reject(out_of_range)'],
  },
  {
    rule: 'ack-settles-done',
    guards: ['isCurrentDelivery'],
    jobTransitions: [J.ack],
    storeTransitions: ['store --ack--> settle'],
  },
  {
    rule: 'backoff-capped',
    guards: ['retryStartsBeforeDeadline'],
    jobTransitions: [J.failRetry, J.failNoTime],
    storeTransitions: ['store --fail--> recordFailure'],
  },
  {
    rule: 'no-retry-after-deadline',
    guards: ['retryStartsBeforeDeadline'],
    jobTransitions: [J.failNoTime],
    storeTransitions: [],
  },
  { rule: 'permanent-failure-dead', guards: ['isPermanent'], jobTransitions: [J.failPermanent], storeTransitions: [] },
  {
    rule: 'attempts-exhausted-dead',
    guards: ['hasAttemptsLeft'],
    jobTransitions: [J.failExhausted],
    storeTransitions: [],
  },
  {
    rule: 'last-error-kept',
    guards: ['isCurrentDelivery'],
    jobTransitions: [J.failPermanent, J.failExhausted, J.failRetry, J.failNoTime],
    storeTransitions: ['store --fail--> recordFailure'],
  },
  {
    rule: 'tick-advances-clock',
    guards: [],
    jobTransitions: [],
    storeTransitions: ['store --tick--> replyClock', 'store --advance--> advanceClock'],
  },
  {
    rule: 'dead-records-kept',
    guards: [],
    jobTransitions: [],
    storeTransitions: ['store --advance--> advanceClock'],
    step: 'jobMachine: done and dead are final states; advanceClock sends ADVANCE to unresolved jobs only',
  },
  {
    rule: 'counters-stay-safe',
    guards: ['seqExhausted', 'tokensExhausted'],
    jobTransitions: [],
    storeTransitions: [
      'store --submit [seqExhausted]--> reject(out_of_range)',
      'store --claim [hasClaimableHead && tokensExhausted]--> reject(out_of_range)',
    ],
  },
  {
    rule: 'snapshot-restore-round-trip',
    guards: [],
    jobTransitions: [],
    storeTransitions: [],
    step: 'toSnapshot and fromSnapshot (a restart)',
  },
  {
    rule: 'snapshot-is-a-copy',
    guards: [],
    jobTransitions: [],
    storeTransitions: [],
    step: 'toSnapshot builds a fresh value; fromSnapshot copies what it reads',
  },
];

/** The carrier of one rule. Pure. */
export function carrierOf(rule: RuleId): RuleCarrier {
  const found = RULE_CARRIERS.find((c) => c.rule === rule);
  if (found === undefined) throw new Error(`model: no carrier for rule ${JSON.stringify(rule)}`);
  return found;
}

/** The rules a restart (snapshot, JSON text, restore) exercises; rulesExercised is about commands. */
export const RESTART_RULES: readonly RuleId[] = ['snapshot-restore-round-trip'];

/** A job as rulesExercised sees it: fixed facts from the state before, its status after step 2. */
interface JobView {
  readonly id: string;
  readonly seq: number;
  readonly account: string;
  readonly status: JobStatus;
}

const UNRESOLVED: ReadonlySet<JobStatus> = new Set(['ready', 'waiting', 'running']);

/** The jobs after step 2 (the clock advance), in `seq` order, from the state before and the ADVANCE steps of the trace. */
function advancedJobs(before: ModelState, trace: readonly JobStep[]): JobView[] {
  const after = new Map<string, JobStatus>();
  for (const s of trace) if (s.event === 'ADVANCE') after.set(s.job, s.to);
  return [...before.context.jobs.values()]
    .map((j) => ({
      id: j.context.id,
      seq: j.context.seq,
      account: j.context.payload.account,
      status: after.get(j.context.id) ?? (j.value as JobStatus),
    }))
    .sort((a, b) => a.seq - b.seq);
}

/** The job a claim picks from `jobs` (in `seq` order) when `blocks(job)` says which jobs block their account's later jobs. */
function pick(jobs: readonly JobView[], blocks: (j: JobView) => boolean, perAccount: boolean): string | undefined {
  const blocked = new Set<string>();
  for (const j of jobs) {
    if (perAccount && blocked.has(j.account)) continue;
    if (j.status === 'ready') return j.id;
    if (blocks(j)) blocked.add(j.account);
  }
  return undefined;
}

const REASON_RULES: Partial<Record<DeadReason, RuleId>> = {
  permanent: 'permanent-failure-dead',
  attempts_exhausted: 'attempts-exhausted-dead',
  no_time_for_retry: 'no-retry-after-deadline',
};

/**
 * The rules that decided one step of the model: `result` is `step(before, command)`. A rule is
 * named when the outcome depended on it (for example `oldest-ready-head-first` only when two or
 * more heads were ready, `account-head-only` only when a claim that ignored per-account order, or
 * let done and dead jobs block, would have chosen differently). Each rule appears once, in
 * RULE_IDS order. Pure.
 */
export function rulesExercised(before: ModelState, command: unknown, result: StepResult): readonly RuleId[] {
  const out = new Set<RuleId>();
  const reply = result.reply;
  if (!reply.ok && reply.code === 'invalid_argument') return ['malformed-command-refused'];
  if (!reply.ok && reply.code === 'clock_regressed') return ['clock-never-regresses'];
  const now = result.state.context.clock;
  const type = (command as { type: string }).type;

  // Step 2: what the clock advance did to each job.
  for (const s of result.trace) {
    const job = before.context.jobs.get(s.job)?.context;
    if (job === undefined) continue;
    if (s.event === 'ADVANCE') {
      if (job.lastError !== undefined) out.add('last-error-kept');
      if (s.reason === 'deadline') {
        out.add('deadline-kills');
        if (s.from === 'running' && job.leaseUntil !== undefined && now >= job.leaseUntil)
          out.add('deadline-precedes-lease');
      } else if (s.from === 'running') {
        out.add(s.to === 'dead' ? 'last-attempt-expiry-is-dead' : 'expiry-with-attempts-left-requeues');
        if (now === job.leaseUntil) out.add('lease-equality-expires');
      } else if (s.from === 'waiting') out.add('backoff-ends-at-not-before');
    }
    if (s.event === 'FAIL') {
      out.add('last-error-kept');
      const byReason = s.reason === undefined ? undefined : REASON_RULES[s.reason];
      if (byReason !== undefined) out.add(byReason);
      if (s.to === 'waiting' || s.reason === 'no_time_for_retry') out.add('backoff-capped');
    }
  }

  // Step 3: the command's decision. Only submit and claim look at the other jobs.
  const jobs = type === 'submit' || type === 'claim' ? advancedJobs(before, result.trace) : [];
  const unresolved = jobs.filter((j) => UNRESOLVED.has(j.status));
  const terminal = jobs.length - unresolved.length;
  switch (type) {
    case 'submit': {
      const id = (command as { id: string }).id;
      const existing = jobs.find((j) => j.id === id);
      if (existing !== undefined && !UNRESOLVED.has(existing.status)) out.add('dead-records-kept');
      if (reply.ok && reply.type === 'submit')
        out.add(reply.duplicate ? 'duplicate-submit-accepted' : 'admission-in-seq-order');
      // A known id admitted again: a deduplication window's answer to the repeat (variants.ts).
      if (existing !== undefined && reply.ok && reply.type === 'submit' && !reply.duplicate)
        out.add('duplicate-submit-accepted');
      if (!reply.ok && reply.code === 'conflict') out.add('changed-payload-conflicts');
      if (!reply.ok && reply.code === 'out_of_range') out.add('counters-stay-safe');
      const capacityDecided =
        (reply.ok && reply.type === 'submit' && !reply.duplicate) ||
        (!reply.ok && (reply.code === 'capacity_exceeded' || reply.code === 'out_of_range'));
      if (capacityDecided) {
        if (unresolved.some((j) => j.status === 'running')) out.add('capacity-counts-running');
        const capacity = before.context.config.capacity;
        if (unresolved.length < capacity && unresolved.length + terminal >= capacity) out.add('dead-records-kept');
      }
      break;
    }
    case 'claim': {
      if (!reply.ok && reply.code === 'out_of_range') out.add('counters-stay-safe');
      const chosen = pick(unresolved, () => true, true);
      const fifo = pick(unresolved, () => false, false);
      const terminalBlocks = pick(jobs, (j) => j.status !== 'ready', true);
      if (chosen !== fifo || chosen !== terminalBlocks) out.add('account-head-only');
      if (reply.ok && reply.type === 'claim' && reply.job !== null) {
        out.add('new-token-per-claim');
        out.add('lease-from-claim');
        const heads = new Map<string, JobView>();
        for (const j of unresolved) if (!heads.has(j.account)) heads.set(j.account, j);
        if ([...heads.values()].filter((h) => h.status === 'ready').length >= 2) out.add('oldest-ready-head-first');
      }
      break;
    }
    case 'commit':
    case 'ack':
    case 'fail': {
      if (!reply.ok && reply.code === 'stale_token') out.add('stale-token-refused');
      if (!reply.ok && reply.code === 'not_owner') out.add('owner-checked');
      if (type === 'commit' && !reply.ok && reply.code === 'conflict') out.add('changed-amount-conflicts');
      if (type === 'commit' && !reply.ok && reply.code === 'out_of_range') out.add('balance-stays-safe');
      if (reply.ok && reply.type === 'commit') {
        out.add('commit-keeps-delivery');
        if (!reply.applied) out.add('effect-idempotent');
      }
      if (reply.ok && reply.type === 'ack') out.add('ack-settles-done');
      break;
    }
    case 'tick':
      if (reply.ok) out.add('tick-advances-clock');
      break;
    default:
      break;
  }
  return RULE_IDS.filter((id) => out.has(id));
}
