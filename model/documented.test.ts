import { describe, expect, it } from 'vitest';
import type { Config, Reply } from '../contract/index.ts';
import { DOCUMENTED_MODES, DOCUMENTED_SERVICES, documentedModel, modeVariants } from './documented.ts';
import { buildModel, toSnapshot } from './step.ts';
import type { Model, ModelState } from './step.ts';
import { composeVariants, modelVariant } from './variants.ts';

const contract = buildModel();
const config: Config = { capacity: 4, maxAttempts: 3, leaseTicks: 5, backoffBase: 2, backoffCap: 8 };

function run(model: Model, commands: readonly unknown[]): { state: ModelState; replies: Reply[] } {
  let state = model.initialState(config);
  const replies: Reply[] = [];
  for (const c of commands) {
    const r = model.step(state, c);
    state = r.state;
    replies.push(r.reply);
  }
  return { state, replies };
}

const model = (name: string): Model => {
  const v = modelVariant(name);
  if (v === undefined) throw new Error(`no variant ${name}`);
  return v.model;
};
const mode = (id: string): Model => {
  const m = documentedModel(id);
  if (m === undefined) throw new Error(`no mode ${id}`);
  return m;
};
const submit = (id: string, account: string, now = 0) => ({
  type: 'submit',
  id,
  account,
  key: `${id}:k`,
  amount: 1,
  deadline: 100,
  now,
});
const claim = (worker: string, now: number) => ({ type: 'claim', worker, now });
const commit = (worker: string, token: number, now: number) => ({ type: 'commit', worker, token, now });
const ack = (worker: string, token: number, now: number) => ({ type: 'ack', worker, token, now });
const delivered = (r: Reply | undefined): string => {
  if (r?.ok !== true || r.type !== 'claim') return `not a claim: ${JSON.stringify(r)}`;
  return r.job === null ? 'nothing' : `${r.job.id} token ${r.job.token} attempt ${r.job.attempt}`;
};
const status = (s: ModelState, id: string): string | undefined => toSnapshot(s).jobs[id]?.status;

describe('documented services', () => {
  it('name each mode once, and each mode composes variants that replace different rules', () => {
    const ids = DOCUMENTED_MODES.map((m) => m.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(DOCUMENTED_SERVICES.map((s) => s.id)).toEqual(['amazon-sqs', 'google-pub-sub', 'azure-service-bus']);
    for (const m of DOCUMENTED_MODES) {
      const rules = modeVariants(m).map((v) => v.rule);
      expect(new Set(rules).size, m.id).toBe(rules.length);
      expect(documentedModel(m.id), m.id).toBeDefined();
    }
    expect(documentedModel('no-such-mode')).toBeUndefined();
  });

  it('state what a service keeps or loses in variants no adapter may declare', () => {
    expect(modelVariant('delete-on-receive')?.declarable).toBe(false);
    expect(modelVariant('duplicate-within-visibility')?.declarable).toBe(false);
    expect(modelVariant('no-account-order')?.declarable).toBe(true);
  });
});

describe('delete-on-receive (Service Bus Receive-and-Delete: deleted as soon as delivered)', () => {
  const v = model('delete-on-receive');
  // w1 takes the job and disappears; after its lease would have run out, w2 asks for work.
  const disappears = [submit('a', 'x'), claim('w1', 1), { type: 'tick', now: 7 }, claim('w2', 7)];

  it('settles the job at the claim: the reply is the contract’s, the job is already done', () => {
    const ran = run(v, disappears.slice(0, 2));
    expect(ran.replies[1]).toEqual(run(contract, disappears.slice(0, 2)).replies[1]);
    expect(status(ran.state, 'a')).toBe('done');
    expect(status(run(contract, disappears.slice(0, 2)).state, 'a')).toBe('running');
  });

  it('loses the job when its worker disappears, where the contract redelivers it', () => {
    expect(delivered(run(contract, disappears).replies[3])).toBe('a token 2 attempt 2');
    const lost = run(v, disappears);
    expect(delivered(lost.replies[3])).toBe('nothing');
    expect(toSnapshot(lost.state)).toMatchObject({ jobs: { a: { status: 'done' } }, balances: {} });
  });

  it('leaves a live worker no delivery to commit, ack or fail on', () => {
    const live = [submit('a', 'x'), claim('w1', 1), commit('w1', 1, 2), ack('w1', 1, 3)];
    expect(
      run(contract, live)
        .replies.slice(2)
        .map((r) => r.ok),
    ).toEqual([true, true]);
    expect(run(v, live).replies.slice(2)).toMatchObject([
      { ok: false, code: 'stale_token' },
      { ok: false, code: 'stale_token' },
    ]);
  });

  it('changes nothing but the claim: a submit, an empty claim and the clock are the contract’s', () => {
    const other = [submit('a', 'x'), submit('a', 'x'), claim('w1', 1), claim('w1', 2), { type: 'tick', now: 3 }];
    const ours = run(v, other).replies;
    const theirs = run(contract, other).replies;
    expect([ours[0], ours[1], ours[4]]).toEqual([theirs[0], theirs[1], theirs[4]]);
    expect(delivered(ours[3])).toBe('nothing');
  });
});

describe('duplicate-within-visibility (SQS standard; Pub/Sub without exactly-once)', () => {
  const v = model('duplicate-within-visibility');
  const twice = [submit('a', 'x'), claim('w1', 0), claim('w2', 1), ack('w1', 1, 2), ack('w2', 2, 3)];

  it('delivers a running job again within its lease, under a new token that makes the first stale', () => {
    expect(
      run(contract, twice)
        .replies.slice(2, 4)
        .map((r) => delivered(r) ?? r),
    ).toEqual(['nothing', 'not a claim: {"ok":true,"type":"ack","id":"a"}']);
    const dup = run(v, twice);
    expect(delivered(dup.replies[2])).toBe('a token 2 attempt 2');
    expect(dup.replies[3]).toMatchObject({ ok: false, code: 'stale_token' });
    expect(dup.replies[4]).toEqual({ ok: true, type: 'ack', id: 'a' });
  });

  it('delivers a ready job first, and never a job on its last attempt', () => {
    const ready = [submit('a', 'x'), submit('b', 'y'), claim('w1', 0), claim('w2', 1)];
    expect(delivered(run(v, ready).replies[3])).toBe('b token 2 attempt 1');
    const last = [submit('a', 'x'), claim('w1', 0), claim('w2', 1), claim('w3', 2), claim('w4', 3)];
    expect(run(v, last).replies.slice(1).map(delivered)).toEqual([
      'a token 1 attempt 1',
      'a token 2 attempt 2',
      'a token 3 attempt 3',
      'nothing',
    ]);
  });

  it('wraps the choice of no-account-order in the SQS standard mode, in whichever order composed', () => {
    const commands = [submit('a', 'x'), submit('b', 'x'), claim('w1', 0), claim('w2', 0), claim('w3', 1)];
    const sqs = mode('sqs-standard');
    const reversed = composeVariants(
      ['duplicate-within-visibility', 'no-account-order'].map((n) => modelVariant(n)).filter((x) => x !== undefined),
    ).model;
    for (const m of [sqs, reversed])
      expect(run(m, commands).replies.slice(2).map(delivered)).toEqual([
        'a token 1 attempt 1',
        'b token 2 attempt 1',
        'a token 3 attempt 2',
      ]);
    expect(run(contract, commands).replies.slice(2).map(delivered)).toEqual([
      'a token 1 attempt 1',
      'nothing',
      'nothing',
    ]);
  });
});

describe('the documented modes', () => {
  it('Peek-Lock redelivers a job whose worker disappeared once its lock expires, as the contract does', () => {
    const disappears = [submit('a', 'x'), claim('w1', 1), { type: 'tick', now: 7 }, claim('w2', 7)];
    expect(delivered(run(mode('servicebus-peek-lock'), disappears).replies[3])).toBe('a token 2 attempt 2');
  });

  it('Pub/Sub with exactly-once delivery never delivers a job twice within its lease; without, it does', () => {
    const within = [submit('a', 'x'), claim('w1', 0), claim('w2', 1)];
    expect(delivered(run(mode('pubsub-exactly-once'), within).replies[2])).toBe('nothing');
    expect(delivered(run(mode('pubsub-at-least-once'), within).replies[2])).toBe('a token 2 attempt 2');
  });

  it('a restored store keeps its mode', () => {
    const m = mode('servicebus-receive-and-delete');
    const { state } = run(m, [submit('a', 'x'), submit('b', 'y')]);
    const restored = m.fromSnapshot(JSON.parse(JSON.stringify(toSnapshot(state))));
    expect(status(m.step(restored, claim('w1', 1)).state, 'a')).toBe('done');
  });
});
