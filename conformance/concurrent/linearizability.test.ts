import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { runConcurrentCampaign } from './campaign.ts';
import type { CheckBudget, CheckOutcome, History, Operation, SequentialModel } from './history.ts';
import { lockedJobStoreFactory } from './inProcess.ts';
import { kvRegister } from './kvRegister.ts';
import type { KvInput, KvOutput, KvState } from './kvRegister.ts';
import { DEFAULT_MAX_STEPS, HistoryError, checkLinearizability } from './linearizability.ts';
import { mergeOrders, partitionHistory } from './partition.ts';

type KvOp = Operation<KvInput, KvOutput>;
type Checker = (
  model: SequentialModel<KvState, KvInput, KvOutput>,
  history: History<KvInput, KvOutput>,
  budget?: CheckBudget,
) => CheckOutcome<KvOutput>;

const put = (key: string, value: string): KvInput => ({ type: 'put', key, value });
const get = (key: string): KvInput => ({ type: 'get', key });
const cas = (key: string, expect: string | null, value: string): KvInput => ({ type: 'cas', key, expect, value });
const putOk: KvOutput = { type: 'put' };
const read = (value: string | null): KvOutput => ({ type: 'get', value });

/** A returned operation. */
const done = (id: number, lane: number, input: KvInput, invoked: number, returned: number, output: KvOutput): KvOp => ({
  id,
  lane,
  input,
  invoked,
  returned,
  output,
});
/** An indefinite operation: no reply came. */
const lost = (id: number, lane: number, input: KvInput, invoked: number): KvOp => ({ id, lane, input, invoked });
const history = (...operations: KvOp[]): History<KvInput, KvOutput> => ({ operations });

/**
 * Independent check of an order a checker offers: every returned operation appears once, an
 * indefinite one at most once, real-time order holds, and replaying the order through the model
 * gives every observed reply.
 */
function explains(h: History<KvInput, KvOutput>, order: readonly number[]): string | undefined {
  const byId = new Map(h.operations.map((op) => [op.id, op]));
  const position = new Map<number, number>();
  order.forEach((id, k) => {
    if (position.has(id)) throw new Error(`order repeats ${id}`);
    position.set(id, k);
  });
  for (const op of h.operations)
    if (op.returned !== undefined && !position.has(op.id)) return `returned operation ${op.id} is missing`;
  for (const a of h.operations) {
    for (const b of h.operations) {
      const pa = position.get(a.id);
      const pb = position.get(b.id);
      if (pa !== undefined && pb !== undefined && a.returned !== undefined && a.returned < b.invoked && pb < pa)
        return `${b.id} placed before ${a.id}, which returned before it was invoked`;
    }
  }
  let state = kvRegister.init();
  for (const id of order) {
    const op = byId.get(id);
    if (op === undefined) return `unknown id ${id}`;
    const r = kvRegister.step(state, op.input);
    if (op.returned !== undefined && !kvRegister.equal(r.output, op.output as KvOutput))
      return `operation ${id}: model ${JSON.stringify(r.output)}, observed ${JSON.stringify(op.output)}`;
    state = r.state;
  }
  return undefined;
}

/** The oracle for small histories: every real-time-respecting order, tried exhaustively, no memo. */
function bruteForce(h: History<KvInput, KvOutput>): boolean {
  const ops = h.operations;
  const used = new Array<boolean>(ops.length).fill(false);
  const search = (state: KvState): boolean => {
    if (ops.every((op, i) => used[i] === true || op.returned === undefined)) return true;
    for (let i = 0; i < ops.length; i++) {
      const op = ops[i] as KvOp;
      if (used[i] === true) continue;
      const blocked = ops.some(
        (other, j) => used[j] !== true && other.returned !== undefined && other.returned < op.invoked,
      );
      if (blocked) continue;
      const r = kvRegister.step(state, op.input);
      if (op.returned !== undefined && !kvRegister.equal(r.output, op.output as KvOutput)) continue;
      used[i] = true;
      if (search(r.state)) return true;
      used[i] = false;
    }
    return false;
  };
  return search(kvRegister.init());
}

describe('checking hand-made register histories', () => {
  it('accepts an indefinite put whose effect a later get sees', () => {
    const h = history(lost(1, 0, put('x', '1'), 0), done(2, 1, get('x'), 1, 2, read('1')));
    const r = checkLinearizability(kvRegister, h);
    expect(r.verdict).toBe('linearizable');
    if (r.verdict === 'linearizable') expect(explains(h, r.order)).toBeUndefined();
  });

  it('accepts an indefinite put that nobody ever sees, leaving it out of the order', () => {
    const h = history(
      lost(1, 0, put('x', '1'), 0),
      done(2, 1, get('x'), 1, 2, read(null)),
      done(3, 1, get('x'), 3, 4, read(null)),
    );
    const r = checkLinearizability(kvRegister, h);
    expect(r.verdict).toBe('linearizable');
    if (r.verdict === 'linearizable') {
      expect(explains(h, r.order)).toBeUndefined();
      expect(r.order).not.toContain(1);
    }
  });

  it('refuses an indefinite put seen before it was invoked', () => {
    const h = history(done(1, 1, get('x'), 0, 1, read('1')), lost(2, 0, put('x', '1'), 2));
    expect(checkLinearizability(kvRegister, h).verdict).toBe('not_linearizable');
  });

  it('refuses a get that sees a value before its put was invoked, naming the get in the witness', () => {
    const h = history(done(1, 0, get('x'), 0, 1, read('1')), done(2, 1, put('x', '1'), 2, 3, putOk));
    const r = checkLinearizability(kvRegister, h);
    expect(r.verdict).toBe('not_linearizable');
    if (r.verdict !== 'not_linearizable') return;
    expect(r.witness.longestOrder).toEqual([]);
    expect(r.witness.stuck).toEqual([{ id: 1, expected: read(null), observed: read('1') }]);
  });

  it('refuses two readers that disagree on the order of two overlapping puts', () => {
    const h = history(
      done(1, 0, put('x', 'a'), 0, 10, putOk),
      done(2, 1, put('x', 'b'), 0, 10, putOk),
      done(3, 2, get('x'), 1, 2, read('a')),
      done(4, 2, get('x'), 3, 4, read('b')),
      done(5, 3, get('x'), 1, 2, read('b')),
      done(6, 3, get('x'), 3, 4, read('a')),
    );
    const r = checkLinearizability(kvRegister, h);
    expect(r.verdict).toBe('not_linearizable');
    expect(bruteForce(h)).toBe(false);
  });

  it('accepts the same puts when the readers agree', () => {
    const h = history(
      done(1, 0, put('x', 'a'), 0, 10, putOk),
      done(2, 1, put('x', 'b'), 0, 10, putOk),
      done(3, 2, get('x'), 1, 2, read('a')),
      done(4, 2, get('x'), 3, 4, read('b')),
      done(5, 3, get('x'), 1, 2, read('a')),
      done(6, 3, get('x'), 3, 4, read('b')),
    );
    const r = checkLinearizability(kvRegister, h);
    expect(r.verdict).toBe('linearizable');
    if (r.verdict === 'linearizable') expect(explains(h, r.order)).toBeUndefined();
  });

  it('refuses a read of an overwritten value once both puts have returned (real-time order)', () => {
    const h = history(
      done(1, 0, put('x', 'a'), 0, 1, putOk),
      done(2, 1, put('x', 'b'), 2, 3, putOk),
      done(3, 2, get('x'), 4, 5, read('a')),
    );
    const r = checkLinearizability(kvRegister, h);
    expect(r.verdict).toBe('not_linearizable');
    if (r.verdict === 'not_linearizable') {
      expect(r.witness.longestOrder).toEqual([1, 2]);
      expect(r.witness.stuck.map((s) => s.id)).toEqual([3]);
    }
  });

  it('treats operations that meet at one instant as concurrent', () => {
    const h = history(done(1, 0, put('x', 'a'), 0, 2, putOk), done(2, 1, get('x'), 2, 3, read(null)));
    expect(checkLinearizability(kvRegister, h).verdict).toBe('linearizable');
  });

  it('checks compare-and-set replies against the state they saw', () => {
    const ok = history(
      done(1, 0, cas('x', null, '1'), 0, 3, { type: 'cas', swapped: true }),
      done(2, 1, cas('x', null, '2'), 1, 2, { type: 'cas', swapped: false }),
    );
    expect(checkLinearizability(kvRegister, ok).verdict).toBe('linearizable');
    const bad = history(
      done(1, 0, cas('x', null, '1'), 0, 1, { type: 'cas', swapped: true }),
      done(2, 1, cas('x', null, '2'), 2, 3, { type: 'cas', swapped: true }),
    );
    expect(checkLinearizability(kvRegister, bad).verdict).toBe('not_linearizable');
  });

  it('checks a long history without deep recursion (10,000 operations, one after another)', () => {
    const ops = Array.from({ length: 10_000 }, (_, i) =>
      i % 2 === 0
        ? done(i, 0, put('x', String(i)), 2 * i, 2 * i + 1, putOk)
        : done(i, 1, get('x'), 2 * i, 2 * i + 1, read(String(i - 1))),
    );
    const r = checkLinearizability(kvRegister, history(...ops));
    expect(r.verdict).toBe('linearizable');
  });

  it('accepts the empty history', () => {
    expect(checkLinearizability(kvRegister, history())).toEqual({ verdict: 'linearizable', order: [], steps: 0 });
  });
});

/** `n` puts of distinct values all at once, then a read of a value none wrote: the search has 2^n subsets to refute. */
const wideHardHistory = (n: number, key = 'x', firstId = 0): KvOp[] => [
  ...Array.from({ length: n }, (_, i) => done(firstId + i, i, put(key, `v${i}`), 0, 100, putOk)),
  done(firstId + n, n, get(key), 101, 102, read('never')),
];
/** Twenty puts of distinct values all at once, then a read of a value none wrote: the search has 2^20 subsets to refute. */
const hardHistory = (): History<KvInput, KvOutput> => history(...wideHardHistory(20));

describe('a budget that runs out', () => {
  it('gives unknown (max_steps), never a pass, when the step budget ends', () => {
    const r = checkLinearizability(kvRegister, hardHistory(), { maxSteps: 5_000 });
    expect(r).toEqual({ verdict: 'unknown', reason: 'max_steps', steps: 5_000 });
  });

  it('gives unknown (timeout) when the time limit ends', () => {
    const r = checkLinearizability(kvRegister, hardHistory(), { maxSteps: Number.MAX_SAFE_INTEGER, timeoutMs: 20 });
    expect(r.verdict).toBe('unknown');
    if (r.verdict === 'unknown') expect(r.reason).toBe('timeout');
  });

  it('refuses a malformed history or budget with a typed error naming the bad value', () => {
    const dup = history(done(1, 0, get('x'), 0, 1, read(null)), done(1, 1, get('x'), 0, 1, read(null)));
    expect(() => checkLinearizability(kvRegister, dup)).toThrow(HistoryError);
    expect(() => checkLinearizability(kvRegister, dup)).toThrow(/id: 1 is used by another operation/);
    const backwards = history(done(1, 0, get('x'), 5, 4, read(null)));
    expect(() => checkLinearizability(kvRegister, backwards)).toThrow(/returned 4 is before invoked 5/);
    try {
      checkLinearizability(kvRegister, history(), { maxSteps: -1 });
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(HistoryError);
      expect((e as HistoryError).code).toBe('invalid_budget');
      expect((e as HistoryError).message).toContain('-1');
    }
    const halfByte = (): unknown => checkLinearizability(kvRegister, history(), { maxMemoryBytes: 1.5 });
    expect(halfByte).toThrow(/maxMemoryBytes: must be an integer >= 0 \(got 1\.5\)/);
    expect(() => checkLinearizability(kvRegister, history(), { maxMemoryBytes: -1 })).toThrow(HistoryError);
  });

  it('gives unknown (memory), never a pass, when the search would hold more than its memory budget', () => {
    const r = checkLinearizability(kvRegister, hardHistory(), { maxMemoryBytes: 64 * 1024 });
    expect(r.verdict).toBe('unknown');
    if (r.verdict !== 'unknown') return;
    expect(r.reason).toBe('memory');
    expect(r.steps).toBeGreaterThan(0);
    expect(r.steps).toBeLessThan(DEFAULT_MAX_STEPS);
  });

  it('goes further on the same history with more memory, and decides an easy one within a small budget', () => {
    const small = checkLinearizability(kvRegister, hardHistory(), { maxMemoryBytes: 64 * 1024 });
    const larger = checkLinearizability(kvRegister, hardHistory(), { maxMemoryBytes: 256 * 1024 });
    expect(small).toMatchObject({ verdict: 'unknown', reason: 'memory' });
    expect(larger).toMatchObject({ verdict: 'unknown', reason: 'memory' });
    expect(larger.steps).toBeGreaterThan(2 * small.steps);
    const easy = history(
      ...Array.from({ length: 200 }, (_, i) => done(i, i % 4, put('x', `v${i}`), 2 * i, 2 * i + 1, putOk)),
    );
    expect(checkLinearizability(kvRegister, easy, { maxMemoryBytes: 256 * 1024 }).verdict).toBe('linearizable');
  });

  it('ends unknown (memory) at the default budget in a process with a small heap, instead of running out of memory', () => {
    // A thousand puts at once and a read of a value none wrote: the search's memo grows until it stops it.
    const here = (file: string): string => JSON.stringify(new URL(file, import.meta.url).href);
    const script = [
      `const { checkLinearizability } = await import(${here('./linearizability.ts')});`,
      `const { kvRegister } = await import(${here('./kvRegister.ts')});`,
      "const put = (i) => ({ id: i, lane: i, input: { type: 'put', key: 'x', value: 'v' + i }, invoked: 0, returned: 100, output: { type: 'put' } });",
      'const operations = Array.from({ length: 1000 }, (_, i) => put(i));',
      "const read = { type: 'get', value: 'never' };",
      "operations.push({ id: 1000, lane: 0, input: { type: 'get', key: 'x' }, invoked: 101, returned: 102, output: read });",
      'const r = checkLinearizability(kvRegister, { operations });',
      'process.stdout.write(JSON.stringify({ verdict: r.verdict, reason: r.reason }));',
    ].join('\n');
    const root = fileURLToPath(new URL('../..', import.meta.url));
    const argv = ['--max-old-space-size=32', '--import', 'tsx', '--input-type=module', '-e', script];
    const child = spawnSync(process.execPath, argv, { cwd: root, encoding: 'utf8', timeout: 90_000 });
    expect(child.signal, child.stderr.slice(-2000)).toBeNull();
    expect(child.status, child.stderr.slice(-2000)).toBe(0);
    expect(JSON.parse(child.stdout)).toEqual({ verdict: 'unknown', reason: 'memory' });
  });

  it('makes a concurrent campaign whose checks run out of memory unknown, never passed', async () => {
    const checkBudget = { maxMemoryBytes: 1 };
    const r = await runConcurrentCampaign({
      factory: lockedJobStoreFactory(),
      workers: 2,
      numRuns: 3,
      seed: 7,
      checkBudget,
    });
    expect(r.verdict).toBe('unknown');
    expect(r.unknownRuns).toBeGreaterThan(0);
    expect(r.firstUnknown?.reason).toBe('memory');
  });
});

// --- Properties: histories made from a known linear order. -----------------------------------------

const valueArb = fc.constantFrom('1', '2', '3');
const inputArb = (keys: readonly string[]): fc.Arbitrary<KvInput> => {
  const keyArb = fc.constantFrom(...keys);
  return fc.oneof(
    fc.record({ type: fc.constant('put' as const), key: keyArb, value: valueArb }),
    fc.record({ type: fc.constant('get' as const), key: keyArb }),
    fc.record({
      type: fc.constant('cas' as const),
      key: keyArb,
      expect: fc.constantFrom(null, '1', '2', '3'),
      value: valueArb,
    }),
  );
};
/** What became of a request: it replied, it took effect but no reply came, or it was lost before taking effect. */
type Fate = 'returned' | 'indefinite' | 'lost';
const planArb = (maxLength: number, keys: readonly string[] = ['x', 'y']) =>
  fc.array(
    fc.record({
      input: inputArb(keys),
      before: fc.nat({ max: 7 }),
      after: fc.nat({ max: 7 }),
      fate: fc.constantFrom<Fate>('returned', 'returned', 'returned', 'returned', 'indefinite', 'lost'),
      lane: fc.nat({ max: 3 }),
    }),
    { minLength: 1, maxLength },
  );

/**
 * Applies the planned requests to the model in plan order; request j takes effect at instant
 * 4j + 8 and its interval is drawn around that point, so every interval contains its point and
 * real-time order can never contradict plan order. Lost requests take no effect at all.
 */
function fromPlan(
  plan: readonly { input: KvInput; before: number; after: number; fate: Fate; lane: number }[],
): History<KvInput, KvOutput> {
  let state = kvRegister.init();
  const operations = plan.map((p, j): KvOp => {
    const point = 4 * j + 8;
    const invoked = point - p.before;
    if (p.fate === 'lost') return lost(j, p.lane, p.input, invoked);
    const r = kvRegister.step(state, p.input);
    state = r.state;
    if (p.fate === 'indefinite') return lost(j, p.lane, p.input, invoked);
    return done(j, p.lane, p.input, invoked, point + p.after, r.output);
  });
  return { operations };
}

/** The same history with one returned reply changed to a different reply of the same kind. */
function corrupt(
  h: History<KvInput, KvOutput>,
  pick: number,
  value: string | null,
): History<KvInput, KvOutput> | undefined {
  const returned = h.operations.filter((op) => op.returned !== undefined && op.output?.type !== 'put');
  const target = returned[pick % Math.max(1, returned.length)];
  if (target === undefined || target.output === undefined) return undefined;
  const output: KvOutput =
    target.output.type === 'cas'
      ? { type: 'cas', swapped: !target.output.swapped }
      : { type: 'get', value: target.output.type === 'get' && target.output.value === value ? 'other' : value };
  return {
    operations: h.operations.map((op) => (op === target && op.returned !== undefined ? { ...op, output } : op)),
  };
}

/** Every history made from a linear order is linearizable, with an order the model replays. */
const alwaysLinearizable = (check: Checker) =>
  fc.property(planArb(24), (plan) => {
    const h = fromPlan(plan);
    const r = check(kvRegister, h);
    if (r.verdict !== 'linearizable') return false;
    return explains(h, r.order) === undefined;
  });

/** A get corrupted to read a value nobody wrote can never be explained. */
const freshValueRefused = (check: Checker) =>
  fc.property(planArb(24), fc.nat(), (plan, pick) => {
    const h = fromPlan(plan);
    const gets = h.operations.filter((op) => op.returned !== undefined && op.input.type === 'get');
    const target = gets[pick % Math.max(1, gets.length)];
    fc.pre(target !== undefined);
    const bad = {
      operations: h.operations.map((op) =>
        op === target && op.returned !== undefined ? { ...op, output: read('never-written') } : op,
      ),
    };
    const r = check(kvRegister, bad);
    return (
      r.verdict === 'not_linearizable' &&
      r.witness.stuck.length > 0 &&
      r.witness.stuck.every((s) => !kvRegister.equal(s.expected, s.observed as KvOutput))
    );
  });

/** On small histories with one reply corrupted, the verdict is the exhaustive oracle's, and a pass comes with an order that replays. */
const agreesWithOracle = (check: Checker) =>
  fc.property(planArb(7), fc.nat(), valueArb, (plan, pick, value) => {
    const h = corrupt(fromPlan(plan), pick, value) ?? fromPlan(plan);
    const r = check(kvRegister, h);
    if (r.verdict === 'unknown') return false;
    if (r.verdict === 'linearizable' && explains(h, r.order) !== undefined) return false;
    return (r.verdict === 'linearizable') === bruteForce(h);
  });

// Broken checkers, kept here so that each property is seen to fail against one.
/** Ignores real-time order: every operation is made to span the whole history. */
const ignoringRealTime: Checker = (model, h, budget) => {
  const end = Math.max(0, ...h.operations.map((op) => op.returned ?? op.invoked));
  return checkLinearizability<KvState, KvInput, KvOutput>(
    model,
    {
      operations: h.operations.map((op) =>
        op.returned === undefined ? { ...op, invoked: 0 } : { ...op, invoked: 0, returned: end },
      ),
    },
    budget,
  );
};
/** Treats indefinite operations as required: each must take effect right after its invoke (as if it had returned at once with whatever reply the model gives). */
const ANY = Symbol('any reply');
const requiringIndefinite: Checker = (model, h, budget) => {
  const lenient: SequentialModel<KvState, KvInput, KvOutput> = {
    ...model,
    equal: (e, o) => (o as unknown) === ANY || model.equal(e, o),
  };
  const ops = h.operations.map((op) =>
    op.returned === undefined ? { ...op, returned: op.invoked + 0.5, output: ANY as unknown as KvOutput } : op,
  );
  return checkLinearizability(lenient, { operations: ops }, budget);
};
/** A wrong `stableWhenUnchanged` hint: every operation that leaves a state unchanged is taken as stable (a put of the value already there is not). */
const overconfidentHint: Checker = (model, h, budget) =>
  checkLinearizability({ ...model, stableWhenUnchanged: () => true }, h, budget);
/** Never compares replies: every order that respects real time passes. */
const ignoringReplies: Checker = (model, h, budget) => checkLinearizability({ ...model, equal: () => true }, h, budget);
/** The register without the hint, so the properties also cover the plain search. */
const withoutHint: Checker = (model, h, budget) => {
  const { stableWhenUnchanged: _hint, ...plain } = model as typeof kvRegister;
  return checkLinearizability(plain, h, budget);
};
/** The register as one object: its history checked whole, never key by key. */
const withoutPartition: Checker = (model, h, budget) => {
  const { partitionKey: _key, ...whole } = model as typeof kvRegister;
  return checkLinearizability(whole, h, budget);
};
/** Checks each key apart but joins the keys' orders one after another, ignoring real time between keys. */
const concatenatingParts: Checker = (model, h, budget) => {
  const order: number[] = [];
  for (const part of partitionHistory(h, (input: KvInput) => input.key)) {
    const r = withoutPartition(model, part, budget);
    if (r.verdict !== 'linearizable') return r;
    order.push(...r.order);
  }
  return { verdict: 'linearizable', order, steps: 0 };
};
/** Passes a history when any one key's history passes (with the keys' orders merged and steps summed, as the real one does). */
const anyPartPasses: Checker = (model, h, budget) => {
  const parts = partitionHistory(h, (input: KvInput) => input.key);
  const outcomes = parts.map((part) => withoutPartition(model, part, budget));
  const steps = outcomes.reduce((sum, r) => sum + r.steps, 0);
  if (outcomes.some((r) => r.verdict === 'linearizable')) {
    const passed = parts.filter((_, p) => outcomes[p]?.verdict === 'linearizable');
    const orders = outcomes.flatMap((r) => (r.verdict === 'linearizable' ? [r.order] : []));
    return { verdict: 'linearizable', order: mergeOrders(passed, orders), steps };
  }
  return outcomes[0] ?? { verdict: 'linearizable', order: [], steps: 0 };
};

/**
 * On small histories over three keys, with one reply perhaps corrupted: the verdict is the same
 * whether the keys are checked apart or the history whole, a pass comes with an order that
 * replays, and a pass costs the steps of the keys checked one by one (each key was searched apart).
 */
const sameAsWhole = (check: Checker) =>
  fc.property(planArb(9, ['x', 'y', 'z']), fc.nat(), valueArb, fc.boolean(), (plan, pick, value, spoil) => {
    const h = (spoil ? corrupt(fromPlan(plan), pick, value) : undefined) ?? fromPlan(plan);
    const apart = check(kvRegister, h);
    const whole = withoutPartition(kvRegister, h);
    if (apart.verdict === 'unknown' || whole.verdict === 'unknown') return false;
    if (apart.verdict !== whole.verdict) return false;
    if (apart.verdict !== 'linearizable') return true;
    const parts = partitionHistory(h, (input: KvInput) => input.key);
    const keyByKey = parts.reduce((sum, part) => sum + withoutPartition(kvRegister, part).steps, 0);
    return explains(h, apart.order) === undefined && apart.steps === keyByKey;
  });

describe('properties of the checker on histories made from a linear order', () => {
  it('finds every such history linearizable, with an order that replays', () => {
    fc.assert(alwaysLinearizable(checkLinearizability), { numRuns: 300 });
  });

  it('finds a history not linearizable when one get reads a value nobody wrote', () => {
    fc.assert(freshValueRefused(checkLinearizability), { numRuns: 300 });
  });

  it('agrees with an exhaustive search when one reply is corrupted', () => {
    fc.assert(agreesWithOracle(checkLinearizability), { numRuns: 400 });
  });

  it('holds the same properties without the stable no-op hint of the model', () => {
    fc.assert(alwaysLinearizable(withoutHint), { numRuns: 200 });
    fc.assert(freshValueRefused(withoutHint), { numRuns: 200 });
    fc.assert(agreesWithOracle(withoutHint), { numRuns: 300 });
  });

  it('catches a wrong stable no-op hint', () => {
    // The second put of 'a' changes nothing where it first fits, but must come after the put of 'b'.
    const h = history(
      done(1, 0, put('x', 'a'), 0, 1, putOk),
      done(2, 0, put('x', 'a'), 2, 10, putOk),
      done(3, 1, put('x', 'b'), 3, 9, putOk),
      done(4, 2, get('x'), 11, 12, read('a')),
    );
    expect(bruteForce(h)).toBe(true);
    expect(checkLinearizability(kvRegister, h).verdict).toBe('linearizable');
    expect(overconfidentHint(kvRegister, h).verdict).toBe('not_linearizable');
  });

  it('catches a checker that does not compare replies', () => {
    expect(() => fc.assert(freshValueRefused(ignoringReplies), { numRuns: 100 })).toThrow();
  });

  it('catches a checker that ignores real-time order', () => {
    expect(() => fc.assert(agreesWithOracle(ignoringRealTime), { numRuns: 400 })).toThrow();
  });

  it('catches a checker that treats indefinite operations as required', () => {
    expect(() => fc.assert(alwaysLinearizable(requiringIndefinite), { numRuns: 300 })).toThrow();
    expect(() => fc.assert(agreesWithOracle(requiringIndefinite), { numRuns: 400 })).toThrow();
  });
});

/**
 * `keys` keys, each with `puts` puts at once and then a read of the value put first (of `never`
 * for the key `stale`): each key alone needs a search of its 2^puts subsets.
 */
function manyHardKeys(keys: number, puts: number, stale?: number): History<KvInput, KvOutput> {
  const operations: KvOp[] = [];
  for (let k = 0; k < keys; k++) {
    for (let p = 0; p < puts; p++) operations.push(done(operations.length, p, put(`k${k}`, `v${p}`), 0, 100, putOk));
    operations.push(done(operations.length, puts, get(`k${k}`), 101, 102, read(k === stale ? 'never' : 'v0')));
  }
  return { operations };
}

describe('checking each key apart (P-compositionality)', () => {
  it('checks a history of many keys, each hard on its own, in few steps, where the whole history is beyond the budget', () => {
    const h = manyHardKeys(8, 6);
    const apart = checkLinearizability(kvRegister, h, { maxSteps: 20_000 });
    expect(apart.verdict).toBe('linearizable');
    if (apart.verdict === 'linearizable') expect(explains(h, apart.order)).toBeUndefined();
    expect(apart.steps).toBeLessThan(5_000);
    expect(withoutPartition(kvRegister, h, { maxSteps: 20_000 })).toMatchObject({
      verdict: 'unknown',
      reason: 'max_steps',
    });
  });

  it('finds the one key whose history no order explains, naming its operations by their own ids', () => {
    const h = history(
      done(10, 0, put('a', '1'), 0, 1, putOk),
      done(11, 1, put('b', '1'), 0, 1, putOk),
      done(12, 2, put('c', '1'), 0, 1, putOk),
      done(13, 0, get('a'), 2, 3, read('1')),
      done(14, 1, put('b', '2'), 2, 3, putOk),
      done(15, 2, get('c'), 2, 3, read('1')),
      done(16, 1, get('b'), 4, 5, read('1')),
    );
    const r = checkLinearizability(kvRegister, h);
    expect(r.verdict).toBe('not_linearizable');
    if (r.verdict !== 'not_linearizable') return;
    expect(r.witness.longestOrder).toEqual([11, 14]);
    expect(r.witness.stuck).toEqual([{ id: 16, expected: read('2'), observed: read('1') }]);
  });

  it('finds a failing key even when another key alone would spend the whole step budget', () => {
    const easy = [done(100, 0, put('easy', '1'), 0, 1, putOk), done(101, 0, get('easy'), 2, 3, read('2'))];
    const h = history(...wideHardHistory(20, 'hard'), ...easy);
    const r = checkLinearizability(kvRegister, h, { maxSteps: 5_000 });
    expect(r.verdict).toBe('not_linearizable');
    if (r.verdict === 'not_linearizable') expect(r.witness.stuck.map((s) => s.id)).toEqual([101]);
  });

  it('is unknown when a key is undecided and no key failed, with the steps of every key counted', () => {
    const easy = [done(100, 0, put('easy', '1'), 0, 1, putOk), done(101, 0, get('easy'), 2, 3, read('1'))];
    const h = history(...wideHardHistory(20, 'hard'), ...easy);
    expect(checkLinearizability(kvRegister, h, { maxSteps: 5_000 })).toEqual({
      verdict: 'unknown',
      reason: 'max_steps',
      steps: 5_000,
    });
    const failing = manyHardKeys(3, 8, 1);
    const r = checkLinearizability(kvRegister, failing);
    expect(r.verdict).toBe('not_linearizable');
    if (r.verdict === 'not_linearizable') expect(r.witness.stuck.map((s) => s.id)).toEqual([17]);
  });

  it('gives the same verdict as the whole history, with an order that replays, on small histories over three keys', () => {
    fc.assert(sameAsWhole(checkLinearizability), { numRuns: 400 });
  });

  it("catches a checker that joins the keys' orders one after another", () => {
    expect(() => fc.assert(alwaysLinearizable(concatenatingParts), { numRuns: 300 })).toThrow();
  });

  it('catches a checker that passes a history when any one key passes', () => {
    expect(() => fc.assert(sameAsWhole(anyPartPasses), { numRuns: 400 })).toThrow();
  });
});
