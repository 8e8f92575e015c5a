/**
 * A small key-value register as a sequential model: the checker's own test object, far simpler
 * than the job store, so that a hand-made history can be read at a glance. Keys hold strings;
 * a key never written reads as `null`. Its keys are independent, so it declares a partition by
 * key (SearchHints `partitionKey`), as Porcupine's key-value model does.
 */
import type { SequentialModel } from './history.ts';
import type { SearchHints } from './linearizability.ts';

/** A request to the register. */
export type KvInput =
  | { readonly type: 'put'; readonly key: string; readonly value: string }
  | { readonly type: 'get'; readonly key: string }
  /** Compare-and-set: writes `value` when the key holds `expect` (`null`: never written). */
  | { readonly type: 'cas'; readonly key: string; readonly expect: string | null; readonly value: string };

/** A reply of the register. */
export type KvOutput =
  | { readonly type: 'put' }
  | { readonly type: 'get'; readonly value: string | null }
  | { readonly type: 'cas'; readonly swapped: boolean };

/** The register's contents; never mutated. */
export type KvState = ReadonlyMap<string, string>;

const sameOutput = (a: KvOutput, b: KvOutput): boolean => {
  switch (a.type) {
    case 'put':
      return b.type === 'put';
    case 'get':
      return b.type === 'get' && a.value === b.value;
    case 'cas':
      return b.type === 'cas' && a.swapped === b.swapped;
  }
};

/** The register as a SequentialModel. Pure. */
export const kvRegister: SequentialModel<KvState, KvInput, KvOutput> & SearchHints<KvState, KvInput, KvOutput> = {
  init: () => new Map(),
  step(state, input) {
    switch (input.type) {
      case 'put':
        return { state: new Map(state).set(input.key, input.value), output: { type: 'put' } };
      case 'get':
        return { state, output: { type: 'get', value: state.get(input.key) ?? null } };
      case 'cas': {
        if ((state.get(input.key) ?? null) !== input.expect) return { state, output: { type: 'cas', swapped: false } };
        return { state: new Map(state).set(input.key, input.value), output: { type: 'cas', swapped: true } };
      }
    }
  },
  key: (state) => JSON.stringify([...state.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))),
  equal: sameOutput,
  // A get, and a compare-and-set that did not swap, never change the register wherever they fit.
  stableWhenUnchanged: (input, output) => input.type === 'get' || (output.type === 'cas' && !output.swapped),
  // Every request reads or writes one key, and no key's value depends on another's: the register
  // is one register per key, so each key's requests are checked apart (P-compositionality).
  partitionKey: (input) => input.key,
};
