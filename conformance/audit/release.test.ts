import { describe, expect, it } from 'vitest';
import { FingerprintSet } from './fingerprints.ts';
import { auditHistory, readHistory } from './index.ts';
import type { AuditOptions, AuditResult } from './index.ts';

const HEADER = { type: 'header', format: 'jobcheck-history/1', source: 'test' };

/** A complete history file from its lines, in the order given (the file's order, not the times'). */
function file(events: readonly object[], header: object = HEADER): string {
  const lines = [header, ...events].map((l) => JSON.stringify(l));
  return `${[...lines, JSON.stringify({ type: 'end', lines: lines.length })].join('\n')}\n`;
}

const audit = (text: string, options: AuditOptions = {}): Promise<AuditResult> =>
  auditHistory([readHistory([text], 'h.jsonl')], options);

const op = (id: string, o: string, t0: number, fields: object, outcome = 'ok') => ({
  type: 'op',
  id,
  op: o,
  invokedAt: t0,
  returnedAt: t0 + 1,
  outcome,
  ...fields,
});

/** Another job's lines at `t`, moving the history on. */
const other = (n: number, t: number) => op(`x${n}`, 'submit', t, { job: `x${n}`, account: `b${n}`, key: `kx${n}` });

const rulesOf = (r: AuditResult) => r.findings.map((f) => (f.kind === 'gap' ? `gap ${f.gap}` : `${f.kind} ${f.rule}`));

describe('a part is released once the history has moved the window past its last line', () => {
  it("judges a job whole when its lines come out of order within the window: a stale holder's ack that landed", async () => {
    const lines = [
      op('s', 'submit', 0, { job: 'j', account: 'a', key: 'k' }),
      op('c1', 'claim', 10, { job: 'j', worker: 'w1', token: 't1', leaseUntil: 100 }),
      op('c2', 'claim', 150, { job: 'j', worker: 'w2', token: 't2', leaseUntil: 250 }),
      other(1, 400),
      other(2, 700),
      // w1's ack at 160, written 540 ms late: within the window of 1000.
      op('a1', 'ack', 160, { job: 'j', worker: 'w1', token: 't1' }),
    ];
    const r = await audit(file(lines), { windowMs: 1000 });
    expect(r.verdict).toBe('fail');
    expect(rulesOf(r)).toEqual(['violation stale-ack-landed']);
    // The claim that handed out its token, written after the ack: still one part.
    const claimLate = [lines[0] as object, lines[2] as object, other(1, 400), lines[5] as object, lines[1] as object];
    expect(rulesOf(await audit(file(claimLate), { windowMs: 1000 }))).toEqual(['violation stale-ack-landed']);
  });

  it('names a completion that comes after its job was released: INCONCLUSIVE, never dropped, never a pass', async () => {
    const done = [
      op('s', 'submit', 0, { job: 'j', account: 'a', key: 'k' }),
      op('c1', 'claim', 10, { job: 'j', worker: 'w1', token: 't1', leaseUntil: 100 }),
      op('m1', 'commit', 20, { job: 'j', worker: 'w1', token: 't1', account: 'a', key: 'k', applied: true }),
      op('a1', 'ack', 30, { job: 'j', worker: 'w1', token: 't1' }),
      other(1, 2000),
    ];
    expect((await audit(file(done), { windowMs: 1000 })).verdict).toBe('pass');
    // A second ack of the same delivery, 1970 ms after the job's last line: its part was released.
    const late = await audit(file([...done, op('a2', 'ack', 40, { job: 'j', worker: 'w1', token: 't1' })]), {
      windowMs: 1000,
    });
    expect(late.verdict).toBe('inconclusive');
    expect(late.findings).toEqual([expect.objectContaining({ kind: 'gap', gap: 'late_line', subject: 'job j' })]);
    // The same line within the window is judged with its part: the job was already done.
    const inWindow = await audit(file([...done, op('a2', 'ack', 40, { job: 'j', worker: 'w1', token: 't1' })]), {
      windowMs: 5000,
    });
    expect(rulesOf(inWindow)).toEqual(['violation resolved-job-changed']);
  });

  it("finds an account-order jump between a job released early and one still open (the sweep waits for the open one's instants)", async () => {
    // Job A runs 5 s, extending its lease; B of the same account is submitted after A and
    // delivered at 200 while A is unresolved; B's part is released long before A's.
    const extend = (n: number, t: number) =>
      op(`e${n}`, 'extend', t, { job: 'A', worker: 'w1', token: 'tA', leaseUntil: t + 10_000 });
    const lines = [
      op('sA', 'submit', 0, { job: 'A', account: 'acct', key: 'kA' }),
      op('cA', 'claim', 10, { job: 'A', account: 'acct', worker: 'w1', token: 'tA', leaseUntil: 10_000 }),
      op('sB', 'submit', 100, { job: 'B', account: 'acct', key: 'kB' }),
      op('cB', 'claim', 200, { job: 'B', account: 'acct', worker: 'w2', token: 'tB', leaseUntil: 10_000 }),
      op('aB', 'ack', 300, { job: 'B', worker: 'w2', token: 'tB' }),
      ...[900, 1800, 2700, 3600, 4500].map((t, n) => extend(n, t)),
      op('aA', 'ack', 5000, { job: 'A', worker: 'w1', token: 'tA' }),
    ];
    const r = await audit(file(lines), { windowMs: 1000 });
    expect(rulesOf(r)).toEqual(['violation account-order']);
    // Resolved before B's delivery, A leaves the account's order whole.
    const inOrder = lines.map((l) =>
      l === lines[10] ? op('aA', 'ack', 150, { job: 'A', worker: 'w1', token: 'tA' }) : l,
    );
    expect((await audit(file(inOrder.slice(0, 5).concat(inOrder.slice(10))), { windowMs: 1000 })).verdict).toBe('pass');
  });

  it('stops with INCONCLUSIVE naming its budget when a job stays open past what it may hold, never a crash or a pass', async () => {
    const lines = [
      op('s', 'submit', 0, { job: 'j', account: 'a', key: 'k' }),
      op('c', 'claim', 10, { job: 'j', worker: 'w1', token: 't', leaseUntil: 1_000_000 }),
      ...Array.from({ length: 40 }, (_, n) =>
        op(`e${n}`, 'extend', 100 + 100 * n, { job: 'j', worker: 'w1', token: 't', leaseUntil: 1_000_000 }),
      ),
    ];
    expect((await audit(file(lines), { windowMs: 1000 })).verdict).toBe('pass');
    const r = await audit(file(lines), { windowMs: 1000, maxHeld: 20 });
    expect(r.verdict).toBe('inconclusive');
    expect(r.findings).toEqual([
      expect.objectContaining({ kind: 'gap', gap: 'memory_budget', summary: expect.stringContaining('maxHeld') }),
    ]);
    expect(r.findings[0]?.summary).toMatch(/stopped at line 22: .*past its budget of 20 .*1 job\(s\) still open/);
  });
});

describe('the effect ledger across the window', () => {
  it('calls an effect applied again after its first left the window INCONCLUSIVE, naming the earlier line', async () => {
    const job = (j: string, t: number) => [
      op(`s${j}`, 'submit', t, { job: j, account: 'a', key: `k${j}` }),
      op(`c${j}`, 'claim', t + 10, { job: j, worker: 'w', token: `t${j}`, leaseUntil: t + 100 }),
      op(`m${j}`, 'commit', t + 20, {
        job: j,
        worker: 'w',
        token: `t${j}`,
        account: 'a',
        key: 'effect',
        applied: true,
      }),
      op(`a${j}`, 'ack', t + 30, { job: j, worker: 'w', token: `t${j}` }),
    ];
    // Job 1 is released at 1400, job 2 at the end: its first application is still held in full.
    const near = await audit(file([...job('1', 0), ...job('2', 500), other(1, 1400)]), { windowMs: 1000 });
    expect(rulesOf(near)).toEqual(['violation double-effect']);
    const far = await audit(file([...job('1', 0), other(1, 2000), ...job('2', 4000)]), { windowMs: 1000 });
    expect(far.verdict).toBe('inconclusive');
    expect(rulesOf(far)).toEqual(['inconclusive double-effect']);
    expect(far.findings[0]?.summary).toContain('applied before at h.jsonl:4');
  });
});

describe('the fingerprints of released jobs', () => {
  it('keeps every entry through growth and refuses past its budget', () => {
    const set = new FingerprintSet(2000, true);
    for (let i = 0; i < 2000; i++) expect(set.add(`job-${i}`, { file: 1, line: i + 1 })).toBe('added');
    expect(set.add('job-2000')).toBe('full');
    for (let i = 0; i < 2000; i++) expect(set.has(`job-${i}`)).toEqual({ file: 1, line: i + 1 });
    expect(set.add('job-17')).toEqual({ file: 1, line: 18 });
    expect(set.has('job-2000')).toBeUndefined();
  });
});
