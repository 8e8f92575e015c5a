/**
 * `auditHistory`: a recorded history judged against the contract, as a list of steps: read the
 * files' events merged in time order; gather each job's operations into its part; close a part
 * once the history has moved `windowMs` past its last operation (a line for it after that is a
 * late line: named, never folded in); check each closed part (checkPart) and keep its summary;
 * then the second pass over accounts (accounts.ts); then the verdict.
 *
 * Verdicts: `fail` when a violation is established, else `inconclusive` when a finding hangs on
 * the clock uncertainty, the checker's budget ran out, or the history lacks what it needs (a gap);
 * `pass` only when every part was checked in full and the file ended with its end line. Memory
 * holds the parts inside the window and a summary of each job, never the whole history.
 */
import type { HistoryHeader } from '../../contract/history.ts';
import type { CheckBudget, History, Operation } from '../concurrent/history.ts';
import { checkLinearizability } from '../concurrent/linearizability.ts';
import { type AbsentField, inOrder, ruledOut } from './absent.ts';
import { EffectLedger, type JobSummary, capacityFindings, orderFindings, summarize } from './accounts.ts';
import { type JobAnswer, jobPartModel } from './jobPart.ts';
import type { ReadEvent } from './read.ts';
import { linesOf, partStory } from './story.ts';
import type { AuditOp, AuditRule, Finding } from './types.ts';
import { HistoryFileError } from './types.ts';

/** How an audit judges. */
export interface AuditOptions {
  /** The declared clock uncertainty between hosts and the broker, in the file's unit. Default 0. */
  readonly clockUncertainty?: number;
  /** How far the history moves past a job's last operation before its part is checked. Default 10 minutes of ms. */
  readonly windowMs?: number;
  /** Overrides the header's capacity. */
  readonly capacity?: number;
  /** Overrides the header's accountOrder. */
  readonly accountOrder?: boolean;
  /** Each part's search budget (default 200,000 steps). */
  readonly budget?: CheckBudget;
}

/** What an audit found and what it checked. */
export interface AuditResult {
  readonly verdict: 'pass' | 'fail' | 'inconclusive';
  readonly findings: readonly Finding[];
  /** What ran, in a few words each (a pass says what it exercised). */
  readonly checked: readonly string[];
  readonly operations: number;
  readonly jobs: number;
  readonly header: HistoryHeader | undefined;
}

/** The default window: 10 minutes, in milliseconds. */
export const DEFAULT_WINDOW_MS = 600_000;
const DEFAULT_PART_STEPS = 200_000;

/** A job's operations while its part is open. */
interface Part {
  readonly ops: AuditOp[];
  readonly ids: Set<string>;
  last: number;
}

/** One source's next event, for the merge. */
interface Head {
  readonly it: AsyncIterator<ReadEvent>;
  event: ReadEvent | undefined;
}

const timeOf = (e: ReadEvent): number =>
  e.type === 'op'
    ? (e.op.returnedAt ?? e.op.invokedAt)
    : e.type === 'header'
      ? Number.NEGATIVE_INFINITY
      : Number.POSITIVE_INFINITY;

/** The events of several sources merged by time (each source in its own order). */
async function* merged(sources: readonly AsyncIterable<ReadEvent>[]): AsyncGenerator<ReadEvent> {
  const heads: Head[] = [];
  for (const s of sources) {
    const it = s[Symbol.asyncIterator]();
    const first = await it.next();
    heads.push({ it, event: first.done === true ? undefined : first.value });
  }
  for (;;) {
    let best: Head | undefined;
    for (const h of heads)
      if (h.event !== undefined && (best?.event === undefined || timeOf(h.event) < timeOf(best.event))) best = h;
    if (best?.event === undefined) return;
    yield best.event;
    const next = await best.it.next();
    best.event = next.done === true ? undefined : next.value;
  }
}

/** Checks a recorded history; throws HistoryFileError for a file that is no history. */
export async function auditHistory(
  sources: readonly AsyncIterable<ReadEvent>[],
  options: AuditOptions = {},
): Promise<AuditResult> {
  const u = options.clockUncertainty ?? 0;
  const windowMs = options.windowMs ?? DEFAULT_WINDOW_MS;
  const findings: Finding[] = [];
  const parts = new Map<string, Part>();
  const closed = new Map<string, JobSummary>();
  const ledger = new EffectLedger();
  let header: HistoryHeader | undefined;
  let latest = Number.NEGATIVE_INFINITY;
  let operations = 0;
  let unattributed = 0;
  const cut: string[] = [];
  const absent = new Set<AbsentField>();
  const close = (job: string, part: Part): void => {
    parts.delete(job);
    findings.push(...checkPart(job, part.ops, u, options.budget, absent), ...ledger.add(part.ops));
    closed.set(job, summarize(job, part.ops));
  };
  for await (const event of merged(sources)) {
    if (event.type === 'header') {
      header ??= event.header;
      for (const field of event.absent ?? []) absent.add(field);
      continue;
    }
    if (event.type === 'end') {
      if (!event.complete) cut.push(event.file ?? '(a file)');
      continue;
    }
    const op = event.op;
    operations++;
    latest = Math.max(latest, timeOf(event));
    if (op.job === undefined) {
      unattributed++;
      continue;
    }
    if (closed.has(op.job)) {
      findings.push({
        kind: 'gap',
        gap: 'late_line',
        subject: `job ${op.job}`,
        summary: `a line for job ${JSON.stringify(op.job)} came after its part was checked (more than ${windowMs} after its last operation, or out of order)`,
        lines: op.lines,
      });
      continue;
    }
    let part = parts.get(op.job);
    if (part === undefined) {
      part = { ops: [], ids: new Set(), last: Number.NEGATIVE_INFINITY };
      parts.set(op.job, part);
    } else {
      // Move it to the end: the parts stay ordered by their latest operation, oldest first.
      parts.delete(op.job);
      parts.set(op.job, part);
    }
    if (part.ids.has(op.id))
      throw new HistoryFileError(
        'duplicate_id',
        `${op.file}:${op.lines.at(-1)}: id ${JSON.stringify(op.id)} of job ${JSON.stringify(op.job)} was recorded twice (a repeated line?)`,
        op.lines.at(-1) ?? 0,
      );
    part.ids.add(op.id);
    part.ops.push(op);
    part.last = Math.max(part.last, timeOf(event));
    for (const [job, p] of parts) {
      if (p.last + windowMs >= latest) break;
      close(job, p);
    }
  }
  for (const [job, p] of [...parts]) close(job, p);
  const summaries = [...closed.values()];
  const capacity = options.capacity ?? header?.capacity;
  const ordered = options.accountOrder ?? header?.accountOrder ?? true;
  if (capacity !== undefined) findings.push(...capacityFindings(summaries, capacity, u));
  if (ordered) findings.push(...orderFindings(summaries, u));
  if (cut.length > 0)
    findings.push({
      kind: 'gap',
      gap: 'truncated',
      subject: 'the history',
      summary: `${cut.length} file(s) have no end line (${cut.join(', ')}): the history may be truncated`,
      lines: [],
    });
  if (absent.size > 0)
    findings.push({
      kind: 'gap',
      gap: 'fields_missing',
      subject: 'the history',
      summary: `the history carries no ${inOrder(absent).join(', ')} (docs/history-format.md, "Absent fields"): not established: ${ruledOut(absent).join(', ')}`,
      lines: [],
    });
  if (unattributed > 0)
    findings.push({
      kind: 'gap',
      gap: 'not_attributable',
      subject: 'claims with no job',
      summary: `${unattributed} operation(s) name no job (claims that found none, were refused or got no reply): no per-job rule judges them`,
      lines: [],
    });
  const perJob = ruledOut(absent).filter((r) => r !== 'account-order' && r !== 'double-effect');
  const checked = [
    `${closed.size} job(s) checked for linearizability against the job lifecycle (clock uncertainty ${u})${perJob.length === 0 ? '' : `, not established: ${perJob.join(', ')}`}`,
    capacity === undefined ? 'capacity: not checked (no capacity in the header or --capacity)' : `capacity ${capacity}`,
    !ordered
      ? 'account order: not checked (accountOrder false)'
      : absent.has('account')
        ? 'account order: not established (no account)'
        : 'account order',
    absent.has('key') ? 'effect ledger: not established (no idempotency key)' : 'effect ledger (commits with applied)',
  ];
  const verdict = findings.some((f) => f.kind === 'violation')
    ? 'fail'
    : findings.some((f) => f.kind === 'inconclusive' || (f.kind === 'gap' && f.gap !== 'not_attributable'))
      ? 'inconclusive'
      : 'pass';
  return { verdict, findings, checked, operations, jobs: closed.size, header };
}

/** A part as the checker's history: ids are positions; times widened by `w` on each side. Pure. */
function asHistory(ops: readonly AuditOp[], w: number): History<AuditOp, JobAnswer> {
  const operations: Operation<AuditOp, JobAnswer>[] = ops.map((op, id) =>
    op.returnedAt === undefined
      ? { id, lane: 0, input: op, invoked: op.invokedAt - w }
      : { id, lane: 0, input: op, invoked: op.invokedAt - w, returned: op.returnedAt + w, output: true },
  );
  return { operations };
}

const SETTLES = new Set(['commit', 'ack', 'fail', 'extend', 'expired', 'redelivered']);

/**
 * One job's part: its gaps named (no submit; a token used that no claim handed out), then checked
 * with the uncertainty and, if that passes, without it. Pure but for the checker's clock.
 */
export function checkPart(
  job: string,
  ops: readonly AuditOp[],
  u: number,
  budget?: CheckBudget,
  absent: ReadonlySet<AbsentField> = new Set(),
): Finding[] {
  const findings: Finding[] = [];
  const submitted = ops.some((op) => op.kind === 'submit');
  if (!submitted)
    findings.push({
      kind: 'gap',
      gap: 'submit_missing',
      subject: `job ${job}`,
      summary: `job ${JSON.stringify(job)} has no submit in the history: it was checked as if submitted before the history began`,
      lines: ops[0]?.lines ?? [],
    });
  const handed = new Set(ops.filter((op) => op.kind === 'claim' && op.token !== undefined).map((op) => op.token));
  const orphans = ops.filter((op) => SETTLES.has(op.kind) && op.token !== undefined && !handed.has(op.token));
  if (orphans.length > 0) {
    findings.push({
      kind: 'gap',
      gap: 'token_never_handed_out',
      subject: `job ${job}`,
      summary: `job ${JSON.stringify(job)}: token(s) ${[...new Set(orphans.map((o) => JSON.stringify(o.token)))].join(', ')} used but never handed out by a recorded claim; the job is not judged (${linesOf(orphans)})`,
      lines: orphans.flatMap((o) => o.lines),
    });
    return findings;
  }
  const limits = { maxSteps: DEFAULT_PART_STEPS, ...budget };
  const wide = checkLinearizability(jobPartModel(u, !submitted, absent), asHistory(ops, u / 2), limits);
  const exact =
    wide.verdict === 'linearizable' && u > 0
      ? checkLinearizability(jobPartModel(0, !submitted, absent), asHistory(ops, 0), limits)
      : wide;
  const decided = wide.verdict === 'not_linearizable' ? wide : exact;
  if (decided.verdict === 'linearizable') return findings;
  if (decided.verdict === 'unknown') {
    findings.push({
      kind: 'gap',
      gap: 'checker_budget',
      subject: `job ${job}`,
      summary: `job ${JSON.stringify(job)}: the checker's ${decided.reason} budget ran out after ${decided.steps} steps (${ops.length} operations)`,
      lines: ops.flatMap((o) => o.lines),
    });
    return findings;
  }
  const ordered = decided.witness.longestOrder.map((id) => ops[id] as AuditOp);
  const stuck = decided.witness.stuck.map((s) => {
    const answer = s.expected;
    return {
      op: ops[s.id] as AuditOp,
      why: answer === true ? 'allowed here' : answer.why,
      rule: answer === true ? undefined : answer.rule,
    };
  });
  const first = stuck.find((s) => s.rule !== undefined);
  const rule: AuditRule = first?.rule ?? 'stale-ack-landed';
  const story = partStory(
    job,
    ops,
    ordered,
    stuck.filter((s) => s.rule !== undefined),
  );
  const lines = [...ordered, ...stuck.map((s) => s.op)].flatMap((o) => o.lines);
  const summary = `job ${JSON.stringify(job)}: ${first?.why ?? 'no order of its operations is allowed'}`;
  findings.push(
    wide.verdict === 'not_linearizable'
      ? { kind: 'violation', rule, subject: `job ${job}`, summary, story, lines }
      : {
          kind: 'inconclusive',
          rule,
          subject: `job ${job}`,
          summary: `${summary}, only if the clocks are closer than the declared uncertainty ${u}`,
          story,
          lines,
        },
  );
  return findings;
}
