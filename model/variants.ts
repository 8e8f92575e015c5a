/**
 * Named variants of the model. A real queue may keep one rule of the contract differently on
 * purpose (it retries with a jittered delay, or keeps a failed job at the head of its key); a
 * profile then declares that rule as a variant and checks everything else against the model with
 * the variant in place. A variant is part of the specification, not an exception in an adapter:
 * it is the reference store and job machines with a few guards and actions provided differently
 * (xstate's `machine.provide`), stepped by the same step.ts code, so every other rule stays exactly
 * the model's.
 *
 * Each variant replaces one rule (`rule`). A nondeterministic variant (`jittered-backoff`) says
 * which outcomes it allows through `choose`: given the implementation's reply to a step, the
 * choice that reproduces it when it lies within the variant's bounds; the step is then taken with
 * that choice and compared exactly as always, and outside the bounds the model's own bound is
 * taken, so the difference shows. One family takes a parameter: `deduplication-window:<W>`, an id
 * remembered W ticks from its admission (deduplicationWindow), the only variant that keeps state of
 * its own (each job's admission tick, which no snapshot carries).
 */
import { assign } from 'xstate';
import { parseCommand } from '../contract/index.ts';
import type { RuleId } from '../contract/rules.ts';
import { addTime, admittedContext, backoffDelay, jobMachine, policyOf, TIME_MAX } from './jobMachine.ts';
import type { JobContext, JobEvent, JobPolicy } from './jobMachine.ts';
import { machineState } from './machineState.ts';
import { sendToJob } from './sendToJob.ts';
import { buildModel } from './step.ts';
import type { Model, ModelMachines, ModelState, StepChoice } from './step.ts';
import {
  advancedClock,
  claimableHead,
  isUnresolved,
  jobByToken,
  samePayload,
  statusOf,
  storeMachine,
} from './storeMachine.ts';
import type { Admission, JobSnapshot, StoreContext, StoreEvent } from './storeMachine.ts';

/** The names of the model's variants. */
export const VARIANT_NAMES = [
  'failed-job-keeps-blocking',
  'no-account-order',
  'uncapped-backoff',
  'jittered-backoff',
  'jittered-backoff-upward',
  'no-backoff',
  'duplicate-within-visibility',
  'delete-on-receive',
] as const;
/** The family of variants with a deduplication window: `deduplication-window:<W>`, W in ticks (deduplicationWindow). */
export const DEDUPLICATION_WINDOW = 'deduplication-window';
/** One of VARIANT_NAMES, or a deduplication window of some whole number of ticks. */
export type VariantName = (typeof VARIANT_NAMES)[number] | `${typeof DEDUPLICATION_WINDOW}:${number}`;

/** A named variant of the model, replacing one rule of the contract. */
export interface ModelVariant {
  readonly name: VariantName;
  /** The rule of the contract this variant replaces; every other rule is the model's. */
  readonly rule: RuleId;
  /** What the variant says instead, in one sentence. */
  readonly description: string;
  /**
   * Whether an adapter may declare it (docs/declarations.md): only a variant of when or in which
   * order work is handed out. A variant of what a service keeps or loses (a duplicate delivery, a
   * message deleted on receipt) states a documented service (model/documented.ts) and is never
   * declared: on a real queue, that behaviour departs.
   */
  readonly declarable: boolean;
  /** The variant's machines, behind the same functions as the reference model. */
  readonly model: Model;
  /** The variant's store and job machines (which `model` steps). */
  readonly machines: ModelMachines;
  /**
   * Nondeterministic variants only: the choice under which the variant's step gives the
   * implementation's reply `implReply` to `command` in state `before`, when that reply lies within
   * the variant's bounds; undefined otherwise (the step then takes the variant's default, its
   * bound, and a reply outside the bounds differs from it). Pure.
   */
  readonly choose?: (before: ModelState, command: unknown, implReply: unknown) => StepChoice | undefined;
}

// --- Shared pieces: a claim over another choice of job, admission on another lifecycle. ---------

const withJob = (context: StoreContext, job: JobSnapshot): StoreContext['jobs'] =>
  new Map(context.jobs).set(job.context.id, job);

/** A claim's choice of job, as a store machine made by claimingBy makes it. */
type Chooser = (context: StoreContext) => JobSnapshot | undefined;
/** The choice each store machine made by claimingBy makes, so that a later variant can wrap it. */
const CHOOSERS = new WeakMap<object, Chooser>();
/** The choice of job a store machine's claim makes: its claimingBy's, else the contract's. Pure. */
const chooserOf = (store: typeof storeMachine): Chooser => CHOOSERS.get(store) ?? claimableHead;

/**
 * The store machine with `choose` in place of the contract's choice of the job a claim delivers;
 * the delivery itself (token, attempt, lease) is the model's, then `after` (when given) sends the
 * delivered job one more event of its own lifecycle (delete-on-receive's ACK).
 */
function claimingBy(
  store: typeof storeMachine,
  choose: Chooser,
  after?: (job: JobSnapshot) => JobEvent,
): typeof storeMachine {
  const made = store.provide({
    guards: { hasClaimableHead: ({ context }) => choose(context) !== undefined },
    actions: {
      deliverHead: assign(({ context, event }) => {
        const head = choose(context);
        if (event.type !== 'claim' || head === undefined) return {};
        const { job, step } = sendToJob(head, {
          type: 'CLAIM',
          worker: event.worker,
          token: context.nextToken,
          now: event.now,
        });
        const c = job.context;
        const then = after === undefined ? undefined : sendToJob(job, after(job));
        return {
          jobs: withJob(context, then?.job ?? job),
          nextToken: context.nextToken + 1,
          trace: [step, then?.step].filter((s) => s !== undefined),
          reply: {
            ok: true,
            type: 'claim',
            job: {
              id: c.id,
              token: c.token ?? 0,
              attempt: c.attempts,
              leaseUntil: c.leaseUntil ?? 0,
              payload: c.payload,
            },
          },
        };
      }),
    },
  });
  CHOOSERS.set(made, choose);
  return made;
}

/** The store machine whose admitted jobs run on `machine` (a variant of the job lifecycle). */
function admittingTo(store: typeof storeMachine, machine: typeof jobMachine): typeof storeMachine {
  return store.provide({
    actions: {
      admit: assign(({ context, event }) => {
        if (event.type !== 'submit') return {};
        const { id, account, key, amount, deadline } = event;
        const fresh = admittedContext({
          id,
          payload: { account, key, amount, deadline },
          seq: context.nextSeq,
          policy: policyOf(context.config),
        });
        const job = machineState(machine, 'ready', fresh);
        return {
          jobs: withJob(context, job),
          nextSeq: context.nextSeq + 1,
          reply: { ok: true, type: 'submit', id, seq: context.nextSeq, duplicate: false },
        };
      }),
    },
  });
}

// --- failed-job-keeps-blocking -------------------------------------------------------------------

/** Like claimableHead, but a dead job is still its account's head (and blocks it) for ever. */
function headBlockedByDead(context: StoreContext): JobSnapshot | undefined {
  const heads = new Map<string, JobSnapshot>();
  for (const job of [...context.jobs.values()]) {
    if (!isUnresolved(job) && statusOf(job) !== 'dead') continue;
    const head = heads.get(job.context.payload.account);
    if (head === undefined || job.context.seq < head.context.seq) heads.set(job.context.payload.account, job);
  }
  let best: JobSnapshot | undefined;
  for (const head of heads.values())
    if (statusOf(head) === 'ready' && (best === undefined || head.context.seq < best.context.seq)) best = head;
  return best;
}

// --- no-account-order ----------------------------------------------------------------------------

/** The ready job admitted first, store-wide: no per-account order. */
function oldestReady(context: StoreContext): JobSnapshot | undefined {
  let best: JobSnapshot | undefined;
  for (const job of [...context.jobs.values()])
    if (statusOf(job) === 'ready' && (best === undefined || job.context.seq < best.context.seq)) best = job;
  return best;
}

// --- uncapped-backoff and jittered-backoff: the job lifecycle with another retry delay. ----------

/** `backoffBase × 2^(attempts−1)` without the cap, saturating at TIME_MAX. Pure. */
export function uncappedDelay(policy: JobPolicy, attempts: number): number {
  return backoffDelay({ ...policy, backoffCap: TIME_MAX }, attempts);
}

/** The job machine whose retry delay is `delay(context, event)` instead of the contract's. */
function retryingAfter(
  machine: typeof jobMachine,
  delay: (context: JobContext, event: JobEvent) => number,
): typeof jobMachine {
  const now = (event: JobEvent): number => ('now' in event ? event.now : 0);
  return machine.provide({
    guards: {
      retryStartsBeforeDeadline: ({ context, event }) =>
        addTime(now(event), delay(context, event)) < context.payload.deadline,
    },
    actions: {
      scheduleRetry: assign(({ context, event }) => ({ notBefore: addTime(now(event), delay(context, event)) })),
    },
  });
}

/** A jittered retry's delay, as the FAIL event carries it (from the step's choice). */
const chosenDelay = (event: JobEvent): number | undefined => {
  const d = (event as { delay?: unknown }).delay;
  return typeof d === 'number' ? d : undefined;
};

/** The FAIL event a store's `fail` sends its job, with the step's chosen `delay` when it carries one. Pure. */
const failEventOf = (event: StoreEvent & { type: 'fail' }): JobEvent => {
  const delay = (event as StoreEvent & { delay?: unknown }).delay;
  const { worker, token, kind, error, now } = event;
  return { type: 'FAIL', worker, token, kind, error, now, ...(typeof delay === 'number' ? { delay } : {}) } as JobEvent;
};

/** A fail's reply, read off the job the FAIL left (waiting with its notBefore, or dead with its reason). Pure. */
const failReplyOf = (job: JobSnapshot) => {
  const c = job.context;
  return statusOf(job) === 'waiting'
    ? ({ ok: true, type: 'fail', id: c.id, status: 'waiting', notBefore: c.notBefore ?? 0 } as const)
    : ({ ok: true, type: 'fail', id: c.id, status: 'dead', reason: c.reason ?? 'permanent' } as const);
};

/** The store machine that hands the step's chosen `delay` on to the failing job's FAIL event. */
const failingWithChoice = (store: typeof storeMachine): typeof storeMachine =>
  store.provide({
    actions: {
      recordFailure: assign(({ context, event }) => {
        const current = 'token' in event ? jobByToken(context, event.token) : undefined;
        if (event.type !== 'fail' || current === undefined) return {};
        const { job, step } = sendToJob(current, failEventOf(event));
        return { jobs: withJob(context, job), trace: step === undefined ? [] : [step], reply: failReplyOf(job) };
      }),
    },
  });

/** The bounds of a jittered retry delay after the given attempt, in whole ticks. */
type DelayBounds = (policy: JobPolicy, attempts: number) => { readonly lo: number; readonly hi: number };

/** jittered-backoff: from 1 up to the contract's delay. */
const DOWNWARD: DelayBounds = (policy, attempts) => ({ lo: 1, hi: backoffDelay(policy, attempts) });
/** jittered-backoff-upward: from the contract's delay up to twice the uncapped delay, capped: min(2 × backoffBase × 2^(attempts−1), backoffCap). */
const UPWARD: DelayBounds = (policy, attempts) => ({
  lo: backoffDelay(policy, attempts),
  hi: Math.min(policy.backoffCap, 2 * uncappedDelay(policy, attempts)),
});

/**
 * A jittered variant's choice: a transient failure of the current delivery that the
 * implementation answered with `waiting` and a `notBefore` whose delay lies within the bounds is
 * taken with that delay. Without a choice the variant takes the upper bound, so that a `dead`
 * (`no_time_for_retry`) reply is accepted exactly when some delay within the bounds would not fit
 * before the deadline. A delay below 1 is never within bounds: it would leave a waiting job due at
 * the clock, which the contract's states exclude (`clock < notBefore`). Pure.
 */
const jitterChoice =
  (bounds: DelayBounds) =>
  (before: ModelState, command: unknown, implReply: unknown): StepChoice | undefined => {
    const parsed = parseCommand(command);
    if (!parsed.ok || parsed.command.type !== 'fail' || parsed.command.kind !== 'transient') return undefined;
    const c = parsed.command;
    const job = jobByToken(before.context, c.token);
    if (job === undefined || job.context.owner !== c.worker) return undefined;
    const r = implReply as { ok?: unknown; type?: unknown; status?: unknown; notBefore?: unknown } | null;
    if (
      r === null ||
      typeof r !== 'object' ||
      r.ok !== true ||
      r.type !== 'fail' ||
      r.status !== 'waiting' ||
      typeof r.notBefore !== 'number'
    )
      return undefined;
    const delay = r.notBefore - c.now;
    const { lo, hi } = bounds(job.context.policy, job.context.attempts);
    return Number.isSafeInteger(delay) && delay >= Math.max(1, lo) && delay <= hi ? { delay } : undefined;
  };

/** The change of a jittered variant: the job's retry delay is the step's choice, else the upper bound. */
const jittered = (bounds: DelayBounds): Change => ({
  job: (m) => retryingAfter(m, (context, event) => chosenDelay(event) ?? bounds(context.policy, context.attempts).hi),
  store: failingWithChoice,
});

// --- no-backoff: a transient failure makes the job ready again at once. -------------------------

/**
 * The store machine whose failed job, when its retry is due at the failing command's own tick
 * (a delay of 0), is moved on at once: the FAIL leaves it waiting until `now`, and an ADVANCE at
 * `now` makes it ready in the same step, as a queue that requeues a failed message at once does.
 * The reply is the FAIL's (`waiting`, notBefore = now); a job the FAIL killed stays dead.
 */
const readyAtOnce = (store: typeof storeMachine): typeof storeMachine =>
  store.provide({
    actions: {
      recordFailure: assign(({ context, event }) => {
        const current = 'token' in event ? jobByToken(context, event.token) : undefined;
        if (event.type !== 'fail' || current === undefined) return {};
        const failed = sendToJob(current, failEventOf(event));
        const reply = failReplyOf(failed.job);
        // A job the FAIL left waiting is due at once: the ADVANCE at the failing tick makes it ready.
        const due =
          statusOf(failed.job) === 'waiting' ? sendToJob(failed.job, { type: 'ADVANCE', now: event.now }) : failed;
        const trace = [failed.step, ...(due === failed ? [] : [due.step])].filter((s) => s !== undefined);
        return { jobs: withJob(context, due.job), trace, reply };
      }),
    },
  });

// --- duplicate-within-visibility: a claim may deliver a job still running elsewhere. --------------

/**
 * The running job a claim that finds nothing else delivers again (the one admitted first with an
 * attempt left), made ready so that the delivery is the lifecycle's own `ready --CLAIM--> running`:
 * a new token, attempt and lease, the earlier token no longer current (the model keeps one
 * delivery a job). Pure.
 */
function stillRunning(context: StoreContext): JobSnapshot | undefined {
  let best: JobSnapshot | undefined;
  for (const job of context.jobs.values())
    if (
      statusOf(job) === 'running' &&
      job.context.attempts < job.context.policy.maxAttempts &&
      (best === undefined || job.context.seq < best.context.seq)
    )
      best = job;
  if (best === undefined) return undefined;
  const c = best.context;
  return machineState(best.machine, 'ready', { ...c, token: undefined, owner: undefined, leaseUntil: undefined });
}

/** The store machine whose claim, when its own choice finds nothing, delivers a running job again. */
const redelivering = (store: typeof storeMachine): typeof storeMachine => {
  const first = chooserOf(store);
  return claimingBy(store, (context) => first(context) ?? stillRunning(context));
};

// --- delete-on-receive: a claim settles the job it delivers. --------------------------------------

/** The store machine whose claim settles the job as it delivers it: the job is done before any worker could commit. */
const deletingOnReceive = (store: typeof storeMachine): typeof storeMachine =>
  claimingBy(store, chooserOf(store), (job) => ({
    type: 'ACK',
    worker: job.context.owner ?? '',
    token: job.context.token ?? 0,
  }));

// --- deduplication-window:W: an id is remembered W ticks from its admission. ---------------------

const NO_ADMISSIONS: ReadonlyMap<string, Admission> = new Map();

/**
 * The admissions with every job not yet stamped (admitted by the command before, or restored from
 * a snapshot, which holds no admission time) stamped at `context.clock`: the tick of the command
 * that admitted it, or the clock the restored snapshot was taken at. Pure.
 */
function stamped(context: StoreContext): ReadonlyMap<string, Admission> {
  let out: Map<string, Admission> | undefined;
  for (const job of context.jobs.values()) {
    const { id, seq } = job.context;
    if (context.admitted?.get(id)?.seq === seq) continue;
    out ??= new Map(context.admitted);
    out.set(id, { seq, at: context.clock });
  }
  return out ?? context.admitted ?? NO_ADMISSIONS;
}

/**
 * Whether a submit is an exact repeat of a forgotten id: the job under it is settled (done or
 * dead), was admitted `window` ticks or more before the submit's tick, and has the submit's
 * payload. An unresolved job keeps its id (the model holds one job an id, so a second live job
 * under one id has no state to be in); a changed payload stays the contract's conflict. Pure.
 */
function forgottenRepeat(context: StoreContext, event: StoreEvent, window: number): boolean {
  if (event.type !== 'submit') return false;
  const job = context.jobs.get(event.id);
  if (job === undefined || isUnresolved(job) || !samePayload(job, event)) return false;
  const admitted = context.admitted?.get(event.id);
  const at = admitted?.seq === job.context.seq ? admitted.at : context.clock;
  return context.clock >= addTime(at, window);
}

/**
 * The store machine that stamps each job's admission at the next clock advance, and whose exact
 * repeat of a forgotten id (see `forgottenRepeat`) is neither a duplicate nor a conflict: it falls
 * through to the capacity check and admission, and the new job takes the id's record.
 */
const forgettingAfter =
  (window: number) =>
  (store: typeof storeMachine): typeof storeMachine =>
    store.provide({
      guards: {
        isDuplicateSubmit: ({ context, event }) => {
          if (event.type !== 'submit' || forgottenRepeat(context, event, window)) return false;
          const job = context.jobs.get(event.id);
          return job !== undefined && samePayload(job, event);
        },
        isIdTaken: ({ context, event }) =>
          event.type === 'submit' &&
          context.jobs.get(event.id) !== undefined &&
          !forgottenRepeat(context, event, window),
      },
      actions: {
        advanceClock: assign(({ context, event }) =>
          event.type === 'advance' ? { ...advancedClock(context, event.now), admitted: stamped(context) } : {},
        ),
      },
    });

/** How a variant changes the machines: the job lifecycle, the store policy, or both. */
interface Change {
  readonly job?: (machine: typeof jobMachine) => typeof jobMachine;
  readonly store?: (machine: typeof storeMachine) => typeof storeMachine;
}

/** The machines with every change applied; a store whose jobs run on a changed lifecycle admits them on it. Pure. */
function machinesWith(changes: readonly Change[]): ModelMachines {
  let job = jobMachine;
  let store = storeMachine;
  for (const c of changes) {
    if (c.job !== undefined) job = c.job(job);
    if (c.store !== undefined) store = c.store(store);
  }
  return { job, store: job === jobMachine ? store : admittingTo(store, job) };
}

interface VariantSpec extends Omit<ModelVariant, 'model' | 'machines' | 'declarable'> {
  /** Default true; see ModelVariant.declarable. */
  readonly declarable?: boolean;
  readonly change: Change;
}

const SPECS: readonly VariantSpec[] = [
  {
    name: 'failed-job-keeps-blocking',
    rule: 'account-head-only',
    description:
      "A dead job stays its account's head: the account's later jobs are never delivered (done jobs block nothing).",
    change: { store: (m) => claimingBy(m, headBlockedByDead) },
  },
  {
    name: 'no-account-order',
    rule: 'account-head-only',
    description:
      'A claim delivers the ready job admitted first, store-wide: a running or waiting job does not hold back its account.',
    change: { store: (m) => claimingBy(m, oldestReady) },
  },
  {
    name: 'uncapped-backoff',
    rule: 'backoff-capped',
    description: 'The retry delay is backoffBase × 2^(attempts−1) without the cap backoffCap.',
    change: { job: (m) => retryingAfter(m, (context) => uncappedDelay(context.policy, context.attempts)) },
  },
  {
    name: 'jittered-backoff',
    rule: 'backoff-capped',
    description:
      "The retry delay is any whole number of ticks from 1 to the contract's delay; whether a retry fits before the deadline is decided with the delay chosen.",
    change: jittered(DOWNWARD),
    choose: jitterChoice(DOWNWARD),
  },
  {
    name: 'jittered-backoff-upward',
    rule: 'backoff-capped',
    description:
      "The retry delay is any whole number of ticks from the contract's delay up to min(2 × backoffBase × 2^(attempts−1), backoffCap); whether a retry fits before the deadline is decided with the delay chosen.",
    change: jittered(UPWARD),
    choose: jitterChoice(UPWARD),
  },
  {
    name: 'no-backoff',
    rule: 'backoff-capped',
    description:
      "A transient failure with attempts left makes the job ready again at once, at the failing command's tick: the retry delay is 0 (the reply's notBefore is that tick), so a retry is never too late for the deadline.",
    change: { job: (m) => retryingAfter(m, () => 0), store: readyAtOnce },
  },
  {
    name: 'duplicate-within-visibility',
    rule: 'oldest-ready-head-first',
    description:
      "A claim that finds no job to deliver delivers again a job still running under another worker's lease (the one admitted first with an attempt left): a new token, attempt and lease, the earlier token stale.",
    declarable: false,
    change: { store: redelivering },
  },
  {
    name: 'delete-on-receive',
    rule: 'lease-from-claim',
    description:
      'A claim settles the job it delivers: the job is done at once, no lease holds it, and a worker that disappears loses it (its commit, ack or fail finds no current delivery).',
    declarable: false,
    change: { store: deletingOnReceive },
  },
];

const VARIANTS: readonly ModelVariant[] = SPECS.map(({ change, declarable, ...v }) => {
  const machines = machinesWith([change]);
  return { ...v, declarable: declarable ?? true, machines, model: buildModel(machines) };
});

/**
 * The model with several variants in place at once (each replacing its own rule), and the choice
 * of the nondeterministic ones among them. Throws a RangeError when two variants replace the same
 * rule (a programming error: a profile declares one thing per rule). Pure.
 */
export function composeVariants(variants: readonly ModelVariant[]): Pick<ModelVariant, 'model' | 'choose'> {
  const rules = variants.map((v) => v.rule);
  const twice = rules.find((r, i) => rules.indexOf(r) !== i);
  if (twice !== undefined) throw new RangeError(`two variants replace the rule ${twice}`);
  if (variants.length === 0) return { model: buildModel() };
  if (variants.length === 1 && variants[0] !== undefined) return variants[0];
  // In SPECS order whatever the caller's: a variant that wraps another's choice of job
  // (duplicate-within-visibility) comes after it. A deduplication window, which provides what no
  // other variant does (the clock advance, the submit's guards), comes last.
  const specs = SPECS.filter((s) => variants.some((v) => v.name === s.name));
  const windows = variants.flatMap((v) => WINDOW_CHANGES.get(v) ?? []);
  const choosers = specs.map((s) => s.choose).filter((c): c is NonNullable<ModelVariant['choose']> => c !== undefined);
  const model = buildModel(machinesWith([...specs.map((s) => s.change), ...windows]));
  if (choosers.length === 0) return { model };
  return {
    model,
    choose: (before, command, implReply) => {
      let merged: StepChoice | undefined;
      for (const c of choosers) {
        const one = c(before, command, implReply);
        if (one !== undefined) merged = { ...merged, ...one };
      }
      return merged;
    },
  };
}

/** The change of each deduplication window built, by its variant (composeVariants reads it). */
const WINDOW_CHANGES = new WeakMap<ModelVariant, Change>();
/** Each deduplication window built, by its ticks: built once each (a model compiles its machines). */
const WINDOWS = new Map<number, ModelVariant>();

/**
 * The variant `deduplication-window:<ticks>`, in place of duplicate-submit-accepted: an exact
 * repeat is a duplicate only within `ticks` of its id's admission; from then on, once the job under
 * it is settled, the id is forgotten and the repeat is a new job (SQS FIFO's
 * MessageDeduplicationId). Throws a RangeError unless `ticks` is a positive safe integer. Pure.
 */
export function deduplicationWindow(ticks: number): ModelVariant {
  if (!Number.isSafeInteger(ticks) || ticks < 1)
    throw new RangeError(`a deduplication window of ${ticks} ticks: must be a positive whole number`);
  let v = WINDOWS.get(ticks);
  if (v === undefined) {
    const change: Change = { store: forgettingAfter(ticks) };
    const machines = machinesWith([change]);
    v = {
      name: `${DEDUPLICATION_WINDOW}:${ticks}`,
      rule: 'duplicate-submit-accepted',
      description: `An exact repeat of a submit is a duplicate only within ${ticks} ticks of its id's admission; from then on, once the job is done or dead, the id is forgotten: the repeat is a new job, with the next admission number, that takes the id's record (a job still ready, waiting or running keeps its id, and a changed payload stays a conflict). The contract's snapshot holds no admission time: after a restart every job counts as admitted at the clock of the snapshot.`,
      declarable: true,
      machines,
      model: buildModel(machines),
    };
    WINDOWS.set(ticks, v);
    WINDOW_CHANGES.set(v, change);
  }
  return v;
}

/** The window of MODEL_VARIANTS' example of the deduplication-window family, in ticks. */
export const EXAMPLE_WINDOW = 4;

/** Every variant of the model, in VARIANT_NAMES order, then a deduplication window of EXAMPLE_WINDOW ticks. */
export const MODEL_VARIANTS: readonly ModelVariant[] = [...VARIANTS, deduplicationWindow(EXAMPLE_WINDOW)];

const WINDOW_NAME = /^deduplication-window:([1-9][0-9]{0,15})$/;

/** The variant with this name, or undefined (names come from outside: profiles, flags). Pure. */
export function modelVariant(name: string): ModelVariant | undefined {
  const window = WINDOW_NAME.exec(name)?.[1];
  if (window !== undefined)
    return Number.isSafeInteger(Number(window)) ? deduplicationWindow(Number(window)) : undefined;
  return VARIANTS.find((v) => v.name === name);
}
