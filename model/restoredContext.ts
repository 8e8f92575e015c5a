/**
 * The store context of a snapshot (a restart), with each job built by the caller: the model's
 * step builds plain jobs (step.ts), the reference step xstate snapshots (referenceModel.ts).
 * Validation is the schema's (`parseSnapshot`) unless the caller passes another parse. The model's
 * step first tries `acceptedContext` (acceptedSnapshot.ts), which builds the same context in the
 * pass that accepts the snapshot, and comes here only for what that refuses; the reference keeps
 * the schema alone. `snapshotContext` with `adopt` over acceptedSnapshot's fresh copy is what
 * `acceptedContext` is held equal to (model/acceptedSnapshot.test.ts).
 */
import type { EffectRecord, JobStatus, Snapshot } from '../contract/index.ts';
import { hasOwnKey, parseSnapshot } from '../contract/index.ts';
import { policyOf } from './jobMachine.ts';
import type { JobContext } from './jobMachine.ts';
import type { JobSnapshot, StoreContext } from './storeMachine.ts';

/** Whether the jobs of a snapshot are listed in admission order (sequence number), as in a snapshot the model wrote. */
function inSeqOrder(jobs: Snapshot['jobs']): boolean {
  let previous = Number.NEGATIVE_INFINITY;
  for (const id in jobs) {
    const job = jobs[id];
    if (job === undefined || !hasOwnKey(jobs, id)) continue;
    const seq = job.seq;
    if (!(seq > previous)) return false;
    previous = seq;
  }
  return true;
}

/** The ids of a snapshot's jobs in admission order: as listed when they are in it already, otherwise sorted (a stable sort, as before). */
function idsBySeq(jobs: Snapshot['jobs']): Iterable<string> {
  if (inSeqOrder(jobs)) return Object.keys(jobs);
  return Object.entries(jobs)
    .sort(([, a], [, b]) => a.seq - b.seq)
    .map(([id]) => id);
}

/**
 * The store context of a parsed snapshot `s`, jobs in admission order. With `adopt`, `s` must be
 * a fresh value that nothing else holds (acceptedSnapshot's output): its payloads, ledger entries
 * and config become the context's own. Without, every object is copied, so that the context
 * shares nothing with `s`. Pure.
 */
export function snapshotContext(
  s: Snapshot,
  jobOf: (status: JobStatus, context: JobContext) => JobSnapshot,
  adopt: boolean,
): StoreContext {
  const policy = policyOf(s.config);
  const jobs = new Map<string, JobSnapshot>();
  for (const id of idsBySeq(s.jobs)) {
    const r = s.jobs[id];
    if (r === undefined) continue;
    const context: JobContext = {
      id,
      payload: adopt ? r.payload : { ...r.payload },
      seq: r.seq,
      policy,
      attempts: r.attempts,
      token: r.token,
      owner: r.owner,
      leaseUntil: r.leaseUntil,
      notBefore: r.notBefore,
      reason: r.reason,
      lastError: r.lastError,
    };
    jobs.set(id, jobOf(r.status, context));
  }
  const effects = new Map<string, ReadonlyMap<string, EffectRecord>>();
  for (const account in s.effects) {
    const ledger = s.effects[account];
    if (ledger === undefined || !hasOwnKey(s.effects, account)) continue;
    const entries = new Map<string, EffectRecord>();
    for (const key in ledger) {
      const e = ledger[key];
      if (e === undefined || !hasOwnKey(ledger, key)) continue;
      entries.set(key, adopt ? e : { ...e });
    }
    effects.set(account, entries);
  }
  const balances = new Map<string, number>();
  for (const account in s.balances) {
    const balance = s.balances[account];
    if (balance !== undefined && hasOwnKey(s.balances, account)) balances.set(account, balance);
  }
  return {
    config: adopt ? s.config : { ...s.config },
    clock: s.clock,
    nextToken: s.nextToken,
    nextSeq: s.nextSeq,
    jobs,
    balances,
    effects,
    reply: undefined,
    trace: [],
  };
}

/**
 * Validates the whole snapshot first with `parse` (which throws JobcheckError `invalid_snapshot`
 * naming the bad field) and returns its store context, jobs in admission order, sharing nothing with the input. Pure.
 */
export function restoredContext(
  input: unknown,
  jobOf: (status: JobStatus, context: JobContext) => JobSnapshot,
  parse: (input: unknown) => Snapshot = parseSnapshot,
): StoreContext {
  return snapshotContext(parse(input), jobOf, false);
}
