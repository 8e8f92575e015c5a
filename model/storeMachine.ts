/**
 * The store-wide policy, as an xstate v5 machine that composes one lifecycle machine (jobMachine)
 * per job. It owns what no single job can decide: admission against capacity, per-account order,
 * token numbering, the effect ledger and balances, and which rejection code a command earns.
 *
 * It has a single state, `open`; its substance is the ordered, guarded transitions of each command,
 * which read as the contract's decision lists (first matching guard wins). Jobs' own transitions
 * are taken purely inside `assign` (sendToJob.ts), so the whole store stays a value. The model's
 * step runs this definition through its compiled tables (runMachine.ts); the reference step runs
 * it through xstate (referenceModel.ts).
 *
 * Every command is preceded by an `advance` event (step 2 of the contract), sent by step.ts.
 * This model favours clarity over speed: it scans every job where a real store would use an index.
 */
import { and, assign, setup } from 'xstate';
import type {
  AckCommand,
  Command,
  CommitCommand,
  Config,
  EffectRecord,
  FailCommand,
  JobStatus,
  Rejection,
  RejectionCode,
  Reply,
  SubmitCommand,
} from '../contract/index.ts';
import { admittedJobState, policyOf } from './jobMachine.ts';
import { sendToJob } from './sendToJob.ts';
import type { JobSnapshot, JobStep } from './sendToJob.ts';

export type { JobSnapshot, JobStep } from './sendToJob.ts';

/**
 * Everything the store knows. Maps, not plain objects, so that any string (even `__proto__` or
 * `constructor`) is an ordinary id, account or key. `jobs` keeps admission order. The maps are
 * never mutated: a change builds a new map.
 */
export interface StoreContext {
  readonly config: Config;
  readonly clock: number;
  readonly nextToken: number;
  readonly nextSeq: number;
  readonly jobs: ReadonlyMap<string, JobSnapshot>;
  readonly balances: ReadonlyMap<string, number>;
  readonly effects: ReadonlyMap<string, ReadonlyMap<string, EffectRecord>>;
  /** The reply to the last command. */
  readonly reply: Reply | undefined;
  /** Job transitions taken by the last event. */
  readonly trace: readonly JobStep[];
  /**
   * When each job was admitted, kept only by a model with a deduplication window
   * (variants.ts); the contract's own model never sets it, and no snapshot carries it.
   */
  readonly admitted?: ReadonlyMap<string, Admission>;
}

/** A job's admission: its admission number and the tick it was admitted at. */
export interface Admission {
  readonly seq: number;
  readonly at: number;
}

/** Events of the store: every command, plus the clock advance that precedes each of them. */
export type StoreEvent = Command | { readonly type: 'advance'; readonly now: number };

/** The status of a job: the state its lifecycle machine is in. */
export const statusOf = (job: JobSnapshot): JobStatus => job.value as JobStatus;

/** Ready, waiting and running jobs are unresolved: they count against capacity and block their account. */
export const isUnresolved = (job: JobSnapshot): boolean => {
  const s = statusOf(job);
  return s === 'ready' || s === 'waiting' || s === 'running';
};

/** The running job whose current delivery carries `token`, if any. */
export function jobByToken(context: StoreContext, token: number): JobSnapshot | undefined {
  for (const j of context.jobs.values()) if (statusOf(j) === 'running' && j.context.token === token) return j;
  return undefined;
}

/** How many jobs are unresolved (ready, waiting or running). */
const unresolvedCount = (context: StoreContext): number => {
  let n = 0;
  for (const job of context.jobs.values()) if (isUnresolved(job)) n++;
  return n;
};

/**
 * The job a claim would deliver: among accounts, only the earliest-admitted unresolved job (the
 * head) may run; of the heads that are ready, the one admitted first.
 */
export function claimableHead(context: StoreContext): JobSnapshot | undefined {
  // Said without building the map of heads: a ready job is its account's head when no unresolved
  // job of the account was admitted before it (stores hold a handful of jobs; this runs on every claim).
  let best: JobSnapshot | undefined;
  for (const job of context.jobs.values()) {
    if (statusOf(job) !== 'ready' || (best !== undefined && best.context.seq < job.context.seq)) continue;
    const { account } = job.context.payload;
    let isHead = true;
    for (const other of context.jobs.values()) {
      if (other.context.payload.account === account && other.context.seq < job.context.seq && isUnresolved(other)) {
        isHead = false;
        break;
      }
    }
    if (isHead) best = job;
  }
  return best;
}

/** Whether a submit carries exactly the payload of `job`. Pure. */
export const samePayload = (job: JobSnapshot, c: SubmitCommand): boolean => {
  const p = job.context.payload;
  return p.account === c.account && p.key === c.key && p.amount === c.amount && p.deadline === c.deadline;
};

const rejection = (code: RejectionCode, message: string): Rejection => ({ ok: false, code, message });

function withJob(context: StoreContext, job: JobSnapshot): StoreContext['jobs'] {
  return new Map(context.jobs).set(job.context.id, job);
}

type DeliveryCommand = CommitCommand | AckCommand | FailCommand;
const deliveryOf = (context: StoreContext, event: StoreEvent): JobSnapshot | undefined =>
  'token' in event ? jobByToken(context, event.token) : undefined;

/**
 * Step 2 of the contract: the clock moves to `now` and every unresolved job hears it, in admission
 * order; each job decides for itself (deadline, lease, backoff; see jobMachine). What the store's
 * `advance` assigns. Pure.
 */
export function advancedClock(context: StoreContext, now: number): Pick<StoreContext, 'clock' | 'jobs' | 'trace'> {
  let jobs: Map<string, JobSnapshot> | undefined;
  const trace: JobStep[] = [];
  // Iterating the map itself is safe: it is never changed, a changed job goes to the copy.
  for (const job of context.jobs.values()) {
    if (!isUnresolved(job)) continue;
    const { job: next, step } = sendToJob(job, { type: 'ADVANCE', now });
    if (step !== undefined) {
      jobs ??= new Map(context.jobs);
      jobs.set(next.context.id, next);
      trace.push(step);
    }
  }
  return { clock: now, jobs: jobs ?? context.jobs, trace };
}

/** The context of an empty store: nothing admitted, clock 0, first token and admission number 1. Pure. */
export function emptyStore(config: Config): StoreContext {
  return {
    config,
    clock: 0,
    nextToken: 1,
    nextSeq: 1,
    jobs: new Map(),
    balances: new Map(),
    effects: new Map(),
    reply: undefined,
    trace: [],
  };
}

const EMPTY_STORE = emptyStore({ capacity: 1, maxAttempts: 1, leaseTicks: 1, backoffBase: 1, backoffCap: 1 });

/** The store machine. */
export const storeMachine = setup({
  types: {
    context: {} as StoreContext,
    events: {} as StoreEvent,
    input: {} as StoreContext,
  },
  guards: {
    /** Submit of an id that exists with exactly the same payload: a harmless repeat. */
    isDuplicateSubmit: ({ context, event }) => {
      if (event.type !== 'submit') return false;
      const job = context.jobs.get(event.id);
      return job !== undefined && samePayload(job, event);
    },
    /** Submit of an id that exists with another payload. */
    isIdTaken: ({ context, event }) => event.type === 'submit' && context.jobs.get(event.id) !== undefined,
    /** Ready + waiting + running jobs already fill the capacity. */
    atCapacity: ({ context }) => unresolvedCount(context) >= context.config.capacity,
    /** Some account's head is ready to run. */
    hasClaimableHead: ({ context }) => claimableHead(context) !== undefined,
    /** The token is not the current delivery of any running job (never issued, expired or settled). */
    isStaleToken: ({ context, event }) => deliveryOf(context, event) === undefined,
    /** The token is current, but held by another worker. */
    isNotOwner: ({ context, event }) => 'worker' in event && deliveryOf(context, event)?.context.owner !== event.worker,
    /** The ledger already holds this job's (account, key) with the same amount: reuse it. */
    isEffectRecorded: ({ context, event }) => {
      const p = deliveryOf(context, event)?.context.payload;
      return p !== undefined && context.effects.get(p.account)?.get(p.key)?.amount === p.amount;
    },
    /** The ledger holds this job's (account, key) with another amount. */
    isEffectConflict: ({ context, event }) => {
      const p = deliveryOf(context, event)?.context.payload;
      return p !== undefined && context.effects.get(p.account)?.get(p.key) !== undefined;
    },
    /** The next admission number is the largest safe integer: admitting would leave nextSeq outside the range. */
    seqExhausted: ({ context }) => context.nextSeq >= Number.MAX_SAFE_INTEGER,
    /** The next token is the largest safe integer: a claim would leave nextToken outside the range. */
    tokensExhausted: ({ context }) => context.nextToken >= Number.MAX_SAFE_INTEGER,
    /** Applying the amount would take the balance outside the safe-integer range. */
    balanceWouldOverflow: ({ context, event }) => {
      const p = deliveryOf(context, event)?.context.payload;
      return p !== undefined && !Number.isSafeInteger((context.balances.get(p.account) ?? 0) + p.amount);
    },
  },
  actions: {
    /** Forget the previous command's reply and trace. */
    begin: assign({ reply: undefined, trace: [] }),
    /**
     * Step 2: the clock moves to `now` and every unresolved job hears it, in admission order.
     * Each job decides for itself (deadline, lease, backoff); see jobMachine.
     */
    advanceClock: assign(({ context, event }) => (event.type === 'advance' ? advancedClock(context, event.now) : {})),
    /** Reply with a rejection; nothing else changes. */
    reject: assign(({ context, event }, params: { code: RejectionCode }) => ({
      reply: rejection(params.code, rejectionMessage(context, event, params.code)),
    })),
    replyDuplicate: assign(({ context, event }) => {
      if (event.type !== 'submit') return {};
      const job = context.jobs.get(event.id);
      return { reply: { ok: true, type: 'submit', id: event.id, seq: job?.context.seq ?? 0, duplicate: true } };
    }),
    /** Admit a new job, ready, with the next admission number. */
    admit: assign(({ context, event }) => {
      if (event.type !== 'submit') return {};
      const { id, account, key, amount, deadline } = event;
      const job = admittedJobState({
        id,
        payload: { account, key, amount, deadline },
        seq: context.nextSeq,
        policy: policyOf(context.config),
      });
      return {
        jobs: withJob(context, job),
        nextSeq: context.nextSeq + 1,
        reply: { ok: true, type: 'submit', id, seq: context.nextSeq, duplicate: false },
      };
    }),
    /** Deliver the claimable head under a new token. */
    deliverHead: assign(({ context, event }) => {
      const head = claimableHead(context);
      if (event.type !== 'claim' || head === undefined) return {};
      const { job, step } = sendToJob(head, {
        type: 'CLAIM',
        worker: event.worker,
        token: context.nextToken,
        now: event.now,
      });
      const c = job.context;
      return {
        jobs: withJob(context, job),
        nextToken: context.nextToken + 1,
        trace: step === undefined ? [] : [step],
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
    replyNothingDue: assign({ reply: { ok: true, type: 'claim', job: null } }),
    /** The effect is already in the ledger: reuse it, the balance stays. */
    reuseEffect: assign(({ context, event }) => {
      const current = deliveryOf(context, event);
      if (event.type !== 'commit' || current === undefined) return {};
      const { job, step } = sendToJob(current, { type: 'COMMIT', worker: event.worker, token: event.token });
      const p = job.context.payload;
      return {
        jobs: withJob(context, job),
        trace: step === undefined ? [] : [step],
        reply: {
          ok: true,
          type: 'commit',
          id: job.context.id,
          applied: false,
          balance: context.balances.get(p.account) ?? 0,
        },
      };
    }),
    /** Apply the effect: add the amount to the balance and record (account, key) in the ledger. */
    applyEffect: assign(({ context, event }) => {
      const current = deliveryOf(context, event);
      if (event.type !== 'commit' || current === undefined) return {};
      const { job, step } = sendToJob(current, { type: 'COMMIT', worker: event.worker, token: event.token });
      const p = job.context.payload;
      const balance = (context.balances.get(p.account) ?? 0) + p.amount;
      const effect: EffectRecord = { amount: p.amount, job: job.context.id, token: event.token };
      return {
        jobs: withJob(context, job),
        balances: new Map(context.balances).set(p.account, balance),
        effects: new Map(context.effects).set(p.account, new Map(context.effects.get(p.account)).set(p.key, effect)),
        trace: step === undefined ? [] : [step],
        reply: { ok: true, type: 'commit', id: job.context.id, applied: true, balance },
      };
    }),
    /** Acknowledge the current delivery: the job is done, committed or not. */
    settle: assign(({ context, event }) => {
      const current = deliveryOf(context, event);
      if (event.type !== 'ack' || current === undefined) return {};
      const { job, step } = sendToJob(current, { type: 'ACK', worker: event.worker, token: event.token });
      return {
        jobs: withJob(context, job),
        trace: step === undefined ? [] : [step],
        reply: { ok: true, type: 'ack', id: job.context.id },
      };
    }),
    /** Report a failure of the current delivery; the job decides between retry and death. */
    recordFailure: assign(({ context, event }) => {
      const current = deliveryOf(context, event);
      if (event.type !== 'fail' || current === undefined) return {};
      const { job, step } = sendToJob(current, {
        type: 'FAIL',
        worker: event.worker,
        token: event.token,
        kind: event.kind,
        error: event.error,
        now: event.now,
      });
      const c = job.context;
      const reply: Reply =
        statusOf(job) === 'waiting'
          ? { ok: true, type: 'fail', id: c.id, status: 'waiting', notBefore: c.notBefore ?? 0 }
          : { ok: true, type: 'fail', id: c.id, status: 'dead', reason: c.reason ?? 'permanent' };
      return { jobs: withJob(context, job), trace: step === undefined ? [] : [step], reply };
    }),
    replyClock: assign(({ context }) => ({ reply: { ok: true, type: 'tick', clock: context.clock } })),
  },
}).createMachine({
  id: 'store',
  // The inert actor of pureTransition.ts is built once without input: give it an empty store.
  context: ({ input }: { input: StoreContext | undefined }) => input ?? EMPTY_STORE,
  initial: 'open',
  states: {
    open: {
      on: {
        advance: { actions: ['begin', 'advanceClock'] },
        submit: [
          { guard: 'isDuplicateSubmit', actions: ['begin', 'replyDuplicate'] },
          { guard: 'isIdTaken', actions: ['begin', { type: 'reject', params: { code: 'conflict' } }] },
          { guard: 'atCapacity', actions: ['begin', { type: 'reject', params: { code: 'capacity_exceeded' } }] },
          { guard: 'seqExhausted', actions: ['begin', { type: 'reject', params: { code: 'out_of_range' } }] },
          { actions: ['begin', 'admit'] },
        ],
        claim: [
          {
            guard: and(['hasClaimableHead', 'tokensExhausted']),
            actions: ['begin', { type: 'reject', params: { code: 'out_of_range' } }],
          },
          { guard: 'hasClaimableHead', actions: ['begin', 'deliverHead'] },
          { actions: ['begin', 'replyNothingDue'] },
        ],
        commit: [
          { guard: 'isStaleToken', actions: ['begin', { type: 'reject', params: { code: 'stale_token' } }] },
          { guard: 'isNotOwner', actions: ['begin', { type: 'reject', params: { code: 'not_owner' } }] },
          { guard: 'isEffectRecorded', actions: ['begin', 'reuseEffect'] },
          { guard: 'isEffectConflict', actions: ['begin', { type: 'reject', params: { code: 'conflict' } }] },
          { guard: 'balanceWouldOverflow', actions: ['begin', { type: 'reject', params: { code: 'out_of_range' } }] },
          { actions: ['begin', 'applyEffect'] },
        ],
        ack: [
          { guard: 'isStaleToken', actions: ['begin', { type: 'reject', params: { code: 'stale_token' } }] },
          { guard: 'isNotOwner', actions: ['begin', { type: 'reject', params: { code: 'not_owner' } }] },
          { actions: ['begin', 'settle'] },
        ],
        fail: [
          { guard: 'isStaleToken', actions: ['begin', { type: 'reject', params: { code: 'stale_token' } }] },
          { guard: 'isNotOwner', actions: ['begin', { type: 'reject', params: { code: 'not_owner' } }] },
          { actions: ['begin', 'recordFailure'] },
        ],
        tick: { actions: ['begin', 'replyClock'] },
      },
    },
  },
});

// The JSON text of each payload a conflict message has shown, by the payload object: payloads are
// immutable values shared by every state that holds the job, and the explorer words the same
// conflict in state after state.
const payloadTexts = new WeakMap<object, string>();
const payloadText = (p: object | undefined): string | undefined => {
  if (p === undefined) return JSON.stringify(p);
  let text = payloadTexts.get(p);
  if (text === undefined) {
    text = JSON.stringify(p);
    payloadTexts.set(p, text);
  }
  return text;
};

/** The human message of a domain rejection; it names the offending value. */
function rejectionMessage(context: StoreContext, event: StoreEvent, code: RejectionCode): string {
  switch (code) {
    case 'conflict': {
      if (event.type === 'submit') {
        const p = context.jobs.get(event.id)?.context.payload;
        return `job ${JSON.stringify(event.id)} already exists with another payload (${payloadText(p)})`;
      }
      const p = deliveryOf(context, event)?.context.payload;
      const recorded = p === undefined ? undefined : context.effects.get(p.account)?.get(p.key);
      return `effect (${JSON.stringify(p?.account)}, ${JSON.stringify(p?.key)}) was recorded with amount ${recorded?.amount}, not ${p?.amount}`;
    }
    case 'capacity_exceeded':
      return `capacity ${context.config.capacity} is full: ${unresolvedCount(context)} unresolved jobs`;
    case 'stale_token':
      return `token ${(event as DeliveryCommand).token} is not the current delivery of any running job`;
    case 'not_owner': {
      const e = event as DeliveryCommand;
      return `token ${e.token} is held by worker ${JSON.stringify(deliveryOf(context, e)?.context.owner)}, not ${JSON.stringify(e.worker)}`;
    }
    case 'out_of_range': {
      if (event.type === 'submit')
        return `nextSeq is ${context.nextSeq}: a new admission number would leave the safe-integer range`;
      if (event.type === 'claim')
        return `nextToken is ${context.nextToken}: a new token would leave the safe-integer range`;
      const p = deliveryOf(context, event)?.context.payload;
      return `balance of ${JSON.stringify(p?.account)} would leave the safe-integer range`;
    }
    default:
      return code;
  }
}
