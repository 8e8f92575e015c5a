/**
 * The aliasing check: a snapshot is the caller's value, so changing it must not change the
 * implementation. It runs once per lockstep run, after the last step (the rule
 * `snapshot-is-a-copy`), and exploration runs it on every state it checks.
 */
import type { Snapshot } from '../../contract/index.ts';
import type { Adapter } from '../adapter.ts';
import { isTimeLimit } from '../budget.ts';
import { firstDifference, withoutFields } from './compare.ts';
import { errorText } from './errorText.ts';
import type { Divergence } from './result.ts';

/** Overwrites every field of a JSON value in place (numbers, strings, booleans) and adds a key to every object. */
function scribble(value: unknown): void {
  if (typeof value !== 'object' || value === null) return;
  const record = value as Record<string, unknown>;
  for (const [k, v] of Object.entries(record)) {
    if (typeof v === 'number') record[k] = -1;
    else if (typeof v === 'string') record[k] = 'changed by the caller';
    else if (typeof v === 'boolean') record[k] = !v;
    else scribble(v);
  }
  record['addedByTheCaller'] = true;
}

/**
 * Takes a snapshot, changes it deeply, and compares the next snapshot with the model's
 * (`expected`), both without the fields `ignored` names. Returns the divergence fields,
 * `time_limit` when the budget stopped it, or undefined when the implementation is unaffected.
 * Not pure: it drives the adapter.
 */
export async function aliasDifference(
  adapter: Adapter,
  expected: Snapshot,
  ignored: ReadonlySet<string> = new Set(),
): Promise<Omit<Divergence, 'step'> | 'time_limit' | undefined> {
  try {
    scribble(await adapter.snapshot());
    const implSnapshot = withoutFields(await adapter.snapshot(), ignored);
    const snapshot = firstDifference(expected, implSnapshot);
    return snapshot === undefined ? undefined : { kind: 'alias', snapshot, implSnapshot };
  } catch (e) {
    if (isTimeLimit(e)) return 'time_limit';
    return { kind: 'impl_error', error: `snapshot threw ${errorText(e)}` };
  }
}
