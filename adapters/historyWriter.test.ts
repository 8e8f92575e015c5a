/**
 * The recorders' shared writer: what it writes is valid `jobcheck-history/1` line by line (the
 * contract's zod schema), counted by its end line; it never overwrites a history; a recorded call
 * returns its value and rethrows its error unchanged; a line it could not keep leaves the file
 * without its end line, which the audit reads as truncated, never as a pass.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { HistoryWriter, HistoryWriterError, outcomeCode, payloadHash } from './historyWriter.ts';
import { audit, historyLines, scratch } from './recorderAudit.ts';

const files = scratch();
afterAll(() => files.remove());

/** A clock that moves 1 ms a reading. */
const ticking = (): (() => number) => {
  let t = 1000;
  return () => t++;
};

describe('HistoryWriter', () => {
  it('writes a header, one line an operation and the end line that counts them, each valid', async () => {
    const path = files.file('ok.jsonl');
    const w = HistoryWriter.open({ path, source: 'test', host: 'h1', now: ticking(), capacity: 4 });
    w.op({ op: 'submit', worker: 'p', invokedAt: 1, returnedAt: 2, outcome: 'ok', job: 'j' });
    w.op({
      op: 'claim',
      worker: 'w',
      invokedAt: 3,
      returnedAt: 4,
      outcome: 'ok',
      job: 'j',
      token: 't',
      leaseUntil: 99,
    });
    w.op({ op: 'ack', worker: 'w', invokedAt: 5, returnedAt: 6, outcome: 'ok', job: 'j', token: 't' });
    await w.close();
    await w.close();
    const lines = historyLines(path);
    expect(lines.map((l) => l.type)).toEqual(['header', 'op', 'op', 'op', 'end']);
    expect(lines[0]).toEqual({ type: 'header', format: 'jobcheck-history/1', source: 'test', capacity: 4 });
    expect(lines[4]).toEqual({ type: 'end', lines: 4 });
    expect(new Set(lines.flatMap((l) => (l.type === 'op' ? [l.id] : []))).size).toBe(3);
    expect(lines[2]).toMatchObject({ host: 'h1', worker: 'w', token: 't' });
    expect((await audit([path])).verdict).toBe('pass');
  });

  it('buffers: a line reaches the file at the flush, not at the call', async () => {
    const path = files.file('buffered.jsonl');
    const w = HistoryWriter.open({ path, source: 'test', flushMs: 60_000 });
    w.op({ op: 'submit', worker: 'p', invokedAt: 1, returnedAt: 2, outcome: 'ok', job: 'j' });
    expect(readFileSync(path, 'utf8')).toBe('');
    await w.flush();
    expect(readFileSync(path, 'utf8').split('\n')).toHaveLength(3);
    await w.close();
  });

  it('refuses to overwrite a history', () => {
    const path = files.file('there.jsonl');
    writeFileSync(path, 'kept\n');
    expect(() => HistoryWriter.open({ path, source: 'test' })).toThrow(HistoryWriterError);
    expect(readFileSync(path, 'utf8')).toBe('kept\n');
  });

  it('records a call: its value returned, its error rethrown unchanged, the outcome each gave', async () => {
    const path = files.file('calls.jsonl');
    const w = HistoryWriter.open({ path, source: 'test', now: ticking() });
    const value = { seq: 7 };
    const got = await w.recordCall(
      { op: 'submit', worker: 'p' },
      async () => value,
      (v) => ({ job: String(v.seq) }),
      () => 'x',
    );
    expect(got).toBe(value);
    const error = new Error('refused');
    const thrown = await w
      .recordCall(
        { op: 'ack', worker: 'w', job: '7' },
        () => Promise.reject(error),
        () => ({}),
        () => 'not_found',
      )
      .catch((e: unknown) => e);
    expect(thrown).toBe(error);
    // A recorder's own mistake (a field it cannot compute) never reaches the caller.
    const kept = await w.recordCall(
      { op: 'claim', worker: 'w' },
      async () => 1,
      () => {
        throw new Error('recorder bug');
      },
      () => 'x',
    );
    expect(kept).toBe(1);
    await w.close();
    const ops = historyLines(path).flatMap((l) => (l.type === 'op' ? [l] : []));
    expect(ops.map((o) => [o.op, o.job, o.outcome, o.returnedAt > o.invokedAt])).toEqual([
      ['submit', '7', 'ok', true],
      ['ack', '7', 'not_found', true],
      ['claim', undefined, 'ok', true],
    ]);
  });

  it('leaves out the end line once it lost a line, so the audit cannot pass the file', async () => {
    const path = files.file('lost.jsonl');
    const w = HistoryWriter.open({ path, source: 'test', flushBytes: 1, maxPendingBytes: 200 });
    for (let i = 0; i < 20; i++)
      w.op({ op: 'submit', worker: 'p', invokedAt: i, returnedAt: i, outcome: 'ok', job: `j${i}` });
    await w.close();
    expect(w.error?.message).toMatch(/recording stopped/);
    const lines = historyLines(path);
    expect(lines.some((l) => l.type === 'end')).toBe(false);
    expect((await audit([path])).verdict).toBe('inconclusive');
  });

  it('names outcomes in the format words and hashes payloads', () => {
    expect([outcomeCode('NOT_FOUND'), outcomeCode('ok'), outcomeCode(undefined), outcomeCode(404)]).toEqual([
      'not_found',
      'unknown',
      'unknown',
      'unknown',
    ]);
    expect(payloadHash('a')).toMatch(/^[0-9a-f]{16}$/);
    expect(payloadHash('a')).not.toBe(payloadHash('b'));
  });
});
