/**
 * The effect ledger across jobs: two applied commits of one (account, key) are a double effect.
 * It holds the first application of each effect in full while it is recent (released within
 * `horizon` of the history's latest instant), so that a double effect is told with both
 * operations' lines; an older one is kept only as a fingerprint with its file and line
 * (fingerprints.ts). A second application that meets only the fingerprint is INCONCLUSIVE
 * (two keys may share one), naming the earlier line to look at; never a pass.
 *
 * Memory: the recent effects (what the window holds) and 14 bytes a slot for the rest, within
 * the fingerprints' budget.
 */
import { FingerprintSet } from './fingerprints.ts';
import { linesOf, opLine } from './story.ts';
import type { AuditOp, Finding } from './types.ts';
import { outsideText } from '../outside/outsideText.ts';

/** The first application of an effect, while it is held in full. */
interface Recent {
  readonly op: AuditOp;
  readonly at: number;
}

/** The ledger; `files` names the file index a fingerprint keeps. */
export class EffectLedger {
  private readonly recent = new Map<string, Recent>();
  /** Keys in the order they came, with when: the recent ones are let go from the front. */
  private readonly order: { key: string; at: number }[] = [];
  private head = 0;
  readonly seen: FingerprintSet;

  constructor(
    private readonly files: readonly string[],
    maxEntries: number,
  ) {
    this.seen = new FingerprintSet(maxEntries, true);
  }

  /** Effects held in full. */
  get held(): number {
    return this.recent.size;
  }

  /**
   * Records a part's applied commits at instant `at`; returns a finding for each second
   * application, or `full` when the fingerprints' budget is reached.
   */
  add(ops: readonly AuditOp[], at: number, fileIndex: (file: string) => number): Finding[] | 'full' {
    const findings: Finding[] = [];
    for (const op of ops) {
      if (op.kind !== 'commit' || op.outcome !== 'ok' || op.applied !== true || op.key === undefined) continue;
      const id = `${op.account ?? ''}\u0000${op.key}`;
      const earlier = this.recent.get(id)?.op;
      const place = { file: fileIndex(op.file), line: op.lines.at(-1) ?? 0 };
      const before = this.seen.add(id, place);
      if (before === 'full') return 'full';
      if (before === 'added') {
        this.recent.set(id, { op, at });
        this.order.push({ key: id, at });
        continue;
      }
      findings.push(earlier === undefined ? this.hinted(op, before) : doubleEffect(earlier, op));
    }
    return findings;
  }

  /** Lets go, in full, of the effects recorded before `before` (their fingerprints stay). */
  release(before: number): void {
    while (this.head < this.order.length) {
      const e = this.order[this.head] as { key: string; at: number };
      if (e.at >= before) break;
      if (this.recent.get(e.key)?.at === e.at) this.recent.delete(e.key);
      this.head++;
    }
    if (this.head > 4096 && this.head * 2 > this.order.length) {
      this.order.splice(0, this.head);
      this.head = 0;
    }
  }

  private hinted(op: AuditOp, before: { file: number; line: number }): Finding {
    const where = `${this.files[before.file] ?? '?'}:${before.line}`;
    return {
      kind: 'inconclusive',
      rule: 'double-effect',
      subject: `job ${op.job ?? '?'}`,
      summary: `effect ${JSON.stringify(op.key)} of account ${JSON.stringify(op.account ?? '(none)')} applied again; the ledger's fingerprint says it was applied before at ${where}, which is no longer held: compare the two lines`,
      story: [opLine(op, '2'), outsideText(`The lines to compare: ${where} ${linesOf([op])}`)].join('\n'),
      lines: op.lines,
    };
  }
}

/** A double effect established by both operations. Pure. */
function doubleEffect(earlier: AuditOp, op: AuditOp): Finding {
  const story = [
    outsideText(
      `Effect ${JSON.stringify(op.key)} of account ${JSON.stringify(op.account ?? '(none)')} was applied twice: the ledger holds an effect once.`,
    ),
    opLine(earlier, '1'),
    opLine(op, '2'),
    outsideText(`The lines that prove it: ${linesOf([earlier, op])}`),
  ].join('\n');
  return {
    kind: 'violation',
    rule: 'double-effect',
    subject: `job ${op.job ?? '?'}`,
    summary: `effect ${JSON.stringify(op.key)} applied twice (jobs ${JSON.stringify(earlier.job)} and ${JSON.stringify(op.job)})`,
    story,
    lines: [...earlier.lines, ...op.lines],
  };
}
