/**
 * What a job's part leaves for the second pass (a JobSummary: a few operations a job, never the
 * whole history), and the findings of the rules that couple jobs, told as stories:
 * - Capacity: a job is certainly unresolved from the latest instant its submit could have taken
 *   effect to the earliest its resolution could have (an ack, a fail, a dead letter, its
 *   deadline, or the end of a lease, after which a last attempt could have died); more than
 *   `capacity` certainly unresolved at once is an overrun.
 * - Account order: a claim of job B while a job A of its account, certainly admitted before B,
 *   is certainly unresolved jumps the account's order (a claim takes only heads).
 * secondPass.ts finds both as a sweep over time; ledger.ts keeps the effects. Each is decided
 * with the declared clock uncertainty `u`, and again with none: found only without it, the
 * verdict hangs on less than the uncertainty and is INCONCLUSIVE. Pure.
 */
import { linesOf, opLine } from './story.ts';
import type { AuditOp, Finding } from './types.ts';
import { outsideText } from '../outside/outsideText.ts';

/** What a job's part leaves for the second pass. */
export interface JobSummary {
  readonly job: string;
  readonly account: string | undefined;
  /** The submit that admitted it (the first one whose outcome is ok), if recorded. */
  readonly submit: AuditOp | undefined;
  /** The earliest instant it could have been resolved (Infinity: never). */
  readonly resolvedEarliest: number;
  /** The operation that sets `resolvedEarliest`, when one does (else the deadline or a lease). */
  readonly resolvedBy: AuditOp | undefined;
  /** Its claims whose outcome is ok. */
  readonly claims: readonly AuditOp[];
}

/** The summary of one job's operations. Pure. */
export function summarize(job: string, ops: readonly AuditOp[]): JobSummary {
  let submit: AuditOp | undefined;
  let account: string | undefined;
  let resolvedEarliest = Number.POSITIVE_INFINITY;
  let resolvedBy: AuditOp | undefined;
  const claims: AuditOp[] = [];
  const earlier = (at: number | undefined, by: AuditOp | undefined): void => {
    if (at !== undefined && at < resolvedEarliest) {
      resolvedEarliest = at;
      resolvedBy = by;
    }
  };
  for (const op of ops) {
    if (op.outcome === 'ok' && op.kind !== 'submit') account ??= op.account;
    if (op.kind === 'submit' && op.outcome === 'ok' && (submit === undefined || op.invokedAt < submit.invokedAt))
      submit = op;
    if (op.kind === 'submit' || op.kind === 'claim') earlier(op.deadline, undefined);
    if (op.kind === 'claim' && op.outcome === 'ok') {
      claims.push(op);
      earlier(op.leaseUntil, undefined);
    }
    if (op.kind === 'ack' || op.kind === 'fail' || op.kind === 'dead_lettered')
      if (op.outcome === 'ok' || op.outcome === 'unknown') earlier(op.invokedAt, op);
  }
  // The admitting submit says the account; a refused submit of the same id may have named another.
  return { job, account: submit?.account ?? account, submit, resolvedEarliest, resolvedBy, claims };
}

/** The capacity finding for `exact`, the jobs unresolved at once: a violation when `certain`. Pure. */
export function capacityFinding(exact: readonly JobSummary[], certain: boolean, capacity: number, u: number): Finding {
  const ops = exact.flatMap((s) => [s.submit, s.resolvedBy].filter((o): o is AuditOp => o !== undefined));
  const story = [
    `${exact.length} jobs were unresolved at once, above the capacity ${capacity}: each was admitted (its submit returned) before the next one's window began and none could have been resolved yet.`,
    ...exact.flatMap((s) => [
      outsideText(`  job ${JSON.stringify(s.job)}: unresolved until at least ${s.resolvedEarliest}`),
      ...(s.submit === undefined ? [] : [opLine(s.submit, '')]),
    ]),
    outsideText(`The lines that prove it: ${linesOf(ops)}`),
  ].join('\n');
  const summary = `${exact.length} jobs unresolved at once, capacity ${capacity}`;
  const lines = ops.flatMap((o) => o.lines);
  return certain
    ? { kind: 'violation', rule: 'capacity', subject: 'capacity', summary, story, lines }
    : {
        kind: 'inconclusive',
        rule: 'capacity',
        subject: 'capacity',
        summary: `${summary}, only if the clocks are closer than the declared uncertainty ${u}`,
        story,
        lines,
      };
}

/** A jump of an account's order: job `b`'s `claim` while the earlier job `a` was unresolved. */
export type Jump = readonly [b: JobSummary, claim: AuditOp, a: JobSummary];

/** The account-order finding for a jump: a violation when `certain`. Pure. */
export function orderFinding(account: string, [b, claim, a]: Jump, certain: boolean, u: number): Finding {
  const ops = [a.submit, b.submit, claim].filter((o): o is AuditOp => o !== undefined);
  const summary = `job ${JSON.stringify(b.job)} of account ${JSON.stringify(account)} was delivered while the earlier job ${JSON.stringify(a.job)} was unresolved`;
  const story = [
    outsideText(
      `Account ${JSON.stringify(account)}: a claim takes only the account's head, its unresolved job admitted first.`,
    ),
    ...ops.map((o) => opLine(o, '')),
    outsideText(
      `  >> job ${JSON.stringify(a.job)} was admitted before job ${JSON.stringify(b.job)} was submitted and could not have been resolved before ${a.resolvedEarliest}, yet job ${JSON.stringify(b.job)} was delivered at ${claim.invokedAt}.`,
    ),
    outsideText(`The lines that prove it: ${linesOf(ops)}`),
  ].join('\n');
  const lines = ops.flatMap((o) => o.lines);
  return certain
    ? { kind: 'violation', rule: 'account-order', subject: `account ${account}`, summary, story, lines }
    : {
        kind: 'inconclusive',
        rule: 'account-order',
        subject: `account ${account}`,
        summary: `${summary}, only if the clocks are closer than the declared uncertainty ${u}`,
        story,
        lines,
      };
}
