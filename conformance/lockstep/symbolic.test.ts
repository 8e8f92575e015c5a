import { describe, expect, it } from 'vitest';
import { initialState, step } from '../../model/index.ts';
import type { ModelState } from '../../model/index.ts';
import { newResolveMemory, resolveCommand, resolveTime } from './symbolic.ts';
import type { SymbolicCommand } from './symbolic.ts';

const config = { capacity: 3, maxAttempts: 2, leaseTicks: 4, backoffBase: 1, backoffCap: 2 };
function run(commands: unknown[]): ModelState {
  let s = initialState(config);
  for (const c of commands) s = step(s, c).state;
  return s;
}
const submit = (id: string, now: number) => ({
  type: 'submit',
  id,
  account: id === 'a' ? 'x' : 'y',
  key: 'k',
  amount: 1,
  deadline: now + 20,
  now,
});

describe('symbolic references keep their meaning', () => {
  it('resolves "the current token of job b" to b\'s token whether or not job a was claimed first', () => {
    const ref: SymbolicCommand = {
      kind: 'ack',
      worker: { holder: true },
      token: { of: 'current', job: 'b' },
      now: { at: 'clock', plus: 0 },
    };
    const long = run([
      submit('a', 0),
      submit('b', 0),
      { type: 'claim', worker: 'w1', now: 0 },
      { type: 'claim', worker: 'w2', now: 1 },
    ]);
    const short = run([submit('b', 0), { type: 'claim', worker: 'w2', now: 1 }]);
    expect(resolveCommand(long, newResolveMemory(), ref)).toEqual({
      do: { type: 'ack', worker: 'w2', token: 2, now: 1 },
    });
    expect(resolveCommand(short, newResolveMemory(), ref)).toEqual({
      do: { type: 'ack', worker: 'w2', token: 1, now: 1 },
    });
  });

  it('resolves "the lease expiry of job a minus one" to the tick before the lease ends, and never before the clock', () => {
    const s = run([submit('a', 0), { type: 'claim', worker: 'w1', now: 2 }]);
    expect(resolveTime(s, { at: 'leaseUntil', job: 'a', plus: -1 })).toBe(5);
    expect(resolveTime(s, { at: 'leaseUntil', job: 'a', plus: 1 })).toBe(7);
    expect(resolveTime(s, { at: 'notBefore', job: 'a', plus: -1 })).toBe(2);
    expect(resolveTime(s, { at: 'past', minus: 1 })).toBe(1);
  });

  it('picks the worker that does not hold the token for "other", and a never-issued token for "never"', () => {
    const s = run([submit('a', 0), { type: 'claim', worker: 'w1', now: 0 }]);
    const cmd: SymbolicCommand = {
      kind: 'commit',
      worker: { other: true },
      token: { of: 'running', pick: 0 },
      now: { at: 'clock', plus: 0 },
    };
    expect(resolveCommand(s, newResolveMemory(), cmd)).toEqual({
      do: { type: 'commit', worker: 'w2', token: 1, now: 0 },
    });
    const never: SymbolicCommand = {
      kind: 'ack',
      worker: { name: 'w1' },
      token: { of: 'never', plus: 0 },
      now: { at: 'clock', plus: 0 },
    };
    expect(resolveCommand(s, newResolveMemory(), never)).toEqual({
      do: { type: 'ack', worker: 'w1', token: 2, now: 0 },
    });
  });

  it('turns a resubmission without change into an exact duplicate and with a change into a conflict', () => {
    const s = run([submit('a', 0)]);
    const dup = resolveCommand(s, newResolveMemory(), {
      kind: 'resubmit',
      id: 'a',
      change: 'none',
      now: { at: 'clock', plus: 1 },
    });
    expect(step(s, (dup as { do: unknown }).do).reply).toMatchObject({ ok: true, duplicate: true });
    const other = resolveCommand(s, newResolveMemory(), {
      kind: 'resubmit',
      id: 'a',
      change: 'amount',
      now: { at: 'clock', plus: 1 },
    });
    expect(step(s, (other as { do: unknown }).do).reply).toMatchObject({ ok: false, code: 'conflict' });
  });
});
