import { describe, expect, it } from 'vitest';
import { countFields, fieldNames, hasOwnKey, putOwn } from './keys.ts';

const FIELDS = fieldNames('type', 'worker', 'token', 'now');

describe('hasOwnKey', () => {
  it('says what Object.hasOwn says: own keys yes, inherited and missing ones no, also without a prototype', () => {
    const proto = { inherited: 1 };
    const o = Object.assign(Object.create(proto) as object, { own: 2 });
    const bare = Object.assign(Object.create(null) as object, { own: 3 });
    const symbol = Symbol('s');
    const withSymbol = { [symbol]: 4 };
    const cases: [object, PropertyKey][] = [
      [o, 'own'],
      [o, 'inherited'],
      [o, 'missing'],
      [bare, 'own'],
      [bare, 'hasOwnProperty'],
      [withSymbol, symbol],
      [{ hasOwnProperty: () => true }, 'anything'],
    ];
    expect(cases.map(([obj, key]) => hasOwnKey(obj, key))).toEqual(cases.map(([obj, key]) => Object.hasOwn(obj, key)));
    expect(cases.map(([obj, key]) => hasOwnKey(obj, key))).toEqual([true, false, false, true, false, true, false]);
  });

  it('answers inside a for...in loop as outside it', () => {
    const proto = { inherited: 1 };
    const o = Object.assign(Object.create(proto) as object, { a: 1, b: 2 });
    const seen: [string, boolean][] = [];
    for (const key in o) seen.push([key, hasOwnKey(o, key)]);
    expect(seen).toEqual([
      ['a', true],
      ['b', true],
      ['inherited', false],
    ]);
  });
});

describe('countFields', () => {
  it('counts the keys of a record written in the fields order', () => {
    expect(countFields({ type: 'ack', worker: 'w1', token: 3, now: 4 }, FIELDS, true)).toBe(4);
  });

  it('counts the same keys in any other order, and a record with fields left out', () => {
    expect(countFields({ now: 4, token: 3, worker: 'w1', type: 'ack' }, FIELDS, true)).toBe(4);
    expect(countFields({ token: 3, type: 'ack', now: 4 }, FIELDS, true)).toBe(3);
    expect(countFields({}, FIELDS, true)).toBe(0);
  });

  it('refuses a key that is not a field, wherever it comes', () => {
    expect(countFields({ extra: 1, type: 'ack' }, FIELDS, true)).toBe(-1);
    expect(countFields({ type: 'ack', worker: 'w1', extra: 1 }, FIELDS, true)).toBe(-1);
    expect(countFields({ type: 'ack', worker: 'w1', token: 3, now: 4, nowt: 5 }, FIELDS, false)).toBe(-1);
  });

  it('refuses an inherited enumerable key when asked for own keys only, and counts it otherwise', () => {
    const o = Object.assign(Object.create({ token: 3 }) as object, { type: 'ack', worker: 'w1', now: 4 });
    expect(countFields(o, FIELDS, true)).toBe(-1);
    expect(countFields(o, FIELDS, false)).toBe(4);
    const notField = Object.assign(Object.create({ other: 3 }) as object, { type: 'ack' });
    expect(countFields(notField, FIELDS, false)).toBe(-1);
  });
});

describe('putOwn', () => {
  it('sets __proto__ as an own, enumerable key and leaves the prototype alone, as it sets any other key', () => {
    const o: Record<string, number> = {};
    putOwn(o, 'a', 1);
    putOwn(o, '__proto__', 2);
    putOwn(o, 'a', 3);
    expect(Object.getPrototypeOf(o)).toBe(Object.prototype);
    expect(Object.keys(o)).toEqual(['a', '__proto__']);
    expect(JSON.stringify(o)).toBe('{"a":3,"__proto__":2}');
  });
});
