/**
 * The second pass as a sweep over time, fed job summaries as their parts are released: capacity
 * (each job's certain unresolved window opens and closes; more than `capacity` open at once is an
 * overrun) and account order (an account's admitted jobs leave the one unresolved longest; each
 * job's claims, at its submit, are held against it). Both are run with the declared uncertainty
 * `u` and, when u > 0, with none (accounts.ts tells the findings).
 *
 * The sweep only moves up to a frontier the caller guarantees (no summary still to come has an
 * instant before it), so memory holds the summaries waiting for the frontier, the windows open at
 * once (at most `capacity` + 1) and one summary an account, never the history. A summary that
 * comes with an instant the sweep has already passed cannot be judged: `add` names it as a gap.
 * At equal instants a window closes before one opens, and a check comes before an admission.
 */
import { MinHeap } from '../../impl/memory/heap.ts';
import { type JobSummary, type Jump, capacityFinding, orderFinding } from './accounts.ts';
import type { Finding } from './types.ts';

/** One sweep at one uncertainty `v`. */
class Sweep {
  private readonly starts = new MinHeap<JobSummary>();
  private readonly ends = new MinHeap<JobSummary>();
  private readonly active = new Set<JobSummary>();
  overrun: JobSummary[] | undefined;
  private readonly checks = new MinHeap<JobSummary>();
  private readonly admits = new MinHeap<JobSummary>();
  /** Each account's admitted job unresolved longest. */
  private readonly heads = new Map<string, JobSummary>();
  readonly jumps = new Map<string, Jump>();

  constructor(
    private readonly v: number,
    private readonly capacity: number | undefined,
    private readonly ordered: boolean,
  ) {}

  /** Events waiting for the frontier, and windows open. */
  get held(): number {
    return this.starts.size + this.ends.size + this.checks.size + this.admits.size;
  }

  /** The earliest instant `s` puts on this sweep (Infinity: none). */
  earliest(s: JobSummary): number {
    const submit = s.submit;
    if (submit?.returnedAt === undefined) return Number.POSITIVE_INFINITY;
    if (this.ordered && s.account !== undefined) return submit.invokedAt - 2 * this.v;
    return this.capacity === undefined ? Number.POSITIVE_INFINITY : submit.returnedAt + this.v;
  }

  add(s: JobSummary): void {
    const submit = s.submit;
    if (submit?.returnedAt === undefined) return;
    if (this.capacity !== undefined && this.overrun === undefined) {
      const from = submit.returnedAt + this.v;
      if (from < s.resolvedEarliest - this.v) this.starts.push(from, s, 0);
    }
    if (this.ordered && s.account !== undefined && !this.jumps.has(s.account)) {
      this.admits.push(submit.returnedAt, s, 0);
      this.checks.push(submit.invokedAt - 2 * this.v, s, 0);
    }
  }

  /** Moves the sweep over every instant before `until`. */
  advance(until: number): void {
    for (;;) {
      const end = this.ends.peekKey();
      const start = this.starts.peekKey();
      if (Math.min(end, start) >= until) break;
      if (end <= start) {
        this.active.delete(this.ends.peekValue());
        this.ends.pop();
        continue;
      }
      const s = this.starts.peekValue();
      this.starts.pop();
      if (this.overrun !== undefined) continue;
      this.active.add(s);
      const to = s.resolvedEarliest - this.v;
      if (to !== Number.POSITIVE_INFINITY) this.ends.push(to, s, 0);
      if (this.active.size > (this.capacity ?? Number.POSITIVE_INFINITY)) {
        this.overrun = [...this.active];
        this.active.clear();
        this.ends.retain(() => false);
      }
    }
    for (;;) {
      const check = this.checks.peekKey();
      const admit = this.admits.peekKey();
      if (Math.min(check, admit) >= until) break;
      if (check <= admit) {
        this.check(this.checks.peekValue());
        this.checks.pop();
      } else {
        this.admit(this.admits.peekValue());
        this.admits.pop();
      }
    }
  }

  private check(b: JobSummary): void {
    const account = b.account as string;
    const a = this.heads.get(account);
    if (a === undefined || this.jumps.has(account)) return;
    for (const claim of b.claims)
      if (a.resolvedEarliest - this.v > (claim.returnedAt ?? claim.invokedAt) + this.v) {
        this.jumps.set(account, [b, claim, a]);
        return;
      }
  }

  private admit(s: JobSummary): void {
    const account = s.account as string;
    const head = this.heads.get(account);
    if (head === undefined || head.resolvedEarliest < s.resolvedEarliest) this.heads.set(account, s);
  }
}

/** The second pass over summaries as they come. */
export class SecondPass {
  private readonly certain: Sweep;
  private readonly exact: Sweep | undefined;
  private swept = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly capacity: number | undefined,
    ordered: boolean,
    private readonly u: number,
  ) {
    this.certain = new Sweep(u, capacity, ordered);
    this.exact = u > 0 ? new Sweep(0, capacity, ordered) : undefined;
  }

  /** Summaries' events waiting, and windows open. */
  get held(): number {
    return this.certain.held + (this.exact?.held ?? 0);
  }

  /** Takes a released job's summary; a gap when the sweep has already passed one of its instants. */
  add(s: JobSummary): Finding | undefined {
    const earliest = Math.min(this.certain.earliest(s), this.exact?.earliest(s) ?? Number.POSITIVE_INFINITY);
    if (earliest < this.swept)
      return {
        kind: 'gap',
        gap: 'late_line',
        subject: `job ${s.job}`,
        summary: `job ${JSON.stringify(s.job)} was released after the accounts' pass had moved past its submit at ${s.submit?.invokedAt} (its lines came more than the window out of order): its capacity and account order are not judged`,
        lines: s.submit?.lines ?? [],
      };
    this.certain.add(s);
    this.exact?.add(s);
    return undefined;
  }

  /** Judges every instant before `frontier`: the caller guarantees no later summary reaches before it. */
  advance(frontier: number): void {
    if (frontier <= this.swept) return;
    this.swept = frontier;
    this.certain.advance(frontier);
    this.exact?.advance(frontier);
  }

  /** Ends the sweep; the findings of both rules. */
  finish(): Finding[] {
    this.advance(Number.POSITIVE_INFINITY);
    const findings: Finding[] = [];
    const overrun = this.certain.overrun ?? this.exact?.overrun;
    if (overrun !== undefined && this.capacity !== undefined)
      findings.push(capacityFinding(overrun, this.certain.overrun !== undefined, this.capacity, this.u));
    const accounts = new Set([...this.certain.jumps.keys(), ...(this.exact?.jumps.keys() ?? [])]);
    for (const account of accounts) {
      const certain = this.certain.jumps.get(account);
      const jump = certain ?? this.exact?.jumps.get(account);
      if (jump !== undefined) findings.push(orderFinding(account, jump, certain !== undefined, this.u));
    }
    return findings;
  }
}
