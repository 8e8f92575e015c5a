/**
 * The second pass: the rules that couple jobs, over what each job's part left behind (a
 * JobSummary, a few operations a job, never the whole history).
 * - Capacity: a job is certainly unresolved from the latest instant its submit could have taken
 *   effect to the earliest its resolution could have (an ack, a fail, a dead letter, its
 *   deadline, or the end of a lease, after which a last attempt could have died); more than
 *   `capacity` certainly unresolved at once is an overrun.
 * - Account order: a claim of job B while a job A of its account, certainly admitted before B,
 *   is certainly unresolved jumps the account's order (a claim takes only heads).
 * - The effect ledger (effects.ts keeps it as parts close): two applied commits of one
 *   (account, key) are a double effect.
 * Each is decided with the declared clock uncertainty `u`, and again with none: found only
 * without it, the verdict hangs on less than the uncertainty and is INCONCLUSIVE. Pure.
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

/** Where a job's certain unresolved window is, with uncertainty u. */
const windowOf = (s: JobSummary, u: number): { from: number; to: number } | undefined =>
  s.submit?.returnedAt === undefined ? undefined : { from: s.submit.returnedAt + u, to: s.resolvedEarliest - u };

/** The first instant more than `capacity` jobs are certainly unresolved, with those jobs. Pure. */
function overrun(summaries: readonly JobSummary[], capacity: number, u: number): JobSummary[] | undefined {
  const events: { at: number; delta: 1 | -1; s: JobSummary }[] = [];
  for (const s of summaries) {
    const w = windowOf(s, u);
    if (w === undefined || !(w.from < w.to)) continue;
    events.push({ at: w.from, delta: 1, s }, { at: w.to, delta: -1, s });
  }
  // At one instant an end comes before a start: a window is half-open.
  events.sort((a, b) => a.at - b.at || a.delta - b.delta);
  const active = new Set<JobSummary>();
  for (const e of events) {
    if (e.delta === 1) active.add(e.s);
    else active.delete(e.s);
    if (active.size > capacity) return [...active];
  }
  return undefined;
}

/** The capacity check: an overrun certain despite `u` is a violation; one certain only without it, inconclusive. Pure. */
export function capacityFindings(summaries: readonly JobSummary[], capacity: number, u: number): Finding[] {
  const certain = overrun(summaries, capacity, u);
  const exact = certain ?? (u > 0 ? overrun(summaries, capacity, 0) : undefined);
  if (exact === undefined) return [];
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
  return [
    certain !== undefined
      ? { kind: 'violation', rule: 'capacity', subject: 'capacity', summary, story, lines }
      : {
          kind: 'inconclusive',
          rule: 'capacity',
          subject: 'capacity',
          summary: `${summary}, only if the clocks are closer than the declared uncertainty ${u}`,
          story,
          lines,
        },
  ];
}

/** The first claim of an account that jumps its order with uncertainty u: [the claim's job, the claim, the head]. Pure. */
function jump(jobs: readonly JobSummary[], u: number): [JobSummary, AuditOp, JobSummary] | undefined {
  const admitted = jobs
    .filter((s) => s.submit?.returnedAt !== undefined)
    .sort((a, b) => (a.submit?.returnedAt ?? 0) - (b.submit?.returnedAt ?? 0));
  const ends = admitted.map((s) => s.submit?.returnedAt ?? 0);
  // The job of admitted[0..i] that stays unresolved longest.
  const latest: JobSummary[] = [];
  admitted.forEach((s, i) => {
    const before = latest[i - 1];
    latest.push(before !== undefined && before.resolvedEarliest >= s.resolvedEarliest ? before : s);
  });
  for (const b of admitted) {
    // The jobs certainly admitted before b was submitted: a prefix of `admitted`.
    const bStart = (b.submit?.invokedAt ?? 0) - 2 * u;
    let lo = 0;
    let hi = ends.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((ends[mid] ?? 0) < bStart) lo = mid + 1;
      else hi = mid;
    }
    const a = latest[lo - 1];
    if (a === undefined) continue;
    for (const claim of b.claims) {
      if (a.resolvedEarliest - u > (claim.returnedAt ?? claim.invokedAt) + u) return [b, claim, a];
    }
  }
  return undefined;
}

/** The account-order check over every account. Pure. */
export function orderFindings(summaries: readonly JobSummary[], u: number): Finding[] {
  const byAccount = new Map<string, JobSummary[]>();
  for (const s of summaries) {
    if (s.account === undefined) continue;
    const list = byAccount.get(s.account) ?? [];
    list.push(s);
    byAccount.set(s.account, list);
  }
  const findings: Finding[] = [];
  for (const [account, jobs] of byAccount) {
    const certain = jump(jobs, u);
    const found = certain ?? (u > 0 ? jump(jobs, 0) : undefined);
    if (found === undefined) continue;
    const [b, claim, a] = found;
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
    findings.push(
      certain !== undefined
        ? { kind: 'violation', rule: 'account-order', subject: `account ${account}`, summary, story, lines }
        : {
            kind: 'inconclusive',
            rule: 'account-order',
            subject: `account ${account}`,
            summary: `${summary}, only if the clocks are closer than the declared uncertainty ${u}`,
            story,
            lines,
          },
    );
  }
  return findings;
}

/** The effect ledger across jobs: the first applied commit of each (account, key). */
export class EffectLedger {
  private readonly first = new Map<string, AuditOp>();

  /** Records a part's applied commits; returns a finding for each second application of an effect. */
  add(ops: readonly AuditOp[]): Finding[] {
    const findings: Finding[] = [];
    for (const op of ops) {
      if (op.kind !== 'commit' || op.outcome !== 'ok' || op.applied !== true || op.key === undefined) continue;
      const id = `${op.account ?? ''}\u0000${op.key}`;
      const earlier = this.first.get(id);
      if (earlier === undefined) {
        this.first.set(id, op);
        continue;
      }
      const story = [
        outsideText(
          `Effect ${JSON.stringify(op.key)} of account ${JSON.stringify(op.account ?? '(none)')} was applied twice: the ledger holds an effect once.`,
        ),
        opLine(earlier, '1'),
        opLine(op, '2'),
        outsideText(`The lines that prove it: ${linesOf([earlier, op])}`),
      ].join('\n');
      findings.push({
        kind: 'violation',
        rule: 'double-effect',
        subject: `job ${op.job ?? '?'}`,
        summary: `effect ${JSON.stringify(op.key)} applied twice (jobs ${JSON.stringify(earlier.job)} and ${JSON.stringify(op.job)})`,
        story,
        lines: [...earlier.lines, ...op.lines],
      });
    }
    return findings;
  }
}
