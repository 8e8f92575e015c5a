/**
 * One job's operations checked for linearizability (linearizability.ts) against the contract's
 * lifecycle of one job: submitted, delivered under a token with a lease, settled by the holder of
 * the current token while its lease runs and before the job's deadline, never changed once done
 * or dead. A part is the history of one job, so tokens are the job's own (real queues name a
 * delivery per job); capacity, account order and the effect ledger couple jobs and are checked by
 * accounts.ts over what each part leaves behind.
 *
 * Time: an operation took effect at some instant of [invoke, return] on its host's clock; a lease
 * or deadline is on the broker's. With a declared uncertainty `u`, an instant is "before L" when
 * it could be (`invoke - u < L`) and "after L" when it could be (`return + u >= L`). The model
 * takes the observed outcome as part of its input and answers `true` when the contract allows it
 * there, or the rule it breaks: one search then finds whether some order allows every outcome.
 * An expiry the broker never reported is a silent step: a later claim is allowed once the lease
 * could have run out. A source that lacks tokens or leases altogether (absent.ts) is read as such:
 * an unknown lease may have run out at any instant, and no token is "handed out twice". Pure.
 */
import type { SequentialModel } from '../concurrent/history.ts';
import type { AbsentField } from './absent.ts';
import type { AuditOp, AuditRule } from './types.ts';

/** One job's state as the audit sees it. */
export interface JobState {
  readonly status: 'new' | 'ready' | 'running' | 'done' | 'dead';
  readonly token?: string;
  /** The worker the current delivery went to, when the claim said. */
  readonly owner?: string;
  readonly leaseUntil?: number;
  readonly deadline?: number;
  readonly payloadHash?: string;
}

/** What the model answers: allowed, or the rule broken and why. */
export type JobAnswer = true | { readonly rule: AuditRule; readonly why: string };

const SETTLE = new Set(['commit', 'ack', 'fail', 'extend']);

/**
 * The lifecycle of one job as a SequentialModel over AuditOps (their observed outcome included),
 * with clock uncertainty `u`. `submitted`: the part has no submit, so the job starts ready (the
 * caller names that gap). Pure.
 */
export function jobPartModel(
  u: number,
  submitted: boolean,
  absent: ReadonlySet<AbsentField> = new Set(),
): SequentialModel<JobState, AuditOp, JobAnswer> {
  const couldBefore = (op: AuditOp, at: number | undefined): boolean => at === undefined || op.invokedAt - u < at;
  const couldAfter = (op: AuditOp, at: number | undefined): boolean =>
    at === undefined ? absent.has('leaseUntil') : op.returnedAt === undefined || op.returnedAt + u >= at;
  const init: JobState = { status: submitted ? 'ready' : 'new' };

  function settle(s: JobState, op: AuditOp): { state: JobState; output: JobAnswer } {
    const current =
      s.status === 'running' &&
      s.token === op.token &&
      (s.owner === undefined || op.worker === undefined || s.owner === op.worker);
    const live = couldBefore(op, s.leaseUntil);
    const inTime = couldBefore(op, s.deadline);
    if (op.outcome === 'unknown') {
      return { state: current && live && inTime ? settled(s, op) : s, output: true };
    }
    if (op.outcome !== 'ok') {
      // A commit may be refused for its effect's sake (a conflict in the ledger), whatever its token.
      const mayRefuse = op.kind === 'commit' || !current || couldAfter(op, s.leaseUntil) || couldAfter(op, s.deadline);
      return {
        state: s,
        output: mayRefuse
          ? true
          : {
              rule: 'current-delivery-refused',
              why: `${op.kind} by the holder of the current token ${show(op.token)} was refused (${op.outcome}) while its lease ran until ${s.leaseUntil}`,
            },
      };
    }
    if (s.status === 'done' || s.status === 'dead')
      return {
        state: s,
        output: { rule: 'resolved-job-changed', why: `${op.kind} landed on a job already ${s.status}` },
      };
    if (!current)
      return {
        state: s,
        output: {
          rule: 'stale-ack-landed',
          why:
            s.status === 'running'
              ? s.token === op.token
                ? `${op.kind} under token ${show(op.token)} by ${show(op.worker)} landed, but the delivery went to ${show(s.owner)}`
                : `${op.kind} under token ${show(op.token)} landed, but the current delivery is token ${show(s.token)}`
              : `${op.kind} under token ${show(op.token)} landed, but no delivery of the job was current`,
        },
      };
    if (!live)
      return {
        state: s,
        output: {
          rule: 'run-past-lease',
          why: `${op.kind} at ${op.invokedAt} landed after token ${show(op.token)}'s lease ran out at ${s.leaseUntil}`,
        },
      };
    if (!inTime)
      return {
        state: s,
        output: {
          rule: 'past-deadline',
          why: `${op.kind} at ${op.invokedAt} landed after the job's deadline ${s.deadline}`,
        },
      };
    return { state: settled(s, op), output: true };
  }

  function claim(s: JobState, op: AuditOp): { state: JobState; output: JobAnswer } {
    let delivered: JobState = {
      ...s,
      status: 'running',
      ...(op.token === undefined ? {} : { token: op.token }),
    };
    if (op.worker !== undefined) delivered = { ...delivered, owner: op.worker };
    else {
      const { owner: _o, ...rest } = delivered;
      delivered = rest;
    }
    if (op.leaseUntil !== undefined) delivered = { ...delivered, leaseUntil: op.leaseUntil };
    else {
      const { leaseUntil: _l, ...rest } = delivered;
      delivered = rest;
    }
    if (op.outcome !== 'ok') return { state: op.outcome === 'unknown' ? delivered : s, output: true };
    switch (s.status) {
      case 'new':
        return {
          state: s,
          output: { rule: 'delivered-before-submit', why: 'delivered before its submit had taken effect' },
        };
      case 'done':
      case 'dead':
        return { state: s, output: { rule: 'resolved-job-changed', why: `delivered again after it was ${s.status}` } };
      case 'running':
        if (s.token === op.token && !absent.has('token'))
          return { state: s, output: { rule: 'double-delivery', why: `token ${show(op.token)} was handed out twice` } };
        if (!couldAfter(op, s.leaseUntil))
          return {
            state: s,
            output: {
              rule: 'double-delivery',
              why: `delivered again under token ${show(op.token)} while token ${show(s.token)}'s lease ran until ${s.leaseUntil}`,
            },
          };
        break;
      case 'ready':
        break;
    }
    if (!couldBefore(op, s.deadline))
      return {
        state: s,
        output: { rule: 'past-deadline', why: `delivered at ${op.invokedAt}, after the job's deadline ${s.deadline}` },
      };
    return { state: delivered, output: true };
  }

  function submit(s: JobState, op: AuditOp): { state: JobState; output: JobAnswer } {
    const fresh: JobState = {
      status: 'ready',
      ...(op.deadline === undefined ? {} : { deadline: op.deadline }),
      ...(op.payloadHash === undefined ? {} : { payloadHash: op.payloadHash }),
    };
    if (op.outcome === 'unknown') return { state: s.status === 'new' ? fresh : s, output: true };
    if (op.outcome !== 'ok' || s.status !== 'new') {
      const conflict =
        op.outcome === 'ok' &&
        op.payloadHash !== undefined &&
        s.payloadHash !== undefined &&
        op.payloadHash !== s.payloadHash;
      return {
        state: s,
        output: conflict
          ? {
              rule: 'payload-conflict-accepted',
              why: `a second submit with payload ${show(op.payloadHash)} was accepted`,
            }
          : true,
      };
    }
    return { state: fresh, output: true };
  }

  function broker(s: JobState, op: AuditOp): { state: JobState; output: JobAnswer } {
    if (s.status === 'done')
      return {
        state: s,
        output: { rule: 'resolved-job-changed', why: `the broker reported ${op.kind} after the job was done` },
      };
    if (op.kind === 'dead_lettered') return { state: s.status === 'dead' ? s : { ...s, status: 'dead' }, output: true };
    if (s.status !== 'running' || (op.token !== undefined && op.token !== s.token)) return { state: s, output: true };
    if (!couldAfter(op, s.leaseUntil))
      return {
        state: s,
        output: {
          rule: 'double-delivery',
          why: `the broker reported ${op.kind} at ${op.invokedAt} while token ${show(s.token)}'s lease ran until ${s.leaseUntil}`,
        },
      };
    const { token: _t, leaseUntil: _l, owner: _o, ...rest } = s;
    return { state: { ...rest, status: 'ready' }, output: true };
  }

  return {
    init: () => init,
    step(state, op) {
      if (op.kind === 'submit') return submit(state, op);
      if (op.kind === 'claim') return claim(state, op);
      if (SETTLE.has(op.kind)) return settle(state, op);
      return broker(state, op);
    },
    key: (s) =>
      `${s.status}|${s.token ?? ''}|${s.owner ?? ''}|${s.leaseUntil ?? ''}|${s.deadline ?? ''}|${s.payloadHash ?? ''}`,
    equal: (expected, observed) => expected === observed,
  };
}

/** The state after a settlement that took effect. Pure. */
function settled(s: JobState, op: AuditOp): JobState {
  switch (op.kind) {
    case 'ack':
      return {
        status: 'done',
        ...(s.deadline === undefined ? {} : { deadline: s.deadline }),
        ...(s.payloadHash === undefined ? {} : { payloadHash: s.payloadHash }),
      };
    case 'fail':
      return {
        status: op.next === 'dead' ? 'dead' : 'ready',
        ...(s.deadline === undefined ? {} : { deadline: s.deadline }),
        ...(s.payloadHash === undefined ? {} : { payloadHash: s.payloadHash }),
      };
    case 'extend':
      return op.leaseUntil === undefined ? s : { ...s, leaseUntil: op.leaseUntil };
    default:
      return s;
  }
}

const show = (v: string | undefined): string => (v === undefined ? '(none)' : JSON.stringify(v));
