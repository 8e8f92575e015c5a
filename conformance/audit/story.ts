/**
 * A finding told as a story, in the concurrent story's terms (conformance/concurrent/story.ts):
 * the operations in the order of their invokes, each with its [invoke → return] times, its
 * outcome and the lines that recorded it (`file:line`); the longest order the contract allows
 * marked ✓, the operations the search was stuck on marked ✕ with the rule they break. Every word
 * a recorder wrote (ids, tokens, codes) goes through outsideText. Pure.
 */
import { outsideText } from '../outside/outsideText.ts';
import type { AuditOp } from './types.ts';

/** `file:1,2` for an operation's lines, or `file:3` for one. Pure. */
export function whereOf(op: AuditOp): string {
  return `${op.file}:${op.lines.join(',')}`;
}

/** Every `file:line` of some operations, sorted and deduplicated. Pure. */
export function linesOf(ops: readonly AuditOp[]): string {
  const byFile = new Map<string, Set<number>>();
  for (const op of ops) {
    const set = byFile.get(op.file) ?? new Set<number>();
    for (const l of op.lines) set.add(l);
    byFile.set(op.file, set);
  }
  return [...byFile].map(([file, lines]) => `${file}:${[...lines].sort((a, b) => a - b).join(',')}`).join(' ');
}

/** An operation in a few words: `claim by w1 → token "t2" lease until 31000`. Pure. */
export function describeOp(op: AuditOp): string {
  const by = op.worker === undefined ? '' : ` by ${op.worker}`;
  const token = op.token === undefined ? '' : ` token ${JSON.stringify(op.token)}`;
  switch (op.kind) {
    case 'submit':
      return `submit ${op.job ?? '?'}${op.account === undefined ? '' : ` ${op.account}`}${op.key === undefined ? '' : `/${op.key}`}${op.deadline === undefined ? '' : ` deadline ${op.deadline}`}`;
    case 'claim':
      return `claim${by} →${token}${op.leaseUntil === undefined ? '' : ` lease until ${op.leaseUntil}`}`;
    case 'commit':
      return `commit${by}${token}${op.key === undefined ? '' : ` key ${op.key}`}${op.applied === undefined ? '' : op.applied ? ' (applied)' : ' (reused)'}`;
    case 'extend':
      return `extend${by}${token}${op.leaseUntil === undefined ? '' : ` to ${op.leaseUntil}`}`;
    case 'fail':
      return `fail${by}${token}${op.next === undefined ? '' : ` → ${op.next}`}`;
    case 'ack':
      return `ack${by}${token}`;
    default:
      return `broker: ${op.kind}${token}`;
  }
}

/** The times of an operation: `[1100 → 1103]`, or `[1100 → ?]` for an unknown outcome. Pure. */
const timesOf = (op: AuditOp): string => `[${op.invokedAt} → ${op.returnedAt ?? '?'}]`;

/** One line of a story for an operation, with a mark and a step number. Pure. */
export function opLine(op: AuditOp, mark: string): string {
  return outsideText(
    `  ${mark.padEnd(4)} ${describeOp(op).padEnd(52)} ${timesOf(op).padEnd(26)} ${op.outcome.padEnd(14)} ${whereOf(op)}`,
  );
}

/**
 * The story of a job no order explains: `ordered` the longest order found (its operations), then
 * each stuck operation with why. Pure.
 */
export function partStory(
  job: string,
  ops: readonly AuditOp[],
  ordered: readonly AuditOp[],
  stuck: readonly { readonly op: AuditOp; readonly why: string }[],
): string {
  const lines = [
    outsideText(
      `Job ${JSON.stringify(job)}: ${ops.length} operation(s), by invoke time; [invoke → return], outcome, the lines that recorded it.`,
    ),
  ];
  const step = new Map(ordered.map((op, i) => [op, i + 1]));
  const stuckOf = new Map(stuck.map((s) => [s.op, s.why]));
  for (const op of [...ops].sort((a, b) => a.invokedAt - b.invokedAt)) {
    const n = step.get(op);
    const why = stuckOf.get(op);
    lines.push(opLine(op, n !== undefined ? `✓${n}` : why !== undefined ? '✕' : ''));
    if (why !== undefined) lines.push(outsideText(`       >> ${why}`));
  }
  lines.push(
    ordered.length === 0
      ? 'No operation can come first.'
      : `✓ marks the longest order the contract allows (${ordered.length} step(s)); after it, no operation marked ✕ is allowed.`,
  );
  lines.push(outsideText(`The lines that prove it: ${linesOf([...ordered, ...stuck.map((s) => s.op)])}`));
  return lines.join('\n');
}
