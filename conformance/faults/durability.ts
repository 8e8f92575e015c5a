/**
 * The durability figures of one fault run, read from its history: submits the queue acknowledged
 * and jobs missing from the final snapshot; commits acknowledged as applied and effects missing
 * from the snapshot's ledger; effects acknowledged as applied more than once; requests whose reply
 * the fault swallowed. Figures are counts of what happened, never a verdict: the history's check
 * decides that. A run without its final snapshot has no figures.
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
  const final = run.history.operations.find((o) => o.id === run.snapshotId);
  if (final === undefined || final.returned === undefined) return undefined;
  const snapshot = final.output as Snapshot;
  const acknowledged = new Set<string>();
  const applied: string[] = [];
  let indefinite = 0;
  const payloads = new Map<string, string>();
  for (const op of run.history.operations) {
    const input = op.input as Sent;
    if (input.type === 'submit' && typeof input.id === 'string' && !payloads.has(input.id))
      payloads.set(input.id, `${input.account}\u0000${input.key}`);
  }
  for (const op of run.history.operations) {
    if (op.id === run.snapshotId) continue;
    if (op.returned === undefined) {
      indefinite += 1;
      continue;
    }
    const input = op.input as Sent;
    const reply = op.output as Reply;
    if (reply.ok !== true) continue;
    if (reply.type === 'submit' && reply.duplicate !== true && typeof input.id === 'string') acknowledged.add(input.id);
    if (reply.type === 'commit' && reply.applied) applied.push(payloads.get(reply.id) ?? `?\u0000${reply.id}`);
  }
  const jobs = snapshot.jobs ?? {};
  const effects = snapshot.effects ?? {};
  const present = (k: string): boolean => {
    const [account, key] = k.split('\u0000') as [string, string];
    return Object.hasOwn(effects, account) && Object.hasOwn(effects[account] ?? {}, key);
  };
  const distinct = new Set(applied);
  return {
    acknowledgedSubmits: acknowledged.size,
    submitsLost: [...acknowledged].filter((id) => !Object.hasOwn(jobs, id)).length,
    committedEffects: distinct.size,
    effectsLost: [...distinct].filter((k) => !present(k)).length,
    effectsDoubled: applied.length - distinct.size,
    indefinite,
  };
}
