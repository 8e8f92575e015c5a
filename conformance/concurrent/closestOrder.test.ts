import { describe, expect, it } from 'vitest';
import type { Config } from '../../contract/index.ts';
import { closestOrder } from './closestOrder.ts';
import type { Witness } from './history.ts';
import { jobModel } from './jobModel.ts';
import { checkLinearizability } from './linearizability.ts';
import type { JobHistory } from './run.ts';

const CONFIG: Config = { capacity: 2, maxAttempts: 2, leaseTicks: 2, backoffBase: 1, backoffCap: 4 };
const PAYLOAD = { account: 'x', key: 'k1', amount: 1, deadline: 9 };

/** Two workers claim one job and both get it; lane 1's tick then gets no reply. */
const DOUBLE_DELIVERY: JobHistory = {
  operations: [
    {
      id: 1,
      lane: 0,
      input: { type: 'submit', id: 'a', ...PAYLOAD, now: 0 },
      invoked: 0,
      returned: 1,
      output: { ok: true, type: 'submit', id: 'a', seq: 1, duplicate: false },
    },
    {
      id: 2,
      lane: 0,
      input: { type: 'claim', worker: 'w1', now: 0 },
      invoked: 2,
      returned: 3,
      output: { ok: true, type: 'claim', job: { id: 'a', token: 1, attempt: 1, leaseUntil: 2, payload: PAYLOAD } },
    },
    {
      id: 3,
      lane: 1,
      input: { type: 'claim', worker: 'w2', now: 0 },
      invoked: 4,
      returned: 5,
      output: { ok: true, type: 'claim', job: { id: 'a', token: 2, attempt: 2, leaseUntil: 2, payload: PAYLOAD } },
    },
    { id: 4, lane: 1, input: { type: 'tick', now: 1 }, invoked: 6 },
  ],
};

function witnessOf(history: JobHistory): Witness<unknown> {
  const outcome = checkLinearizability(jobModel(CONFIG), history);
  if (outcome.verdict !== 'not_linearizable') throw new Error(`expected not_linearizable, got ${outcome.verdict}`);
  return outcome.witness;
}

describe('closestOrder', () => {
  const witness = witnessOf(DOUBLE_DELIVERY);
  const replay = closestOrder(DOUBLE_DELIVERY, CONFIG, witness);
  const request = (id: number) => replay.requests.find((r) => r.id === id);

  it('replays the longest prefix, then the requests with a reply in the order they were sent', () => {
    expect(witness.longestOrder).toEqual([1, 2]);
    expect(replay.order).toEqual([1, 2, 3]);
    expect(replay.prefixLength).toBe(2);
    expect(replay.requests.map((r) => [r.id, r.place, r.position])).toEqual([
      [1, 'prefix', 1],
      [2, 'prefix', 2],
      [3, 'stuck', 3],
      [4, 'left_out', null],
    ]);
  });

  it('shows the state a claim leaves: the job running for w1 with token 1 until 2, the next token 2', () => {
    const claim = request(2);
    expect(claim?.before?.jobs['a']?.status).toBe('ready');
    expect(claim?.after?.jobs['a']).toMatchObject({ status: 'running', token: 1, owner: 'w1', leaseUntil: 2 });
    expect(claim?.after?.nextToken).toBe(2);
    expect(claim?.agrees).toBe(true);
  });

  it("gives the stuck claim the model's reply (no job), which differs from the observed second delivery", () => {
    const stuck = request(3);
    expect(stuck?.modelReply).toEqual({ ok: true, type: 'claim', job: null });
    expect(stuck?.stuckReply).toEqual({ ok: true, type: 'claim', job: null });
    expect(stuck?.agrees).toBe(false);
    expect(stuck?.difference).toMatch(/^reply\.job: model null, impl \{"id":"a","token":2,/);
    expect(request(2)?.difference).toBeNull();
    expect(stuck?.before).toEqual(request(2)?.after);
  });

  it('chains the states: each request starts from the state the one before it left, the first from the empty store', () => {
    expect(replay.initial).toMatchObject({ clock: 0, nextToken: 1, nextSeq: 1, jobs: {} });
    expect(request(1)?.before).toEqual(replay.initial);
    expect(request(2)?.before).toEqual(request(1)?.after);
  });

  it('leaves a request with no reply outside the prefix without a place or states', () => {
    expect(request(4)).toMatchObject({ place: 'left_out', before: null, after: null, agrees: null });
  });
});
