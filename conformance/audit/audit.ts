/**
 * `auditHistory`: a recorded history judged against the contract, as a list of steps: read the
 * files' events merged in time order; gather each job's operations into its part; release a part
 * once the history has moved `windowMs` past its last operation (the out-of-order window): check
 * it (checkPart), enter its applied effects in the ledger (ledger.ts), hand its summary to the
 * second pass (secondPass.ts, a sweep over time up to a frontier no part still open can reach
 * before), keep only its fingerprint (a later line of it is a late line: named, never folded in).
 *
 * Verdicts: `fail` when a violation is established, else `inconclusive` when a finding hangs on
 * the clock uncertainty, the checker's budget ran out, or the history lacks what it needs (a gap);
 * `pass` only when every part was checked in full and the file ended with its end line. Memory
 * holds the parts inside the window, the summaries waiting for the frontier, one summary an
 * account and a fingerprint a job: a budget (`maxHeld`, `maxReleased`) that runs out stops the
 * audit with a gap naming it, never a crash or a pass.
 */
import type { HistoryHeader } from '../../contract/history.ts';
import { MinHeap } from '../../impl/memory/heap.ts';
import type { CheckBudget, History, Operation } from '../concurrent/history.ts';
import { checkLinearizability } from '../concurrent/linearizability.ts';
import { type AbsentField, inOrder, ruledOut } from './absent.ts';
import { summarize } from './accounts.ts';
import { FingerprintSet } from './fingerprints.ts';
import { type JobAnswer, jobPartModel } from './jobPart.ts';
import { EffectLedger } from './ledger.ts';
import type { ReadEvent } from './read.ts';
import { SecondPass } from './secondPass.ts';
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
  /** Most operations of open parts plus summaries waiting for the second pass held at once (default 2,000,000). */
  readonly maxHeld?: number;
  /** Most jobs (and as many effects) whose fingerprints are kept once released (default 12,000,000). */
  readonly maxReleased?: number;
}

/** What an audit found and what it checked. */
export interface AuditResult {
  readonly verdict: 'pass' | 'fail' | 'inconclusive';
  /** The first findings of each kind (at most MAX_LISTED each); `checked` says how many more. */
  readonly findings: readonly Finding[];
  /** What ran, in a few words each (a pass says what it exercised). */
  readonly checked: readonly string[];
  readonly operations: number;
  readonly jobs: number;
  readonly header: HistoryHeader | undefined;
  /** The most operations and summaries held at once (what `maxHeld` bounds). */
  readonly peakHeld: number;
}

/** The default window: 10 minutes, in milliseconds. */
export const DEFAULT_WINDOW_MS = 600_000;
/** The default budget of operations and summaries held at once. */
export const DEFAULT_MAX_HELD = 2_000_000;
/** The default budget of released jobs remembered (their fingerprints; as many effects). */
export const DEFAULT_MAX_RELEASED = 12_000_000;
/** Most findings of each kind listed; the rest are counted. */
export const MAX_LISTED = 1000;
const DEFAULT_PART_STEPS = 200_000;

/** A job's operations while its part is open. */
interface Part {
  readonly job: string;
  readonly ops: AuditOp[];
  ids: Set<string> | undefined;
  last: number;
  /** The earliest invoke among its operations (the frontier stays before it). */
  first: number;
  released: boolean;
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

/** The events of several sources merged by time (each source in its own order); closes them all when left. */
async function* merged(sources: readonly AsyncIterable<ReadEvent>[]): AsyncGenerator<ReadEvent> {
  const heads: Head[] = [];
  try {
    for (const s of sources) {
      const it = s[Symbol.asyncIterator]();
      heads.push({ it, event: undefined });
      const first = await it.next();
      (heads.at(-1) as Head).event = first.done === true ? undefined : first.value;
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
  } finally {
    for (const h of heads) if (h.event !== undefined) await h.it.return?.();
  }
}

/** Findings as they come: the first MAX_LISTED of each kind kept, the rest counted. */
class Found {
  readonly list: Finding[] = [];
  private readonly kept = { violation: 0, inconclusive: 0, gap: 0 };
  unlisted = 0;
  violation = false;
  undecided = false;

  push(...findings: readonly Finding[]): void {
    for (const f of findings) {
      if (f.kind === 'violation') this.violation = true;
      else if (f.kind === 'inconclusive' || f.gap !== 'not_attributable') this.undecided = true;
      if (this.kept[f.kind] >= MAX_LISTED) this.unlisted++;
      else {
        this.kept[f.kind]++;
        this.list.push(f);
      }
    }
  }
}

/** Checks a recorded history; throws HistoryFileError for a file that is no history. */
export async function auditHistory(
  sources: readonly AsyncIterable<ReadEvent>[],
  options: AuditOptions = {},
): Promise<AuditResult> {
  const u = options.clockUncertainty ?? 0;
  const windowMs = options.windowMs ?? DEFAULT_WINDOW_MS;
  const maxHeld = options.maxHeld ?? DEFAULT_MAX_HELD;
  const maxReleased = options.maxReleased ?? DEFAULT_MAX_RELEASED;
  const found = new Found();
  const parts = new Map<string, Part>();
  const firsts = new MinHeap<Part>();
  const releasedJobs = new FingerprintSet(maxReleased);
  const files: string[] = [];
  const fileIndex = (file: string): number => {
    const i = files.indexOf(file);
    return i >= 0 ? i : files.push(file) - 1;
  };
  const ledger = new EffectLedger(files, maxReleased);
  let pass: SecondPass | undefined;
  let header: HistoryHeader | undefined;
  let latest = Number.NEGATIVE_INFINITY;
  let operations = 0;
  let unattributed = 0;
  let jobs = 0;
  let heldOps = 0;
  let peakHeld = 0;
  let stop: string | undefined;
  const cut: string[] = [];
  const absent = new Set<AbsentField>();
  const capacity = (): number | undefined => options.capacity ?? header?.capacity;
  const ordered = (): boolean => options.accountOrder ?? header?.accountOrder ?? true;
  const release = (part: Part, second: SecondPass): void => {
    parts.delete(part.job);
    part.released = true;
    heldOps -= part.ops.length;
    jobs++;
    found.push(...checkPart(part.job, part.ops, u, options.budget, absent));
    const effects = ledger.add(part.ops, latest, fileIndex);
    if (effects === 'full') stop ??= `the ledger's budget of ${maxReleased} effects (maxReleased) was reached`;
    else found.push(...effects);
    if (releasedJobs.add(part.job) === 'full')
      stop ??= `the record of released jobs reached its budget of ${maxReleased} jobs (maxReleased)`;
    const late = second.add(summarize(part.job, part.ops));
    if (late !== undefined) found.push(late);
  };
  /** No part still open, nor any line still to come within the window, reaches before this instant. */
  const frontier = (): number => {
    while (firsts.size > 0 && (firsts.peekValue().released || firsts.peekTag() !== firsts.peekValue().first))
      firsts.pop();
    return Math.min(latest - windowMs, firsts.peekKey()) - 2 * u;
  };
  let line = 0;
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
    pass ??= new SecondPass(capacity(), ordered(), u);
    const op = event.op;
    line = event.line;
    operations++;
    latest = Math.max(latest, timeOf(event));
    if (op.job === undefined) {
      unattributed++;
      continue;
    }
    let part = parts.get(op.job);
    if (part === undefined && releasedJobs.has(op.job) !== undefined) {
      found.push({
        kind: 'gap',
        gap: 'late_line',
        subject: `job ${op.job}`,
        summary: `a line for job ${JSON.stringify(op.job)} came after its part was checked and released (more than ${windowMs} after its last operation, or out of order)`,
        lines: op.lines,
      });
      continue;
    }
    if (part === undefined) {
      part = {
        job: op.job,
        ops: [],
        ids: undefined,
        last: Number.NEGATIVE_INFINITY,
        first: op.invokedAt,
        released: false,
      };
      parts.set(op.job, part);
      firsts.push(part.first, part, part.first);
    } else {
      // Move it to the end: the parts stay ordered by their latest operation, oldest first.
      parts.delete(op.job);
      parts.set(op.job, part);
    }
    if (part.ids === undefined && part.ops.length >= 16) part.ids = new Set(part.ops.map((o) => o.id));
    if (part.ids?.has(op.id) ?? part.ops.some((o) => o.id === op.id))
      throw new HistoryFileError(
        'duplicate_id',
        `${op.file}:${op.lines.at(-1)}: id ${JSON.stringify(op.id)} of job ${JSON.stringify(op.job)} was recorded twice (a repeated line?)`,
        op.lines.at(-1) ?? 0,
      );
    part.ids?.add(op.id);
    part.ops.push(op);
    heldOps++;
    part.last = Math.max(part.last, timeOf(event));
    if (op.invokedAt < part.first) {
      part.first = op.invokedAt;
      firsts.push(part.first, part, part.first);
    }
    let moved = false;
    for (const p of parts.values()) {
      if (p.last + windowMs >= latest) break;
      release(p, pass);
      moved = true;
    }
    if (moved) {
      pass.advance(frontier());
      ledger.release(latest - windowMs);
    }
    const held = heldOps + pass.held + ledger.held;
    peakHeld = Math.max(peakHeld, held);
    if (held > maxHeld)
      stop ??= `it held ${held} operations, summaries and effects at once, past its budget of ${maxHeld} (maxHeld)`;
    if (stop !== undefined) break;
  }
  pass ??= new SecondPass(capacity(), ordered(), u);
  if (stop === undefined) for (const p of [...parts.values()]) release(p, pass);
  else
    found.push({
      kind: 'gap',
      gap: 'memory_budget',
      subject: 'the audit',
      summary: `the audit stopped at line ${line}: ${stop}; ${parts.size} job(s) still open were not judged and the rest of the history was not read`,
      lines: [line],
    });
  found.push(...pass.finish());
  if (cut.length > 0)
    found.push({
      kind: 'gap',
      gap: 'truncated',
      subject: 'the history',
      summary: `${cut.length} file(s) have no end line (${cut.join(', ')}): the history may be truncated`,
      lines: [],
    });
  if (absent.size > 0)
    found.push({
      kind: 'gap',
      gap: 'fields_missing',
      subject: 'the history',
      summary: `the history carries no ${inOrder(absent).join(', ')} (docs/history-format.md, "Absent fields"): not established: ${ruledOut(absent).join(', ')}`,
      lines: [],
    });
  if (unattributed > 0)
    found.push({
      kind: 'gap',
      gap: 'not_attributable',
      subject: 'claims with no job',
      summary: `${unattributed} operation(s) name no job (claims that found none, were refused or got no reply): no per-job rule judges them`,
      lines: [],
    });
  const cap = capacity();
  const perJob = ruledOut(absent).filter((r) => r !== 'account-order' && r !== 'double-effect');
  const checked = [
    `${jobs} job(s) checked for linearizability against the job lifecycle (clock uncertainty ${u})${perJob.length === 0 ? '' : `, not established: ${perJob.join(', ')}`}`,
    cap === undefined ? 'capacity: not checked (no capacity in the header or --capacity)' : `capacity ${cap}`,
    !ordered()
      ? 'account order: not checked (accountOrder false)'
      : absent.has('account')
        ? 'account order: not established (no account)'
        : 'account order',
    absent.has('key') ? 'effect ledger: not established (no idempotency key)' : 'effect ledger (commits with applied)',
    ...(found.unlisted > 0
      ? [`${found.unlisted} more finding(s) not listed (the first ${MAX_LISTED} of each kind are)`]
      : []),
  ];
  const verdict = found.violation ? 'fail' : found.undecided ? 'inconclusive' : 'pass';
  return { verdict, findings: found.list, checked, operations, jobs, header, peakHeld };
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

/** The job models by (uncertainty, no submit, absent fields): pure, so one serves every part. */
const models = new Map<string, ReturnType<typeof jobPartModel>>();
function modelOf(u: number, submitted: boolean, absent: ReadonlySet<AbsentField>): ReturnType<typeof jobPartModel> {
  const key = `${u}|${submitted}|${inOrder(absent).join(',')}`;
  let model = models.get(key);
  if (model === undefined) {
    if (models.size > 64) models.clear();
    model = jobPartModel(u, submitted, absent);
    models.set(key, model);
  }
  return model;
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
  const wide = checkLinearizability(modelOf(u, !submitted, absent), asHistory(ops, u / 2), limits);
  const exact =
    wide.verdict === 'linearizable' && u > 0
      ? checkLinearizability(modelOf(0, !submitted, absent), asHistory(ops, 0), limits)
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
