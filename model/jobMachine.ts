/**
 * The lifecycle of one job, as an xstate v5 machine. This is the heart of the specification: every
 * state a job can be in and every transition between them, each with its named guard, is visible
 * here. Time is explicit: the store sends `ADVANCE { now }` to every unresolved job before it
 * applies a command (step 2 of the contract), so the machine has no timers, delays or invocations.
 *
 * Guards are ordered: in a list of candidate transitions for one event, the first whose guard
 * holds is taken, which is how the contract's precedence rules (deadline before lease, permanent
 * before attempts, ...) are written down.
 *
 * Store-wide concerns (capacity, per-account order, token numbering, the effect ledger, rejection
 * codes) are not here: they live in storeMachine.ts, which composes this machine.
 */
import { and, assign, not, setup } from 'xstate';
import type { SnapshotFrom } from 'xstate';
import type { Config, DeadReason, FailureKind, Payload } from '../contract/index.ts';
import { machineState } from './machineState.ts';
import type { MachineState } from './machineState.ts';

/** The parts of the store config a job's own transitions depend on. */
export type JobPolicy = Pick<Config, 'maxAttempts' | 'leaseTicks' | 'backoffBase' | 'backoffCap'>;

/** What a job remembers. Fields that only mean something in some states are `undefined` elsewhere. */
export interface JobContext {
  readonly id: string;
  readonly payload: Payload;
  readonly seq: number;
  readonly policy: JobPolicy;
  readonly attempts: number;
  readonly token: number | undefined;
  readonly owner: string | undefined;
  readonly leaseUntil: number | undefined;
  readonly notBefore: number | undefined;
  readonly reason: DeadReason | undefined;
  readonly lastError: string | undefined;
}

/** Input that creates a job, in state `ready` (submission) or, on restore, in any state. */
export interface JobInput {
  readonly id: string;
  readonly payload: Payload;
  readonly seq: number;
  readonly policy: JobPolicy;
}

/** Events a job reacts to. The store has already checked arguments and resolved the token to this job. */
export type JobEvent =
  | { readonly type: 'ADVANCE'; readonly now: number }
  | { readonly type: 'CLAIM'; readonly worker: string; readonly token: number; readonly now: number }
  | { readonly type: 'COMMIT'; readonly worker: string; readonly token: number }
  | { readonly type: 'ACK'; readonly worker: string; readonly token: number }
  | {
      readonly type: 'FAIL';
      readonly worker: string;
      readonly token: number;
      readonly kind: FailureKind;
      readonly error: string;
      readonly now: number;
    };

/** Largest time value; sums of times saturate here rather than leave the safe-integer range. */
export const TIME_MAX = Number.MAX_SAFE_INTEGER;

/**
 * The retry delay after the given attempt: `min(backoffBase * 2^(attempts-1), backoffCap)`,
 * computed without overflow however large `attempts` is. Pure.
 */
export function backoffDelay(policy: JobPolicy, attempts: number): number {
  let delay = policy.backoffBase;
  for (let i = 1; i < attempts && delay < policy.backoffCap; i++) delay *= 2;
  return Math.min(delay, policy.backoffCap);
}

/** `a + b` for non-negative times, saturating at TIME_MAX. Pure. */
export function addTime(a: number, b: number): number {
  return a > TIME_MAX - b ? TIME_MAX : a + b;
}

/** Stands in for the input of the inert actor that pure transitions are given (pureTransition.ts). */
const PLACEHOLDER: JobInput = {
  id: '',
  payload: { account: '', key: '', amount: 0, deadline: 0 },
  seq: 0,
  policy: { maxAttempts: 1, leaseTicks: 1, backoffBase: 1, backoffCap: 1 },
};

/** The context of a job just admitted: no attempt yet, nothing that only a later state means. Pure. */
export function admittedContext(input: JobInput): JobContext {
  // Field by field rather than `...input`: the spread was the costliest line of a whole step.
  return {
    id: input.id,
    payload: input.payload,
    seq: input.seq,
    policy: input.policy,
    attempts: 0,
    token: undefined,
    owner: undefined,
    leaseUntil: undefined,
    notBefore: undefined,
    reason: undefined,
    lastError: undefined,
  };
}

/** The parts of a store config that a job's own transitions read. Pure. */
export function policyOf(config: Config): JobPolicy {
  const { maxAttempts, leaseTicks, backoffBase, backoffCap } = config;
  return { maxAttempts, leaseTicks, backoffBase, backoffCap };
}

const now = (event: JobEvent): number => ('now' in event ? event.now : 0);

/** The job lifecycle machine. */
export const jobMachine = setup({
  types: {
    context: {} as JobContext,
    events: {} as JobEvent,
    input: {} as JobInput,
  },
  guards: {
    /** The job's deadline has come: `now >= deadline`. Takes precedence over everything else. */
    deadlinePassed: ({ context, event }) => now(event) >= context.payload.deadline,
    /** The current lease has run out: `now >= leaseUntil` (equality expires). */
    leaseExpired: ({ context, event }) => context.leaseUntil !== undefined && now(event) >= context.leaseUntil,
    /** The backoff delay is over: `now >= notBefore`. */
    backoffElapsed: ({ context, event }) => context.notBefore !== undefined && now(event) >= context.notBefore,
    /** Another delivery may still be made: `attempts < maxAttempts`. */
    hasAttemptsLeft: ({ context }) => context.attempts < context.policy.maxAttempts,
    /** The event carries the job's current delivery token and comes from the worker holding it. */
    isCurrentDelivery: ({ context, event }) =>
      'token' in event && event.token === context.token && 'worker' in event && event.worker === context.owner,
    /** The worker reports a failure that no retry can cure. */
    isPermanent: ({ event }) => event.type === 'FAIL' && event.kind === 'permanent',
    /** A retry after the backoff delay would start before the original deadline: `now + delay < deadline`. */
    retryStartsBeforeDeadline: ({ context, event }) =>
      addTime(now(event), backoffDelay(context.policy, context.attempts)) < context.payload.deadline,
  },
  actions: {
    /** New delivery: one more attempt, the store's next token, the worker as owner, and a lease. */
    startDelivery: assign(({ context, event }) => {
      if (event.type !== 'CLAIM') return {};
      return {
        attempts: context.attempts + 1,
        token: event.token,
        owner: event.worker,
        leaseUntil: addTime(event.now, context.policy.leaseTicks),
      };
    }),
    /** The delivery ends (settled, expired or failed): its token is no longer current. */
    endDelivery: assign({ token: undefined, owner: undefined, leaseUntil: undefined }),
    /** Keep the worker's failure text on the record. */
    recordError: assign(({ event }) => (event.type === 'FAIL' ? { lastError: event.error } : {})),
    /** Wait out the capped exponential backoff before the job is ready again. */
    scheduleRetry: assign(({ context, event }) => ({
      notBefore: addTime(now(event), backoffDelay(context.policy, context.attempts)),
    })),
    /** The wait is over. */
    clearRetry: assign({ notBefore: undefined }),
    /** Record why the job died; the dead record keeps payload, attempts and lastError. */
    die: assign((_, params: { reason: DeadReason }) => ({ reason: params.reason })),
  },
}).createMachine({
  id: 'job',
  initial: 'ready',
  // The inert actor of pureTransition.ts (and xstate's own pure transition()) is built without
  // input; an empty placeholder stands in for it.
  context: ({ input }: { input: JobInput | undefined }) => admittedContext(input ?? PLACEHOLDER),
  states: {
    ready: {
      description: 'Admitted and due: may be claimed when it is the head of its account.',
      on: {
        ADVANCE: {
          guard: 'deadlinePassed',
          target: 'dead',
          actions: { type: 'die', params: { reason: 'deadline' } },
        },
        CLAIM: { target: 'running', actions: 'startDelivery' },
      },
    },
    running: {
      description: 'Delivered to one worker under a token and a lease.',
      on: {
        ADVANCE: [
          {
            guard: 'deadlinePassed',
            target: 'dead',
            actions: ['endDelivery', { type: 'die', params: { reason: 'deadline' } }],
          },
          {
            guard: and(['leaseExpired', not('hasAttemptsLeft')]),
            target: 'dead',
            actions: ['endDelivery', { type: 'die', params: { reason: 'lease_expired' } }],
          },
          { guard: 'leaseExpired', target: 'ready', actions: 'endDelivery' },
        ],
        // Commit does not move the job: its effect is recorded in the store's ledger, apart from
        // acknowledgement. The transition is here so that the delivery check is part of the lifecycle.
        COMMIT: { guard: 'isCurrentDelivery' },
        ACK: { guard: 'isCurrentDelivery', target: 'done', actions: 'endDelivery' },
        FAIL: [
          {
            guard: and(['isCurrentDelivery', 'isPermanent']),
            target: 'dead',
            actions: ['endDelivery', 'recordError', { type: 'die', params: { reason: 'permanent' } }],
          },
          {
            guard: and(['isCurrentDelivery', not('hasAttemptsLeft')]),
            target: 'dead',
            actions: ['endDelivery', 'recordError', { type: 'die', params: { reason: 'attempts_exhausted' } }],
          },
          {
            guard: and(['isCurrentDelivery', 'retryStartsBeforeDeadline']),
            target: 'waiting',
            actions: ['endDelivery', 'recordError', 'scheduleRetry'],
          },
          {
            guard: 'isCurrentDelivery',
            target: 'dead',
            actions: ['endDelivery', 'recordError', { type: 'die', params: { reason: 'no_time_for_retry' } }],
          },
        ],
      },
    },
    waiting: {
      description: 'Failed transiently; waits for its backoff delay before it is ready again.',
      on: {
        ADVANCE: [
          {
            guard: 'deadlinePassed',
            target: 'dead',
            actions: ['clearRetry', { type: 'die', params: { reason: 'deadline' } }],
          },
          { guard: 'backoffElapsed', target: 'ready', actions: 'clearRetry' },
        ],
      },
    },
    done: { type: 'final', description: 'Acknowledged by the worker holding the current delivery.' },
    dead: { type: 'final', description: 'Will not run again; the record keeps payload, reason and lastError.' },
  },
});

/** The lifecycle states, in the order the machine declares them. */
export const JOB_STATES = ['ready', 'waiting', 'running', 'done', 'dead'] as const;

/**
 * A newly admitted job as an xstate snapshot of the lifecycle machine in state `ready`, for tools
 * that drive the lifecycle with xstate itself (the path suite walks it with `transition`). Pure.
 */
export function admittedJob(input: JobInput): SnapshotFrom<typeof jobMachine> {
  return jobMachine.resolveState({ value: 'ready', context: admittedContext(input) });
}

/** A newly admitted job as the store keeps it: a plain state of the lifecycle machine, `ready`. Pure. */
export function admittedJobState(input: JobInput): MachineState<typeof jobMachine, JobContext, 'ready'> {
  return machineState(jobMachine, 'ready', admittedContext(input));
}
