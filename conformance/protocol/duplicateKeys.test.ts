/**
 * A reply line with a key twice in one object means two things (JSON.parse keeps the last value,
 * other readers the first): the harness refuses it as a protocol_error naming the key, wherever
 * the object sits, and never misreads a line whose keys are all distinct.
 */
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { depthAndColons, firstDuplicateKey } from './duplicateKeys.ts';
import { ProcessAdapter } from './processAdapter.ts';
import { ProcessError } from './processError.ts';
import { parseJsonLine } from './replies.ts';

const PEER = fileURLToPath(new URL('../hostile/peers/duplicateKeyPeer.mjs', import.meta.url));
const config = { capacity: 2, maxAttempts: 2, leaseTicks: 3, backoffBase: 1, backoffCap: 2 };
const opened: ProcessAdapter[] = [];
afterAll(() => Promise.all(opened.map((a) => a.close())));

describe('finding a key that appears twice in one object', () => {
  it('finds the key at the top level, in a nested object and in an object inside an array, with its path', () => {
    expect(firstDuplicateKey('{"ok":true,"ok":false}')).toEqual({ key: 'ok', path: '' });
    expect(firstDuplicateKey('{"ok":true,"job":{"id":"a","token":1,"token":2}}')).toEqual({
      key: 'token',
      path: 'job',
    });
    expect(firstDuplicateKey('{"a":[{"x":1},{"y":1,"y":2}]}')).toEqual({ key: 'y', path: 'a[]' });
    expect(firstDuplicateKey('[{"k":1,"k":1}]')).toEqual({ key: 'k', path: '[]' });
  });

  it('reads keys as JSON does: an escaped key equals its plain spelling, and spaces around the colon do not matter', () => {
    expect(firstDuplicateKey('{"ok":true, "\\u006fk" :false}')).toEqual({ key: 'ok', path: '' });
    expect(firstDuplicateKey('{ "a\\"b" : 1 , "a\\"b":2 }')).toEqual({ key: 'a"b', path: '' });
  });

  it('is not fooled by keys, quotes, braces and colons inside strings, nor by equal keys in different objects', () => {
    expect(firstDuplicateKey('{"a":"\\"a\\":1,{}[]","b":{"a":1},"c":[{"a":1},{"a":2}]}')).toBeUndefined();
    expect(firstDuplicateKey('{"k":"\\\\","k2":"x"}')).toBeUndefined();
    expect(firstDuplicateKey('{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"h":8,"i":9,"j":10,"k":11}')).toBeUndefined();
    expect(firstDuplicateKey('{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"h":8,"i":9,"j":10,"a":11}')).toEqual({
      key: 'a',
      path: '',
    });
  });

  it('finds nothing in any text JSON.stringify writes, and finds a key that is written twice into such a text', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.string({ minLength: 1 }), (value, key) => {
        expect(firstDuplicateKey(JSON.stringify(value))).toBeUndefined();
        const doubled = `{${JSON.stringify(key)}:${JSON.stringify(value)},"other":[${JSON.stringify(value)}],${JSON.stringify(key)}:0}`;
        expect(firstDuplicateKey(doubled)).toEqual({ key, path: '' });
      }),
      { numRuns: 300 },
    );
  });

  it('gives the same answer by the fast path (the colon count of one walk) as by the scan, escapes and spacing included', () => {
    const spaced = (text: string): string => text.replace(/,"/g, ', "').replace(/":/g, '": ');
    fc.assert(
      fc.property(fc.jsonValue(), fc.string({ minLength: 1 }), fc.boolean(), (value, key, twice) => {
        const inner = JSON.stringify(value);
        const text = `{${JSON.stringify(key)}:${inner},"x:y":"a:b"${twice ? `,${JSON.stringify(key)}:1` : ''}}`;
        for (const t of [text, spaced(text), text.replace(/"x:y"/, '"x\\u003ay"')]) {
          const { colons } = depthAndColons(JSON.parse(t), 64);
          expect(firstDuplicateKey(t, colons)).toEqual(firstDuplicateKey(t));
          expect(firstDuplicateKey(t, colons) !== undefined).toBe(twice || firstDuplicateKey(inner) !== undefined);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('counts depth as the contract does, giving up past the limit', () => {
    expect(depthAndColons({ a: [{ b: 'c:d' }] }, 64)).toEqual({ depth: 3, colons: 3 });
    expect(depthAndColons('x:y', 64)).toEqual({ depth: 0, colons: 1 });
    let deep: unknown = 1;
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(depthAndColons(deep, 64).depth).toBe(65);
  });

  it('makes parseJsonLine refuse the line, naming the key and the object', () => {
    expect(parseJsonLine('{"ok":true,"ok":false}')).toEqual({
      ok: false,
      problem: expect.stringMatching(/^ambiguous: the key "ok" appears twice in the top-level object/),
    });
    expect(parseJsonLine('{"ok":true,"type":"tick","clock":1}')).toEqual({
      ok: true,
      value: { ok: true, type: 'tick', clock: 1 },
    });
  });
});

describe('a peer whose reply has a key twice', () => {
  it.each([
    [
      'the top-level key "ok"',
      '',
      { type: 'tick', now: 1 },
      /the reply is ambiguous: the key "ok" appears twice in the top-level object/,
    ],
    [
      'the key "token" of the claimed job',
      'nested',
      { type: 'claim', worker: 'w1', now: 1 },
      /the reply is ambiguous: the key "token" appears twice in the object at job/,
    ],
  ])('is reported as protocol_error naming %s', async (_what, mode, command, message) => {
    const adapter = await ProcessAdapter.start(`'${process.execPath}' '${PEER}' ${mode}`, config, {});
    opened.push(adapter);
    const error = await adapter.execute(command).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ProcessError);
    expect((error as ProcessError).code).toBe('protocol_error');
    expect((error as ProcessError).message).toMatch(message);
  });
});
