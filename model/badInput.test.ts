/**
 * Malformed commands are refused in step 1 with a stable code, a message naming the field, and
 * no change at all. The states they are sent to are every intermediate state of the fixtures, so
 * clocks, running deliveries, waiting retries and effects are all present.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Snapshot } from '../contract/index.ts';
import { loadFixtures, modelDriver } from './fixtures.ts';
import { step, toSnapshot } from './step.ts';
import type { ModelState } from './step.ts';

const RUNS = Number(process.env['JOBCHECK_RUNS'] ?? 300);
const MAX = Number.MAX_SAFE_INTEGER;

/** Every state the fixtures pass through (after each step), collected once. */
async function fixtureStates(): Promise<ModelState[]> {
  const states: ModelState[] = [];
  for (const fixture of loadFixtures()) {
    const driver = modelDriver(fixture.config);
    states.push(driver.state());
    for (const s of fixture.steps) {
      if ('do' in s) await driver.execute(s.do);
      else if ('restart' in s) await driver.restart();
      states.push(driver.state());
    }
  }
  return states;
}
const STATES = await fixtureStates();

type Fields = Record<string, unknown>;
const STRING_FIELDS = new Set(['id', 'account', 'key', 'worker', 'error']);

/** A well-formed command of each type for a state (now at or after the clock). */
function wellFormed(type: string, clock: number, later: number): Fields {
  const now = clock + later;
  switch (type) {
    case 'submit':
      return { type, id: 'z', account: 'alice', key: 'z:k', amount: 3, deadline: now + 10, now };
    case 'claim':
      return { type, worker: 'w9', now };
    case 'fail':
      return { type, worker: 'w9', token: 1, kind: 'transient', error: 'oops', now };
    case 'tick':
      return { type, now };
    default:
      return { type, worker: 'w9', token: 1, now };
  }
}

/** One corruption of a well-formed command: the command, the expected code, and the field the message must name. */
interface Malformed {
  readonly command: unknown;
  readonly code: 'invalid_argument' | 'clock_regressed';
  readonly field: string;
}

const wrongTypeFor = (field: string): fc.Arbitrary<unknown> =>
  STRING_FIELDS.has(field) || field === 'type' || field === 'kind'
    ? fc.constantFrom(5, 0, null, true, [], {}, ['w1'])
    : fc.constantFrom('5', '', null, true, [], {}, [1], '1e3');

/** Values that are refused for a numeric field (amount accepts negatives; token needs >= 1). */
const badNumberFor = (field: string): fc.Arbitrary<number> => {
  const common = fc.constantFrom(
    Number.NaN,
    Number.POSITIVE_INFINITY,
    Number.NEGATIVE_INFINITY,
    1.5,
    2 ** 53,
    -(2 ** 53),
    2 ** 60,
    MAX + 2,
    0.1,
  );
  if (field === 'amount') return common;
  const negative = fc.integer({ min: -1000, max: -1 });
  return field === 'token' ? fc.oneof(common, negative, fc.constant(0)) : fc.oneof(common, negative);
};

function malformedArb(state: ModelState): fc.Arbitrary<Malformed> {
  const clock = state.context.clock;
  return fc
    .record({
      type: fc.constantFrom('submit', 'claim', 'commit', 'ack', 'fail', 'tick'),
      later: fc.nat(5),
      pick: fc.nat(),
    })
    .chain(({ type, later, pick }) => {
      const cmd = wellFormed(type, clock, later);
      const fields = Object.keys(cmd);
      const field = fields[pick % fields.length] ?? 'type';
      const numeric = typeof cmd[field] === 'number';
      const options: fc.Arbitrary<Malformed>[] = [
        wrongTypeFor(field).map((v) => ({ command: { ...cmd, [field]: v }, code: 'invalid_argument' as const, field })),
        fc.constant({ command: without(cmd, field), code: 'invalid_argument' as const, field }),
        fc
          .record({
            name: fc.constantFrom('extra', 'priority', 'Now', 'tokens', '__proto__x'),
            value: fc.constantFrom(1, 'x', null),
          })
          .map(({ name, value }) => ({
            command: { ...cmd, [name]: value },
            code: 'invalid_argument' as const,
            field: name,
          })),
        fc
          .constantFrom('submitt', 'SUBMIT', '', 'advance', 'snapshot', 'toString')
          .map((t) => ({ command: { ...cmd, type: t }, code: 'invalid_argument' as const, field: 'type' })),
        fc
          .constantFrom(null, 7, 'claim', [], [cmd])
          .map((v) => ({ command: v, code: 'invalid_argument' as const, field: 'command' })),
      ];
      if (numeric)
        options.push(
          badNumberFor(field).map((v) => ({
            command: { ...cmd, [field]: v },
            code: 'invalid_argument' as const,
            field,
          })),
        );
      if (STRING_FIELDS.has(field))
        options.push(fc.constant({ command: { ...cmd, [field]: '' }, code: 'invalid_argument' as const, field }));
      if (type === 'fail') {
        options.push(
          fc
            .constantFrom('fatal', 'Transient', '', 'retry')
            .map((k) => ({ command: { ...cmd, kind: k }, code: 'invalid_argument' as const, field: 'kind' })),
        );
      }
      if (type === 'submit') {
        // deadline must be after now, whatever the rest (also for a duplicate of an existing id).
        const now = cmd['now'] as number;
        options.push(
          fc
            .integer({ min: 0, max: now })
            .map((d) => ({ command: { ...cmd, deadline: d }, code: 'invalid_argument' as const, field: 'deadline' })),
        );
      }
      if (clock > 0) {
        options.push(
          fc.integer({ min: 0, max: clock - 1 }).map((now) => {
            const c: Fields = { ...cmd, now };
            if (type === 'submit') c['deadline'] = clock + 10;
            return { command: c, code: 'clock_regressed' as const, field: 'now' };
          }),
        );
      }
      return fc.oneof(...options);
    });
}

function without(cmd: Fields, field: string): Fields {
  const copy = { ...cmd };
  delete copy[field];
  return copy;
}

// States are drawn by index so that a counterexample prints a number, not a whole machine snapshot.
const stateAndCommand = fc
  .integer({ min: 0, max: STATES.length - 1 })
  .chain((i) => fc.tuple(fc.constant(i), malformedArb(STATES[i] ?? STATES[0]!)));

describe('malformed commands', () => {
  it('get the right rejection code, a message naming the field, and change nothing', () => {
    fc.assert(
      fc.property(stateAndCommand, ([index, bad]) => {
        const state = STATES[index]!;
        const before: Snapshot = toSnapshot(state);
        const { state: after, reply } = step(state, bad.command);
        expect(reply).toMatchObject({ ok: false, code: bad.code });
        expect(reply.ok ? '' : reply.message).toMatch(new RegExp(`(^|\\W)${bad.field}(\\W|$)`));
        expect(toSnapshot(after)).toEqual(before);
        expect(toSnapshot(state)).toEqual(before);
      }),
      { numRuns: RUNS },
    );
  });

  it('are refused even when they would otherwise be duplicates or hit a full store', () => {
    const full = STATES.find((s) => s.context.jobs.size > 0);
    if (full === undefined) throw new Error('no fixture state with jobs');
    const [id, job] = Object.entries(toSnapshot(full).jobs)[0] ?? [];
    const now = full.context.clock;
    const repeat = { type: 'submit', id, ...job?.payload, now, deadline: now };
    expect(step(full, repeat).reply).toMatchObject({ ok: false, code: 'invalid_argument' });
  });

  it('name the value they got, so that NaN and a missing field can be told apart', () => {
    const [state] = STATES;
    if (state === undefined) throw new Error('no states');
    const nan = step(state, { type: 'tick', now: Number.NaN }).reply;
    const missing = step(state, { type: 'tick' }).reply;
    expect(nan.ok ? '' : nan.message).toMatch(/now.*NaN/);
    expect(missing.ok ? '' : missing.message).toMatch(/now.*missing/);
  });
});
