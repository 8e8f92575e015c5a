import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fastCommand } from './fastCommand.ts';
import { parseCommand, parseCommandBySchema } from './schema.ts';

const FIELDS = ['type', 'id', 'account', 'key', 'amount', 'deadline', 'now', 'worker', 'token', 'kind', 'error'];
const TYPES = ['submit', 'claim', 'commit', 'ack', 'fail', 'tick'];

/** Values at and around every boundary the schema draws: empty strings, 0, -0, 1, fractions, the safe range. */
const edgeValue: fc.Arbitrary<unknown> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.constantFrom(
      '',
      'a',
      0,
      -0,
      1,
      -1,
      1.5,
      Number.NaN,
      Number.POSITIVE_INFINITY,
      Number.MAX_SAFE_INTEGER,
      Number.MAX_SAFE_INTEGER + 1,
      Number.MIN_SAFE_INTEGER,
      Number.MIN_SAFE_INTEGER - 2,
      'transient',
      'permanent',
      null,
      undefined,
      true,
      '0',
    ),
  },
  fc.integer({ min: -3, max: 10 }),
  fc.constantFrom(...TYPES),
  fc.string({ maxLength: 3 }),
  fc.anything({ maxDepth: 1 }),
);

const word = fc.string({ minLength: 1, maxLength: 4 });
const time = fc.integer({ min: 0, max: 20 });
const positive = fc.integer({ min: 1, max: 20 });

/** Well-formed commands of every type. */
const validCommand: fc.Arbitrary<Record<string, unknown>> = fc.oneof(
  fc
    .record({ id: word, account: word, key: word, amount: fc.integer({ min: -5, max: 5 }), now: time, life: positive })
    .map(({ life, ...c }) => ({ type: 'submit', ...c, deadline: c.now + life })),
  fc.record({ type: fc.constant('claim'), worker: word, now: time }),
  fc.record({ type: fc.constantFrom('commit', 'ack'), worker: word, token: positive, now: time }),
  fc.record({
    type: fc.constant('fail'),
    worker: word,
    token: positive,
    kind: fc.constantFrom('transient', 'permanent'),
    error: word,
    now: time,
  }),
  fc.record({ type: fc.constant('tick'), now: time }),
);

/**
 * A well-formed command with one to three changes: one of its fields (mostly) or another set to an
 * edge value, removed, or added.
 */
const nearValidCommand: fc.Arbitrary<unknown> = validCommand.chain((command) =>
  fc
    .array(
      fc.record({
        field: fc.oneof(
          { weight: 4, arbitrary: fc.constantFrom(...Object.keys(command)) },
          { weight: 1, arbitrary: fc.constantFrom(...FIELDS, 'extra', 'constructor', '__proto__', 'toString') },
        ),
        change: fc.oneof({ weight: 4, arbitrary: fc.constant('set') }, { weight: 1, arbitrary: fc.constant('delete') }),
        value: edgeValue,
      }),
      { minLength: 1, maxLength: 3 },
    )
    .map((changes) => {
      // Through JSON text, so that a `__proto__` field is an own field, as a parsed protocol line has it.
      const out: Record<string, unknown> = JSON.parse(JSON.stringify(command));
      for (const { field, change, value } of changes) {
        if (change === 'delete') delete out[field];
        else Object.defineProperty(out, field, { value, enumerable: true, writable: true, configurable: true });
      }
      return out;
    }),
);

/** Objects whose fields are not all their own: an inherited field, a null prototype, a hidden field. */
const oddObject: fc.Arbitrary<unknown> = fc
  .tuple(validCommand, fc.constantFrom(...FIELDS, 'extra'), fc.constantFrom('inherit', 'null-proto', 'hidden'))
  .map(([command, field, how]) => {
    if (how === 'null-proto') return Object.assign(Object.create(null), command);
    if (how === 'inherit') {
      const { [field]: moved, ...rest } = command;
      return Object.assign(Object.create({ [field]: moved ?? 1 }), rest);
    }
    const out = { ...command };
    Object.defineProperty(out, field, { value: out[field] ?? 1, enumerable: false });
    return out;
  });

describe('the fast command path', () => {
  it('accepts every well-formed command, as the same command the schema yields', () => {
    fc.assert(
      fc.property(validCommand, (command) => {
        const fast = fastCommand(command);
        expect(fast).toBeDefined();
        expect({ ok: true, command: fast }).toEqual(parseCommandBySchema(command));
      }),
      { numRuns: 2000 },
    );
  });

  it('gives the same parse as the schema alone for near-valid commands, odd objects and anything at all', () => {
    fc.assert(
      fc.property(
        fc.oneof({ weight: 6, arbitrary: nearValidCommand }, oddObject, fc.anything(), edgeValue),
        (input) => {
          expect(parseCommand(input)).toEqual(parseCommandBySchema(input));
          const fast = fastCommand(input);
          if (fast !== undefined) expect(parseCommandBySchema(input)).toEqual({ ok: true, command: fast });
        },
      ),
      { numRuns: 5000 },
    );
  });

  it('returns a fresh object in the schema field order, sharing nothing with the input', () => {
    const input = { now: 3, worker: 'w1', type: 'claim' };
    const fast = fastCommand(input);
    expect(fast).not.toBe(input);
    expect(Object.keys(fast ?? {})).toEqual(['type', 'worker', 'now']);
  });
});
