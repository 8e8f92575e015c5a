/**
 * The memory check of ownRecords.ts held against two stores whose answer is known: the built-in
 * store in this process keeps a failure text in its own records and answers from them (flagged),
 * and the Python example behind the protocol keeps it in another process, out of the adapter's
 * reach (not flagged, whatever copies of the command the adapter still holds).
 */
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { processAdapterFactory } from '../conformance/protocol/processAdapter.ts';
import { jobStoreFactory } from '../conformance/stores/jobStore.ts';
import { MEMORY_CONFIG, checkOwnMemory, rewriteText } from './ownRecords.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const python = processAdapterFactory(`python3 ${root}examples/python/jobstore.py`);
afterAll(() => python.close());

describe('rewriteText', () => {
  it('overwrites a text in properties, arrays, Map keys and values and Set items, and says where', () => {
    const inner = { note: 'was T here', list: ['T', 'other'] };
    const root = {
      a: inner,
      again: inner,
      byKey: new Map<unknown, unknown>([
        ['T', 1],
        [2, 'T too'],
      ]),
      set: new Set(['T']),
    };
    const r = rewriteText(root, 'T', 'U');
    expect(root.a.note).toBe('was U here');
    expect(root.a.list).toEqual(['U', 'other']);
    expect(root.byKey).toEqual(
      new Map<unknown, unknown>([
        ['U', 1],
        [2, 'U too'],
      ]),
    );
    expect([...root.set]).toEqual(['U']);
    expect(r.copies.map((c) => c.path).sort()).toEqual(
      [
        '(adapter).a.list.0',
        '(adapter).a.note',
        '(adapter).byKey.get(2)',
        '(adapter).byKey.keys()',
        '(adapter).set.values()',
      ].sort(),
    );
    expect(r.cut).toBe(false);
  });

  it('runs no getter and reports a copy it cannot overwrite', () => {
    let called = false;
    const root = {
      frozen: Object.freeze({ text: 'T' }),
      get lazy() {
        called = true;
        return 'T';
      },
    };
    const r = rewriteText(root, 'T', 'U');
    expect(called).toBe(false);
    expect(r.copies).toEqual([{ path: '(adapter).frozen.text', overwritten: false }]);
  });
});

describe('checkOwnMemory', () => {
  it('flags the built-in store, which answers lastError from its own records', async () => {
    const adapter = await jobStoreFactory()(MEMORY_CONFIG);
    const c = await checkOwnMemory(adapter);
    expect(Object.values(c.before).filter((t) => t !== undefined)).toHaveLength(2);
    expect([...c.fromMemory].sort()).toEqual(['a', 'b']);
  });

  it('does not flag a store in another process, which answers from its own memory there', async () => {
    const adapter = await python(MEMORY_CONFIG);
    try {
      const c = await checkOwnMemory(adapter);
      expect(Object.values(c.before).filter((t) => t !== undefined)).toHaveLength(2);
      expect(c.fromMemory).toEqual([]);
      expect(c.after).toEqual(c.before);
    } finally {
      await adapter.close();
    }
  }, 20_000);
});
