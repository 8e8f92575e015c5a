import { describe, expect, it } from 'vitest';
import type { Config, Reply } from '../contract/index.ts';
import { buildModel, toSnapshot } from './step.ts';
import type { Model, ModelState } from './step.ts';
import { MODEL_VARIANTS, modelVariant } from './variants.ts';
import type { ModelVariant } from './variants.ts';

const reference = buildModel();
const base: Config = { capacity: 4, maxAttempts: 3, leaseTicks: 5, backoffBase: 2, backoffCap: 3 };

function variant(name: string): ModelVariant {
  const v = modelVariant(name);
  if (v === undefined) throw new Error(`no variant ${name}`);
  return v;
}

/** Runs commands on a model from an empty store; returns the final state and every reply. */
function run(
  model: Model,
  commands: readonly unknown[],
  config: Config = base,
): { state: ModelState; replies: Reply[] } {
  let state = model.initialState(config);
  const replies: Reply[] = [];
  for (const c of commands) {
    const r = model.step(state, c);
    state = r.state;
    replies.push(r.reply);
  }
  return { state, replies };
}

const submit = (id: string, account: string, now = 0, deadline = 100) => ({
  type: 'submit',
  id,
  account,
  key: `${id}:k`,
  amount: 1,
  deadline,
  now,
});
const claim = (worker: string, now: number) => ({ type: 'claim', worker, now });
const ack = (worker: string, token: number, now: number) => ({ type: 'ack', worker, token, now });
const fail = (worker: string, token: number, now: number, kind = 'transient') => ({
  type: 'fail',
  worker,
  token,
  kind,
  error: 'boom',
  now,
});
const claimedId = (r: Reply | undefined): string | null | undefined =>
  r?.ok === true && r.type === 'claim' ? (r.job?.id ?? null) : undefined;

describe('model variants', () => {
  it('are named once each and each replaces a rule', () => {
    const names = MODEL_VARIANTS.map((v) => v.name);
    expect(new Set(names).size).toBe(names.length);
    expect(modelVariant('no-such-variant')).toBeUndefined();
  });

  it('failed-job-keeps-blocking: a dead head blocks its account, a done one does not', () => {
    const v = variant('failed-job-keeps-blocking').model;
    const dies = [submit('a', 'x'), submit('b', 'x'), claim('w1', 1), fail('w1', 1, 2, 'permanent'), claim('w1', 3)];
    expect(claimedId(run(reference, dies).replies[4])).toBe('b');
    expect(claimedId(run(v, dies).replies[4])).toBe(null);
    const other = [
      submit('a', 'x'),
      submit('b', 'x'),
      submit('c', 'y'),
      claim('w1', 1),
      fail('w1', 1, 2, 'permanent'),
      claim('w1', 3),
    ];
    expect(claimedId(run(v, other).replies[5])).toBe('c');
    const done = [submit('a', 'x'), submit('b', 'x'), claim('w1', 1), ack('w1', 1, 2), claim('w1', 3)];
    expect(claimedId(run(v, done).replies[4])).toBe('b');
  });

  it('no-account-order: a running head does not hold back the next job of its account', () => {
    const v = variant('no-account-order').model;
    const commands = [submit('a', 'x'), submit('b', 'x'), claim('w1', 1), claim('w2', 1)];
    expect(claimedId(run(reference, commands).replies[3])).toBe(null);
    expect(claimedId(run(v, commands).replies[3])).toBe('b');
  });

  it('uncapped-backoff: the second retry waits backoffBase × 2 past a cap of 3', () => {
    const v = variant('uncapped-backoff').model;
    // attempt 1 fails at 1: delay 2 (both); attempt 2 fails at 4: the contract says min(4, 3) = 3, the variant 4.
    const commands = [submit('a', 'x'), claim('w1', 0), fail('w1', 1, 1), claim('w1', 3), fail('w1', 2, 4)];
    const notBefore = (r: Reply | undefined): number | undefined =>
      r?.ok === true && r.type === 'fail' && r.status === 'waiting' ? r.notBefore : undefined;
    const ref = run(reference, commands).replies;
    const unc = run(v, commands).replies;
    expect([notBefore(ref[2]), notBefore(unc[2])]).toEqual([3, 3]);
    expect([notBefore(ref[4]), notBefore(unc[4])]).toEqual([7, 8]);
  });

  it('no-backoff: a failed job is ready again at the failing tick, first of its account, and dies on its last attempt', () => {
    const v = variant('no-backoff').model;
    const commands = [submit('a', 'x'), submit('b', 'x'), claim('w1', 1), fail('w1', 1, 2), claim('w2', 2)];
    const ran = run(v, commands);
    expect(ran.replies[3]).toEqual({ ok: true, type: 'fail', id: 'a', status: 'waiting', notBefore: 2 });
    expect(claimedId(ran.replies[4])).toBe('a');
    expect(claimedId(run(reference, commands).replies[4])).toBe(null);
    const r = run(v, [submit('a', 'x'), claim('w1', 1), fail('w1', 1, 1)]);
    expect(toSnapshot(r.state).jobs['a']).toMatchObject({ status: 'ready', attempts: 1, lastError: 'boom' });
    const last = run(v, [submit('a', 'x'), claim('w1', 0), fail('w1', 1, 0), claim('w1', 0), fail('w1', 2, 0)], {
      ...base,
      maxAttempts: 2,
    });
    expect(last.replies[4]).toMatchObject({ status: 'dead', reason: 'attempts_exhausted' });
    expect(toSnapshot(v.fromSnapshot(JSON.parse(JSON.stringify(toSnapshot(r.state))))).jobs['a']).toMatchObject({
      status: 'ready',
    });
  });

  it('uncapped-backoff: a restored store keeps the variant', () => {
    const v = variant('uncapped-backoff').model;
    const { state } = run(v, [submit('a', 'x'), claim('w1', 0), fail('w1', 1, 1), claim('w1', 3)]);
    const restored = v.fromSnapshot(JSON.parse(JSON.stringify(toSnapshot(state))));
    const r = v.step(restored, fail('w1', 2, 4)).reply;
    expect(r).toMatchObject({ status: 'waiting', notBefore: 8 });
  });

  describe('jittered-backoff-upward', () => {
    const v = variant('jittered-backoff-upward');
    const choose = v.choose ?? ((): undefined => undefined);
    // base 2, cap 8: after attempt 1 the contract's delay is 2 and the bound min(2 × 2, 8) = 4.
    const config: Config = { ...base, backoffBase: 2, backoffCap: 8 };
    const setup = run(v.model, [submit('a', 'x', 0, 50), claim('w1', 0)], config).state;
    const waiting = (notBefore: number): unknown => ({ ok: true, type: 'fail', id: 'a', status: 'waiting', notBefore });

    it('accepts a delay from the contract delay up to twice it (capped), and takes the upper bound without a choice', () => {
      expect(choose(setup, fail('w1', 1, 1), waiting(3))).toEqual({ delay: 2 });
      expect(choose(setup, fail('w1', 1, 1), waiting(5))).toEqual({ delay: 4 });
      expect(choose(setup, fail('w1', 1, 1), waiting(2))).toBeUndefined();
      expect(choose(setup, fail('w1', 1, 1), waiting(6))).toBeUndefined();
      expect(v.model.step(setup, fail('w1', 1, 1)).reply).toMatchObject({ status: 'waiting', notBefore: 5 });
    });
  });

  describe('jittered-backoff', () => {
    const v = variant('jittered-backoff');
    const choose = v.choose ?? ((): undefined => undefined);
    // attempt 1 at 0, fails at 1: the contract's delay is 2, so notBefore may be 2 or 3.
    const setup = run(v.model, [submit('a', 'x', 0, 4), claim('w1', 0)]).state;
    const failAt1 = fail('w1', 1, 1);
    const waiting = (notBefore: number): unknown => ({ ok: true, type: 'fail', id: 'a', status: 'waiting', notBefore });

    it('accepts a notBefore within [now + 1, now + delay] and continues from it', () => {
      expect(choose(setup, failAt1, waiting(2))).toEqual({ delay: 1 });
      expect(choose(setup, failAt1, waiting(3))).toEqual({ delay: 2 });
      const r = v.model.step(setup, failAt1, { delay: 1 });
      expect(r.reply).toMatchObject({ status: 'waiting', notBefore: 2 });
      expect(claimedId(v.model.step(r.state, claim('w1', 2)).reply)).toBe('a');
    });

    it('refuses a notBefore outside the bounds, and without a choice takes the contract delay', () => {
      expect(choose(setup, failAt1, waiting(1))).toBeUndefined();
      expect(choose(setup, failAt1, waiting(4))).toBeUndefined();
      expect(choose(setup, fail('w2', 1, 1), waiting(2))).toBeUndefined();
      expect(v.model.step(setup, failAt1).reply).toEqual(
        reference.step(run(reference, [submit('a', 'x', 0, 4), claim('w1', 0)]).state, failAt1).reply,
      );
    });

    it('decides whether the retry fits before the deadline with the delay chosen', () => {
      // Deadline 4, fail at 2 with the contract's delay 2: notBefore 4 is not before the deadline, dead.
      const s = run(v.model, [submit('a', 'x', 0, 4), claim('w1', 0)]).state;
      expect(v.model.step(s, fail('w1', 1, 2)).reply).toMatchObject({ status: 'dead', reason: 'no_time_for_retry' });
      expect(v.model.step(s, fail('w1', 1, 2), { delay: 1 }).reply).toMatchObject({ status: 'waiting', notBefore: 3 });
    });
  });
});
