/**
 * The store context of a snapshot (a restart), with each job built by the caller: the model's
 * step builds plain jobs (step.ts), the reference step xstate snapshots (referenceModel.ts).
 * Validation is the schema's (`parseSnapshot`) unless the caller passes another parse: the model's
 * step passes the fast acceptance of acceptedSnapshot.ts with the schema behind it; the reference
 * keeps the schema alone.
 */
import type { EffectRecord, JobStatus, Snapshot } from '../contract/index.ts';
import { parseSnapshot } from '../contract/index.ts';
import { policyOf } from './jobMachine.ts';
import type { JobContext } from './jobMachine.ts';
import type { JobSnapshot, StoreContext } from './storeMachine.ts';

/**
 * Validates the whole snapshot first with `parse` (which throws JobcheckError `invalid_snapshot`
 * naming the bad field) and returns its store context, jobs in admission order, sharing nothing with the input. Pure.
 */
export function restoredContext(
  input: unknown,
  jobOf: (status: JobStatus, context: JobContext) => JobSnapshot,
  parse: (input: unknown) => Snapshot = parseSnapshot,
): StoreContext {
  const s = parse(input);
  const policy = policyOf(s.config);
  const jobs = new Map<string, JobSnapshot>();
  const ordered = Object.entries(s.jobs).sort(([, a], [, b]) => a.seq - b.seq);
  for (const [id, r] of ordered) {
    const context: JobContext = {
      id,
      payload: { ...r.payload },
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
  for (const [account, ledger] of Object.entries(s.effects)) {
    effects.set(account, new Map(Object.entries(ledger).map(([key, e]) => [key, { ...e }])));
  }
  return {
    config: { ...s.config },
    clock: s.clock,
    nextToken: s.nextToken,
    nextSeq: s.nextSeq,
    jobs,
    balances: new Map(Object.entries(s.balances)),
    effects,
    reply: undefined,
    trace: [],
  };
}
