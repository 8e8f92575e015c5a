import { describe, expect, it } from 'vitest';
import { comparableReply, describeDifference, firstDifference, replyDifference } from './compare.ts';

describe('comparing model and implementation', () => {
  it('names the first differing snapshot field by its dotted path', () => {
    const model = { clock: 3, jobs: { a: { status: 'running', attempts: 2 } } };
    const impl = { clock: 3, jobs: { a: { status: 'running', attempts: 1 } } };
    const d = firstDifference(model, impl);
    expect(d).toEqual({ path: 'jobs.a.attempts', model: 2, impl: 1 });
    expect(describeDifference(d!)).toBe('jobs.a.attempts: model 2, impl 1');
  });

  it('ignores key order but not a field that only one side has', () => {
    expect(firstDifference({ a: 1, b: { c: 2, d: 3 } }, { b: { d: 3, c: 2 }, a: 1 })).toBeUndefined();
    expect(firstDifference({ a: 1 }, { a: 1, token: 4 })).toEqual({ path: 'token', model: undefined, impl: 4 });
    expect(describeDifference(firstDifference({ jobs: { c: 1 } }, { jobs: {} })!)).toBe('jobs.c: model 1, impl absent');
  });

  it('compares rejections by code, never by message', () => {
    expect(
      replyDifference(
        { ok: false, code: 'stale_token', message: 'token 3 is stale' },
        { ok: false, code: 'stale_token', message: 'nope' },
      ),
    ).toBeUndefined();
    expect(
      replyDifference({ ok: false, code: 'stale_token', message: 'm' }, { ok: false, code: 'not_owner', message: 'm' }),
    ).toEqual({
      path: 'reply.code',
      model: 'stale_token',
      impl: 'not_owner',
    });
    expect(comparableReply({ ok: true, type: 'tick', clock: 1 })).toEqual({ ok: true, type: 'tick', clock: 1 });
  });

  it('treats a non-object reply from an implementation as a difference at reply', () => {
    expect(replyDifference({ ok: true, type: 'tick', clock: 1 }, 'oops')?.path).toBe('reply');
  });
});
