/**
 * What a profile checks: a real queue (or any implementation) behind an Adapter, with what its
 * authors declare of the contract's rules before anything is run. A declaration is not an
 * exception in the adapter: an unsupported rule is not checked (and generation avoids it), a
 * variant swaps the model's rule for a named variant in model/, and everything else is checked
 * against the model as it stands.
 */
import type { RuleId } from '../../contract/rules.ts';
import type { AdapterFactory } from '../adapter.ts';
import type { ConcurrentFactory } from '../concurrent/adapter.ts';

/** What a profile declares of one rule. */
export type RuleDeclaration =
  | { readonly kind: 'unsupported'; readonly why: string }
  | { readonly kind: 'variant'; readonly variant: string; readonly why: string };

/**
 * The clock a queue runs on (see ProfileTarget.clock). A wall clock states its tick and, in
 * `settings`, the broker's timer settings it ran with (one line, e.g. `consumer_timeout 800 ms`),
 * which the page prints beside the tick.
 */
export type ProfileClock =
  | { readonly kind: 'logical' }
  | { readonly kind: 'wall'; readonly tickMs: number; readonly settings?: string };

/** An upstream thread about a rule's behaviour: its address, and in one sentence what it says (checked against the thread). */
export interface UpstreamReport {
  readonly url: string;
  readonly says: string;
}

/** A queue to profile. */
export interface ProfileTarget {
  /** The queue's name as its users know it, e.g. `pg-boss`. */
  readonly queue: string;
  /** The exact version driven (from its package.json). */
  readonly version: string;
  /** Fresh, empty instances of the queue behind the contract's commands. */
  readonly factory: AdapterFactory;
  /**
   * Competing workers against the queue (`jobcheck profile --workers N`): fresh instances whose
   * lanes are separate connections, channels or clients, as separate worker processes would have.
   * A target without one is profiled one command at a time only.
   */
  readonly concurrentFactory?: ConcurrentFactory;
  /** Rules the queue has no feature for, or keeps in a documented variant. */
  readonly declarations: Partial<Record<RuleId, RuleDeclaration>>;
  /**
   * Whose clock the queue runs on: `logical` (default) when the adapter moves the queue's time
   * itself, so a departure is deterministic; `wall` when the broker keeps its own time and one tick
   * is `tickMs` real milliseconds (wallClock.ts), so a departure counts only if it replays at least
   * 2 times of 3 and is otherwise reported as `flaky`.
   */
  readonly clock?: ProfileClock;
  /** For each rule the queue's timers touch, how far its coarse timers may stray, in a sentence (printed beside the rule's result). */
  readonly tolerances?: Partial<Record<RuleId, string>>;
  /** Upstream reports of the same behaviour, by rule: a thread whose content matches the rule, with what it says. */
  readonly upstream?: Partial<Record<RuleId, UpstreamReport>>;
  /**
   * Rules' campaigns the generator of the published pages (scripts/profiles.ts) runs at once
   * (default 1 on a logical clock): for a queue whose instances are isolated from one another (a
   * schema each) and whose profile mostly waits on its database. Each campaign has its own seed and
   * instances. `jobcheck profile` runs one at a time unless `--parallel` says otherwise.
   */
  readonly parallel?: number;
  /** Releases what the factory shares between instances (a pool, a server). */
  close?(): Promise<void>;
}
