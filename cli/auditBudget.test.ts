/**
 * `jobcheck audit --max-held`: the budget of what the audit holds at once is a flag; past it the
 * audit stops with exit 3 and a gap naming the budget, and a bad value is a usage error (exit 2).
 * conformance/audit/release.test.ts holds a job kept open like this one passing within its budget.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCliCaptured } from './runCliCaptured.ts';

const dir = await mkdtemp(join(tmpdir(), 'jobcheck-audit-budget-'));
afterAll(() => rm(dir, { recursive: true, force: true }));

/** One job extended 30 times: 32 operations of one job open at once. */
async function history(): Promise<string> {
  const op = (id: string, o: string, t: number, more: object) =>
    JSON.stringify({ type: 'op', id, op: o, invokedAt: t, returnedAt: t + 1, outcome: 'ok', job: 'j', ...more });
  const held = { worker: 'w', token: 't', leaseUntil: 1_000_000 };
  const lines = [
    JSON.stringify({ type: 'header', format: 'jobcheck-history/1' }),
    op('s', 'submit', 0, { account: 'a', key: 'k' }),
    op('c', 'claim', 10, held),
    ...Array.from({ length: 30 }, (_, n) => op(`e${n}`, 'extend', 100 + 100 * n, held)),
  ];
  const file = join(dir, 'open.jsonl');
  await writeFile(file, `${[...lines, JSON.stringify({ type: 'end', lines: lines.length })].join('\n')}\n`);
  return file;
}

describe('jobcheck audit --max-held', () => {
  it('stops INCONCLUSIVE (exit 3) naming the budget past it, and refuses a bad value', async () => {
    const file = await history();
    const report = ['--report', join(dir, 'runs')];
    const over = await runCliCaptured(['audit', file, '--max-held', '10', ...report]);
    expect(over.code).toBe(3);
    expect(over.stdout).toMatch(
      /^GAP memory_budget: the audit stopped at line 12: .*past its budget of 10 \(maxHeld\)/m,
    );
    const bad = await runCliCaptured(['audit', file, '--max-held', '0', ...report]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--max-held');
  });
});
