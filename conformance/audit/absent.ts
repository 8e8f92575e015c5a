/**
 * Fields a history source cannot give (an importer of spans says which), and the rules that each
 * one rules out. The audit then checks what it can without them, never reads an absent field as a
 * value, and reports those rules as not established: a gap, so the verdict is INCONCLUSIVE at best.
 */
import type { AuditRule } from './types.ts';

/** A field of `jobcheck-history/1` that a whole source lacks. */
export type AbsentField = 'token' | 'leaseUntil' | 'worker' | 'account' | 'key';

/** What each absent field rules out, and why (the words the audit prints). */
export const RULED_OUT: Readonly<Record<AbsentField, { readonly rules: readonly AuditRule[]; readonly why: string }>> =
  {
    token: {
      rules: ['stale-ack-landed', 'double-delivery'],
      why: 'no delivery token: a settlement by an earlier delivery to the same worker looks like the current one, and a token handed out twice cannot be seen',
    },
    leaseUntil: {
      rules: ['run-past-lease', 'double-delivery'],
      why: 'no lease deadline: whether a settlement or a second delivery came after the lease ran out cannot be decided',
    },
    worker: {
      rules: ['stale-ack-landed'],
      why: 'no worker on some operations: with no token either, a stale holder cannot be told from the current one',
    },
    account: { rules: ['account-order'], why: 'no account: the order of an account’s jobs cannot be checked' },
    key: { rules: ['double-effect'], why: 'no idempotency key or effect: a double effect cannot be seen' },
  };

/** The absent fields in a stable order. Pure. */
export const inOrder = (absent: ReadonlySet<AbsentField>): AbsentField[] =>
  (Object.keys(RULED_OUT) as AbsentField[]).filter((f) => absent.has(f));

/** The rules the absent fields rule out, each once, in a stable order. Pure. */
export function ruledOut(absent: ReadonlySet<AbsentField>): AuditRule[] {
  const rules = new Set<AuditRule>();
  for (const field of Object.keys(RULED_OUT) as AbsentField[])
    if (absent.has(field)) for (const r of RULED_OUT[field].rules) rules.add(r);
  return [...rules];
}
