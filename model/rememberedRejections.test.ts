/**
 * The remembered rejections against the schema itself: over sequences of commands that repeat,
 * or nearly repeat (the same fields with 0 for -0, a number for its string, fields in another
 * order, a getter for a value, the same values under other names), the remembering parser
 * answers each exactly as the schema does; a command with a getter is never answered from memory.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseCommandBySchema } from '../contract/index.ts';
import { MAX_REMEMBERED, rememberRejections } from './rememberedRejections.ts';

const valueArb: fc.Arbitrary<unknown> = fc.constantFrom(
  '',
  'a',
  '1',
  0,
  -0,
  1,
  2,
  -1,
  1.5,
  Number.NaN,
  null,
  undefined,
  true,
  'transient',
  'submit',
  'claim',
  'commit',
  'tick',
);
const fieldArb = fc.constantFrom(
  'type',
  'id',
  'account',
  'key',
  'amount',
  'deadline',
  'now',
  'worker',
  'token',
  'kind',
);

/** A command as a list of fields, possibly with a getter for one of them or another prototype. */
const commandArb = fc.record({
  fields: fc.array(fc.tuple(fieldArb, valueArb), { maxLength: 7 }),
  getter: fc.boolean(),
  prototype: fc.boolean(),
});
type Shape = typeof commandArb extends fc.Arbitrary<infer T> ? T : never;

function build(shape: Shape): unknown {
  const o: Record<string, unknown> = shape.prototype ? Object.create({ inherited: 1 }) : {};
  shape.fields.forEach(([field, value], i) => {
    if (shape.getter && i === 0)
      Object.defineProperty(o, field, { get: () => value, enumerable: true, configurable: true });
    else Object.defineProperty(o, field, { value, enumerable: true, writable: true, configurable: true });
  });
  return o;
}

/** Variations of one command: the same, reordered, with -0 for 0 and back, strings for numbers. */
function variations(shape: Shape): Shape[] {
  const swap = (v: unknown): unknown =>
    Object.is(v, 0) ? -0 : Object.is(v, -0) ? 0 : typeof v === 'number' ? String(v) : v === '1' ? 1 : v;
  return [
    shape,
    { ...shape, fields: [...shape.fields].reverse() },
    { ...shape, fields: shape.fields.map(([f, v]) => [f, swap(v)] as (typeof shape.fields)[number]) },
    { ...shape, getter: !shape.getter },
    // The same values under other names (each field takes the next one's name).
    {
      ...shape,
      fields: shape.fields.map(
        ([, v], i, all) => [all[(i + 1) % all.length]?.[0] ?? 'type', v] as (typeof shape.fields)[number],
      ),
    },
    { ...shape, prototype: !shape.prototype },
  ];
}

describe('rememberRejections', () => {
  it('answers every command exactly as the schema does, repeated or nearly repeated', () => {
    fc.assert(
      fc.property(fc.array(commandArb, { minLength: 1, maxLength: 8 }), (shapes) => {
        const parse = rememberRejections(parseCommandBySchema);
        for (let round = 0; round < 2; round++)
          for (const shape of shapes)
            for (const v of variations(shape)) expect(parse(build(v))).toEqual(parseCommandBySchema(build(v)));
      }),
      { numRuns: 300 },
    );
  });

  it('answers a remembered rejection with a fresh object each time', () => {
    const parse = rememberRejections(parseCommandBySchema);
    const command = { type: 'submit', id: 'a', account: 'x', key: 'k1', amount: 1, deadline: 3, now: 3 };
    const first = parse({ ...command });
    const second = parse({ ...command });
    expect(second).toEqual(first);
    expect(second).not.toBe(first);
    if (!first.ok && !second.ok) expect(second.rejection).not.toBe(first.rejection);
  });

  it('asks the parser every time for a command with a getter, which may answer otherwise the next time', () => {
    let asked = 0;
    const parse = rememberRejections((input) => {
      asked++;
      return parseCommandBySchema(input);
    });
    const command = { type: 'tick', now: -1 };
    const withGetter = Object.defineProperty({ type: 'tick' }, 'now', { get: () => -1, enumerable: true });
    parse(command);
    parse({ ...command });
    expect(asked).toBe(1);
    parse(withGetter);
    parse(withGetter);
    expect(asked).toBe(3);
  });

  it('keeps answering as the schema does after its memory has filled and started afresh', () => {
    const parse = rememberRejections(parseCommandBySchema);
    for (let now = 0; now < MAX_REMEMBERED + 10; now++) {
      const command = { type: 'tick', now, extra: now % 3 };
      expect(parse(command)).toEqual(parseCommandBySchema(command));
    }
    expect(parse({ type: 'tick', now: 1, extra: 1 })).toEqual(parseCommandBySchema({ type: 'tick', now: 1, extra: 1 }));
  });
});
