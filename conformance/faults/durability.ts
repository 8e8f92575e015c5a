/**
 * The durability figures of one fault run, read from its history: submits the queue acknowledged
 * and, of those, jobs lost (missing from the final snapshot, or never handed out though a claim
 * sent after the submit's reply found no job); commits acknowledged as applied and effects missing
 * from the snapshot's ledger; effects acknowledged as applied more than once; jobs handed out again
 * after their ack was acknowledged; requests whose reply the fault swallowed. Figures count what
 * happened, never a verdict: the history's check decides that. No final snapshot, no figures.
 */
import type { Reply, Snapshot } from '../../contract/index.ts';
import type { ConcurrentRun } from '../concurrent/index.ts';
import type { FaultFigures } from '../profile/result.ts';

interface Sent {
  readonly type?: string;
  readonly id?: string;
  readonly account?: string;
  readonly key?: string;
}

/** The figures of a run, or undefined when its final snapshot did not come. Pure. */
export function figuresOf(run: ConcurrentRun): FaultFigures | undefined {
  const operations = run.history.operations;
  const final = operations.find((o) => o.id === run.snapshotId);
  if (final === undefined || final.returned === undefined) return undefined;
  const snapshot = final.output as Snapshot;
  const payloads = new Map<string, string>();
  for (const op of operations) {
    const input = op.input as Sent;
    if (input.type === 'submit' && typeof input.id === 'string' && !payloads.has(input.id))
      payloads.set(input.id, `${input.account}\u0000${input.key}`);
  }
  /** Acknowledged submits, with the instant their reply was read. */
  const acknowledged = new Map<string, number>();
  /** Acknowledged acks: job -> the instant the reply was read. */
  const acked = new Map<string, number>();
  const delivered = new Map<string, number[]>();
  const empty: number[] = [];
  const applied: string[] = [];
  let indefinite = 0;
  for (const op of operations) {
    if (op.id === run.snapshotId) continue;
    if (op.returned === undefined) {
      indefinite += 1;
      continue;
    }
    const input = op.input as Sent;
    const reply = op.output as Reply;
    if (reply.ok !== true) continue;
    if (reply.type === 'submit' && !reply.duplicate && typeof input.id === 'string' && !acknowledged.has(input.id))
      acknowledged.set(input.id, op.returned);
    if (reply.type === 'commit' && reply.applied) applied.push(payloads.get(reply.id) ?? `?\u0000${reply.id}`);
    if (reply.type === 'ack' && !acked.has(reply.id)) acked.set(reply.id, op.returned);
    if (reply.type === 'claim') {
      if (reply.job === null) empty.push(op.invoked);
      else delivered.set(reply.job.id, [...(delivered.get(reply.job.id) ?? []), op.invoked]);
    }
  }
  const jobs = snapshot.jobs ?? {};
  const effects = snapshot.effects ?? {};
  const lost = [...acknowledged].filter(
    ([id, at]) => !Object.hasOwn(jobs, id) || (!delivered.has(id) && empty.some((claimed) => claimed > at)),
  );
  const present = (k: string): boolean => {
    const [account, key] = k.split('\u0000') as [string, string];
    return Object.hasOwn(effects, account) && Object.hasOwn(effects[account] ?? {}, key);
  };
  const distinct = new Set(applied);
  const redelivered = [...acked].filter(([id, at]) => (delivered.get(id) ?? []).some((claimed) => claimed > at));
  return {
    acknowledgedSubmits: acknowledged.size,
    submitsLost: lost.length,
    committedEffects: distinct.size,
    effectsLost: [...distinct].filter((k) => !present(k)).length,
    effectsDoubled: applied.length - distinct.size,
    acknowledgedRedelivered: redelivered.length,
    indefinite,
  };
}
