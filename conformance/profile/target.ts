/**
 * What a profile checks: a real queue (or any implementation) behind an Adapter, with what its
 * authors declare of the contract's rules before anything is run. A declaration is not an
 * exception in the adapter: an unsupported rule is not checked (and generation avoids it), a
 * variant swaps the model's rule for a named variant in model/, and everything else is checked
 * against the model as it stands.
 */
import type { RuleId } from '../../contract/rules.ts';
import type { AdapterFactory } from '../adapter.ts';

/** What a profile declares of one rule. */
export type RuleDeclaration =
  | { readonly kind: 'unsupported'; readonly why: string }
  | { readonly kind: 'variant'; readonly variant: string; readonly why: string };

/** A queue to profile. */
export interface ProfileTarget {
  /** The queue's name as its users know it, e.g. `pg-boss`. */
  readonly queue: string;
  /** The exact version driven (from its package.json). */
  readonly version: string;
  /** Fresh, empty instances of the queue behind the contract's commands. */
  readonly factory: AdapterFactory;
  /** Rules the queue has no feature for, or keeps in a documented variant. */
  readonly declarations: Partial<Record<RuleId, RuleDeclaration>>;
  /** Upstream reports of the same behaviour, by rule (links). */
  readonly upstream?: Partial<Record<RuleId, string>>;
  /** Releases what the factory shares between instances (a pool, a server). */
  close?(): Promise<void>;
}
