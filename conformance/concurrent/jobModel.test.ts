import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Config, Reply } from '../../contract/index.ts';
import { initialState, step, toSnapshot } from '../../model/index.ts';
import { CapacityForgetsRunning } from '../broken/index.ts';
import { modelVariant } from '../../model/variants.ts';
import type { History, Operation } from './history.ts';
import {
  SNAPSHOT_REQUEST,
  isSnapshotRequest,
  jobModel,
  jobStoreRoundHistory,
  modelStateKey,
  sameJobReply,
} from './jobModel.ts';
import { checkLinearizability } from './linearizability.ts';

const config: Config = { capacity: 16, maxAttempts: 3, leaseTicks: 6, backoffBase: 1, backoffCap: 4 };
type Op = Operation<unknown, unknown>;

/** Replays an order through the reference model and says where it fails to give an observed reply, if anywhere. */
function replays(h: History<unknown, unknown>, order: readonly number[]): string | undefined {
  const byId = new Map(h.operations.map((op) => [op.id, op]));
  const placed = new Set(order);
  for (const op of h.operations)
    if (op.returned !== undefined && !placed.has(op.id)) return `operation ${op.id} is missing`;
  let state = initialState(config);
  for (const id of order) {
    const op = byId.get(id) as Op;
    const output = isSnapshotRequest(op.input)
      ? toSnapshot(state)
      : (() => {
          const r = step(state, op.input);
          state = r.state;
          return r.reply;
        })();
    if (op.returned !== undefined && JSON.stringify(comparable(output)) !== JSON.stringify(comparable(op.output)))
      return `operation ${id}: model ${JSON.stringify(output)}, observed ${JSON.stringify(op.output)}`;
  }
  return undefined;
}
/** A rejection without its message, for the independent replay above. */
const comparable = (v: unknown): unknown =>
  typeof v === 'object' && v !== null && (v as { ok?: unknown }).ok === false
    ? { ok: false, code: (v as { code: unknown }).code }
    : v;

const isOk = (output: unknown): boolean => (output as Reply | undefined)?.ok === true;

describe('the job-store model as a sequential model', () => {
  it('answers the snapshot request with the canonical snapshot and changes nothing', () => {
    const m = jobModel(config);
    let state = m.init();
    state = m.step(state, { type: 'submit', id: 'a', account: 'x', key: 'k', amount: 3, deadline: 9, now: 1 }).state;
    const r = m.step(state, SNAPSHOT_REQUEST);
    expect(r.output).toEqual(toSnapshot(state));
    expect(r.state).toBe(state);
    expect(isSnapshotRequest({ type: 'snapshot', extra: 1 })).toBe(false);
  });

  it('gives equal keys to equal states reached by different paths, and different keys to different states', () => {
    const m = jobModel(config);
    const submit = (id: string, account: string) => ({
      type: 'submit',
      id,
      account,
      key: `k-${id}`,
      amount: 2,
      deadline: 20,
      now: 1,
    });
    const commitBoth = (first: string, second: string) => {
      let s = m.init();
      for (const c of [
        submit('a', 'x'),
        submit('b', 'y'),
        { type: 'claim', worker: 'w1', now: 1 },
        { type: 'claim', worker: 'w2', now: 1 },
      ])
        s = m.step(s, c).state;
      for (const w of [first, second])
        s = m.step(s, { type: 'commit', worker: w, token: w === 'w1' ? 1 : 2, now: 2 }).state;
      return s;
    };
    // Balances and ledger filled in different orders: the same state, the same key.
    const ab = commitBoth('w1', 'w2');
    const ba = commitBoth('w2', 'w1');
    expect(toSnapshot(ab)).toEqual(toSnapshot(ba));
    expect(modelStateKey(ab)).toBe(modelStateKey(ba));
    const ticked = m.step(ab, { type: 'tick', now: 3 }).state;
    expect(modelStateKey(ticked)).not.toBe(modelStateKey(ab));
    // Renaming a worker changes the key (the exploration's symmetry reduction would not).
    let s1 = m.init();
    let s2 = m.init();
    s1 = m.step(m.step(s1, submit('a', 'x')).state, { type: 'claim', worker: 'w1', now: 1 }).state;
    s2 = m.step(m.step(s2, submit('a', 'x')).state, { type: 'claim', worker: 'w2', now: 1 }).state;
    expect(modelStateKey(s1)).not.toBe(modelStateKey(s2));
  });

  it('compares rejections by code only, and everything else field by field', () => {
    expect(
      sameJobReply({ ok: false, code: 'stale_token', message: 'a' }, { ok: false, code: 'stale_token', message: 'b' }),
    ).toBe(true);
    expect(
      sameJobReply({ ok: false, code: 'stale_token', message: 'a' }, { ok: false, code: 'not_owner', message: 'a' }),
    ).toBe(false);
    expect(
      sameJobReply(
        { ok: true, type: 'commit', id: 'a', applied: true, balance: 3 },
        { ok: true, type: 'commit', id: 'a', applied: true, balance: 4 },
      ),
    ).toBe(false);
  });
});

/** One returned reply changed: a token, a code, a clock, a balance or a seq moved by one. */
function corruptOne(h: History<unknown, unknown>, pick: number): History<unknown, unknown> {
  const candidates = h.operations.filter(
    (op) => op.returned !== undefined && typeof op.output === 'object' && op.output !== null,
  );
  const target = candidates[pick % candidates.length] as Op;
  const o = target.output as Record<string, unknown>;
  let changed: unknown;
  if (o.ok === false) changed = { ...o, code: o.code === 'conflict' ? 'stale_token' : 'conflict' };
  else if (o.type === 'claim')
    changed =
      o.job === null
        ? { ...o, job: { id: 'j0', token: 1, attempt: 1, leaseUntil: 1, payload: {} } }
        : { ...o, job: { ...(o.job as object), token: ((o.job as { token: number }).token ?? 0) + 1 } };
  else if (o.type === 'tick') changed = { ...o, clock: (o.clock as number) + 1 };
  else if (o.type === 'commit') changed = { ...o, balance: (o.balance as number) + 1 };
  else if (o.type === 'submit') changed = { ...o, seq: (o.seq as number) + 1 };
  else if (o.type === 'fail' || o.type === 'ack') changed = { ok: false, code: 'stale_token', message: 'x' };
  else changed = { ...o, clock: (o.clock as number) + 1 };
  return {
    operations: h.operations.map((op) =>
      op === target && op.returned !== undefined ? { ...op, output: changed } : op,
    ),
  };
}

describe('histories recorded from impl/JobStore in rounds', () => {
  it('get the same verdict with and without the search hints, corrupted or not', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 1_000_000 }),
        fc.nat(),
        fc.boolean(),
        fc.boolean(),
        (seed, pick, lossy, corrupt) => {
          const recorded = jobStoreRoundHistory({
            config,
            workers: 4,
            requests: 60,
            seed,
            ...(lossy ? { indefinite: 0.1 } : {}),
          });
          const h = corrupt ? corruptOne(recorded, pick) : recorded;
          const { stableWhenUnchanged: _stable, inertFrom: _inert, ...plain } = jobModel(config);
          const a = checkLinearizability(jobModel(config), h).verdict;
          const b = checkLinearizability(plain, h).verdict;
          return a === b && a !== 'unknown';
        },
      ),
      { numRuns: 60 },
    );
  });

  it('are linearizable, with an order the reference model replays', () => {
    fc.assert(
      fc.property(fc.constantFrom(2, 4, 8), fc.integer({ min: 1, max: 1_000_000 }), (workers, seed) => {
        const h = jobStoreRoundHistory({ config, workers, requests: 250, seed });
        const r = checkLinearizability(jobModel(config), h);
        return r.verdict === 'linearizable' && replays(h, r.order) === undefined;
      }),
      { numRuns: 25 },
    );
  });

  it('are linearizable when some replies are lost, whether or not the request ran', () => {
    fc.assert(
      fc.property(fc.constantFrom(2, 4, 8), fc.integer({ min: 1, max: 1_000_000 }), (workers, seed) => {
        const h = jobStoreRoundHistory({ config, workers, requests: 250, seed, indefinite: 0.05 });
        expect(h.operations.some((op) => op.returned === undefined)).toBe(true);
        const r = checkLinearizability(jobModel(config), h);
        return r.verdict === 'linearizable' && replays(h, r.order) === undefined;
      }),
      { numRuns: 25 },
    );
  });

  it('are found not linearizable when the store forgets running jobs in its capacity check', () => {
    // The broken store admits submits the model refuses; some seed shows it within a few histories.
    const verdicts = [1, 2, 3, 4, 5].map(
      (seed) =>
        checkLinearizability(
          jobModel(config),
          jobStoreRoundHistory({
            config: { ...config, capacity: 3 },
            workers: 8,
            requests: 300,
            seed,
            store: CapacityForgetsRunning,
          }),
        ).verdict,
    );
    expect(verdicts).toContain('not_linearizable');
    expect(verdicts).not.toContain('unknown');
  });
});

/**
 * Two claims of one round that both got a delivery, where each worker later settled its own
 * delivery successfully: swapping the claims' replies leaves each worker holding the other's
 * token, which no order of the requests explains.
 */
function swappedClaims(
  h: History<unknown, unknown>,
): { history: History<unknown, unknown>; claims: [Op, Op] } | undefined {
  const ops = h.operations;
  const tokenOf = (op: Op): number | undefined =>
    isOk(op.output) && (op.output as { type: string }).type === 'claim'
      ? (op.output as { job: { token: number } | null }).job?.token
      : undefined;
  const settledLater = (claim: Op, token: number): boolean =>
    ops.some(
      (op) =>
        op.lane === claim.lane &&
        op.invoked > (claim.returned ?? Infinity) &&
        isOk(op.output) &&
        (op.input as { token?: number }).token === token,
    );
  for (const a of ops) {
    const ta = tokenOf(a);
    if (ta === undefined || !settledLater(a, ta)) continue;
    for (const b of ops) {
      const tb = tokenOf(b);
      if (b === a || tb === undefined || !settledLater(b, tb)) continue;
      const sameRound = a.invoked < (b.returned ?? Infinity) && b.invoked < (a.returned ?? Infinity);
      if (!sameRound) continue;
      const swapped = ops.map((op) =>
        op.returned === undefined
          ? op
          : op === a
            ? { ...op, output: b.output }
            : op === b
              ? { ...op, output: a.output }
              : op,
      );
      return { history: { operations: swapped }, claims: [a, b] };
    }
  }
  return undefined;
}

describe('a history with the replies of two claims swapped', () => {
  it('is not linearizable, and the witness names operations whose replies the model does not give', () => {
    let found = 0;
    for (let seed = 1; found < 3 && seed < 50; seed++) {
      const h = jobStoreRoundHistory({ config, workers: 8, requests: 400, seed });
      expect(checkLinearizability(jobModel(config), h).verdict).toBe('linearizable');
      const s = swappedClaims(h);
      if (s === undefined) continue;
      found++;
      const r = checkLinearizability(jobModel(config), s.history);
      expect(r.verdict).toBe('not_linearizable');
      if (r.verdict !== 'not_linearizable') continue;
      const ids = new Set(h.operations.map((op) => op.id));
      expect(r.witness.stuck.length).toBeGreaterThan(0);
      for (const stuck of r.witness.stuck) {
        expect(ids.has(stuck.id)).toBe(true);
        expect(sameJobReply(stuck.expected, stuck.observed)).toBe(false);
      }
      // The search is stuck at a settlement by one of the two workers, which the model refuses.
      const laneOf = new Map(h.operations.map((op) => [op.id, op.lane]));
      expect(
        r.witness.stuck.some((st) => laneOf.get(st.id) === s.claims[0].lane || laneOf.get(st.id) === s.claims[1].lane),
      ).toBe(true);
      expect(r.witness.longestOrder.length).toBeLessThan(h.operations.length);
    }
    expect(found).toBe(3);
  });

  it('is caught by the final snapshot too when one balance in it is changed', () => {
    const h = jobStoreRoundHistory({ config, workers: 8, requests: 300, seed: 11 });
    const last = h.operations[h.operations.length - 1] as Op;
    const snapshot = last.output as { balances: Record<string, number> };
    const account = Object.keys(snapshot.balances)[0];
    expect(account).toBeDefined();
    const changed = {
      ...snapshot,
      balances: { ...snapshot.balances, [account as string]: (snapshot.balances[account as string] ?? 0) + 1 },
    };
    const r = checkLinearizability(jobModel(config), {
      operations: h.operations.map((op) =>
        op === last && op.returned !== undefined ? { ...op, output: changed } : op,
      ),
    });
    expect(r.verdict).toBe('not_linearizable');
    if (r.verdict === 'not_linearizable') expect(r.witness.stuck.map((s) => s.id)).toEqual([last.id]);
  });
});

describe('jobModel with a variant model and fields left out', () => {
  const cfg: Config = { capacity: 4, maxAttempts: 2, leaseTicks: 2, backoffBase: 1, backoffCap: 1 };
  const submit = (id: string, now: number) => ({
    type: 'submit',
    id,
    account: 'x',
    key: id,
    amount: 1,
    deadline: 50,
    now,
  });

  it("steps the model it is given: under no-account-order an account's second job is delivered while its first runs", () => {
    const variant = modelVariant('no-account-order');
    expect(variant).toBeDefined();
    for (const [model, second] of [
      [undefined, null],
      [variant?.model, 'b'],
    ] as const) {
      const m = jobModel(cfg, model);
      let s = m.init();
      for (const c of [submit('a', 0), submit('b', 0), { type: 'claim', worker: 'w1', now: 1 }]) s = m.step(s, c).state;
      const out = m.step(s, { type: 'claim', worker: 'w2', now: 1 }).output as { job: { id: string } | null };
      expect(out.job?.id ?? null).toBe(second);
    }
  });

  it('compares without the fields it is told to leave out, at any depth', () => {
    const m = jobModel(cfg, undefined, { ignoreFields: ['lastError'] });
    const expected = { format: 'x', jobs: { a: { status: 'waiting', lastError: null } } };
    const observed = { format: 'x', jobs: { a: { status: 'waiting', lastError: 'timeout' } } };
    expect(m.equal(expected, observed)).toBe(true);
    expect(jobModel(cfg).equal(expected, observed)).toBe(false);
    expect(m.equal(expected, { format: 'x', jobs: { a: { status: 'dead', lastError: null } } })).toBe(false);
  });
});
