/**
 * The restore phase of a check: the implementation is offered every snapshot of
 * invalidSnapshots.ts and must refuse each with the model's code (`invalid_snapshot`), leaving
 * its store as it was (docs/contract.md, section 10: nothing is built before the whole value is
 * validated). One store does it all: it is first restored from the valid base snapshot (which it
 * must accept, and hold exactly: snapshot-restore-round-trip), then offered each invalid snapshot,
 * its snapshot read after each refusal and compared with the base. A store that took one is
 * restored from the base again before the next (or, when it cannot be, replaced by a fresh one); a
 * store that failed (an error, a dead process) is replaced by a fresh one.
 *
 * Stores are offered snapshots through Adapter.offerRestore, or else restoreFrom (an error with a
 * string `code` is the refusal). A target whose stores have neither, or a module's adapter without
 * restoreFrom, leaves the phase `not_exercised`, with why: never a pass.
 */
import type { Snapshot } from '../../contract/index.ts';
import type { Adapter, AdapterFactory, RestoreAnswer } from '../adapter.ts';
import { isTimeLimit } from '../budget.ts';
import type { Budget } from '../budget.ts';
import { firstDifference } from '../lockstep/compare.ts';
import type { Difference } from '../lockstep/compare.ts';
import { errorText } from '../lockstep/errorText.ts';
import { BASE_CONFIG, BASE_SNAPSHOT, invalidSnapshots } from './invalidSnapshots.ts';
import type { InvalidSnapshot } from './invalidSnapshots.ts';

/** What the implementation did with one snapshot offered: its answer, or the error it failed with. */
export type RestoreSeen = RestoreAnswer | { readonly answer: 'failed'; readonly error: string };

/** One invalid snapshot offered. */
export interface RestoreCaseOutcome {
  readonly snapshot: InvalidSnapshot;
  readonly seen: RestoreSeen;
  /**
   * After a refusal, the first field of the store's snapshot that is not the base's, with the
   * snapshot read: the refusal changed the store. Undefined when it did not (or after any other answer).
   */
  readonly changed?: { readonly difference: Difference; readonly after: Snapshot };
  /** Refused with the model's code, and the store unchanged. */
  readonly ok: boolean;
  readonly durationMs: number;
}

/** The valid base snapshot was not taken as it is: refused, failed on, or held otherwise. */
export interface RestoreSetupFailure {
  readonly seen: RestoreSeen;
  /** When it was accepted: the first field of the store's snapshot that is not the base's. */
  readonly changed?: { readonly difference: Difference; readonly after: Snapshot };
}

/** What the restore phase found. */
export interface RestorePhaseResult {
  /**
   * `agree`: every snapshot was refused with the model's code and changed nothing; `diverge`: one
   * was not (or the base could not be restored); `incomplete`: the time limit (or a stop of the
   * check) came first; `not_exercised`: no snapshot could be offered (`notExercised` says why).
   */
  readonly verdict: 'agree' | 'diverge' | 'incomplete' | 'not_exercised';
  /** The adapter's name, `(factory)` when none could be made. */
  readonly adapter: string;
  /** The snapshots offered, in order. */
  readonly outcomes: readonly RestoreCaseOutcome[];
  /** Names of the snapshots not offered (the time limit, a stop, or a base that could not be restored). */
  readonly notRun: readonly string[];
  /** Why no snapshot could be offered, when the verdict is `not_exercised`; null otherwise. */
  readonly notExercised: string | null;
  /** The restore of the valid base, when it went wrong (the phase then offers nothing else); null otherwise. */
  readonly setup: RestoreSetupFailure | null;
  readonly durationMs: number;
}

/** Options of the phase. */
export interface RestorePhaseOptions {
  readonly budget?: Budget | undefined;
  /** Called after each snapshot offered (`done` of `total`). */
  readonly onCase?: (done: number, total: number) => void;
  /** The snapshots to offer (default: invalidSnapshots()). */
  readonly snapshots?: readonly InvalidSnapshot[];
}

const BASE_TEXT = JSON.stringify(BASE_SNAPSHOT);

/** How to offer a store a snapshot: its offerRestore, else its restoreFrom; undefined when it has neither. */
function offerOf(adapter: Adapter): ((text: string) => Promise<RestoreAnswer>) | undefined {
  if (typeof adapter.offerRestore === 'function')
    return (text) => (adapter.offerRestore as Adapter['offerRestore'] & {}).call(adapter, text);
  const restoreFrom = adapter.restoreFrom;
  if (typeof restoreFrom !== 'function') return undefined;
  return async (text) => {
    try {
      await restoreFrom.call(adapter, JSON.parse(text));
      return { answer: 'accepted' };
    } catch (error) {
      const e = (error ?? {}) as { code?: unknown; message?: unknown; path?: unknown };
      if (isTimeLimit(error) || typeof e.code !== 'string') throw error;
      return {
        answer: 'refused',
        code: e.code,
        message: String(e.message),
        ...(typeof e.path === 'string' ? { path: e.path } : {}),
      };
    }
  };
}

/** The base restored into a store, checked: null when it holds exactly the base, else what went wrong. */
async function restoreBase(
  adapter: Adapter,
  offer: (text: string) => Promise<RestoreAnswer>,
): Promise<RestoreSetupFailure | null> {
  const seen = await offer(BASE_TEXT);
  if (seen.answer !== 'accepted') return { seen };
  const after = await adapter.snapshot();
  const difference = firstDifference(BASE_SNAPSHOT, after);
  return difference === undefined ? null : { seen, changed: { difference, after } };
}

/**
 * Offers every invalid snapshot to a store of `factory`. Never throws for what the implementation
 * does: a divergence is data; the time limit (or a gate's GivenUp) leaves the rest not run.
 */
export async function runRestorePhase(
  factory: AdapterFactory,
  options: RestorePhaseOptions = {},
): Promise<RestorePhaseResult> {
  const started = performance.now();
  const all = options.snapshots ?? invalidSnapshots();
  const outcomes: RestoreCaseOutcome[] = [];
  const spent = (): boolean => options.budget?.expired === true;
  const result = (
    verdict: RestorePhaseResult['verdict'],
    adapter: string,
    extra: { notExercised?: string; setup?: RestoreSetupFailure } = {},
  ): RestorePhaseResult => {
    const notRun = all.slice(outcomes.length).map((s) => s.name);
    const failed = outcomes.some((o) => !o.ok) || extra.setup !== undefined;
    return {
      verdict: failed
        ? 'diverge'
        : extra.notExercised !== undefined
          ? 'not_exercised'
          : notRun.length > 0
            ? 'incomplete'
            : verdict,
      adapter,
      outcomes,
      notRun,
      notExercised: extra.notExercised ?? null,
      setup: extra.setup ?? null,
      durationMs: performance.now() - started,
    };
  };
  let adapter: Adapter | undefined;
  let name = '(factory)';
  /** Why the phase ended before its last snapshot, besides the time limit. */
  let ended: { readonly notExercised: string } | { readonly setup: RestoreSetupFailure } | undefined;
  try {
    /** A store holding the base, with how to offer it a snapshot; undefined with `ended` set when there is none. */
    const open = async (): Promise<
      { readonly adapter: Adapter; readonly offer: (text: string) => Promise<RestoreAnswer> } | undefined
    > => {
      const made = await factory(BASE_CONFIG);
      adapter = made;
      name = made.name;
      const offer = offerOf(made);
      if (offer === undefined) {
        ended = {
          notExercised:
            "the target's stores have neither offerRestore nor restoreFrom: no snapshot can be offered to them",
        };
        return undefined;
      }
      const setup = await restoreBase(made, offer);
      if (setup === null) return { adapter: made, offer };
      ended = setup.seen.answer === 'unsupported' ? { notExercised: setup.seen.why } : { setup };
      return undefined;
    };
    if (spent()) return result('incomplete', name);
    let store = await open();
    let dirty = false;
    for (const [index, snapshot] of all.entries()) {
      if (store === undefined || spent()) break;
      const begun = performance.now();
      let seen: RestoreSeen;
      let changed: RestoreCaseOutcome['changed'];
      try {
        if (dirty) {
          // A store that cannot go back to the base (it took something it cannot come back from)
          // is replaced by a fresh one; only a fresh one that cannot restore the base ends the phase.
          if ((await restoreBase(store.adapter, store.offer)) !== null) {
            await store.adapter.close().catch(() => undefined);
            adapter = undefined;
            store = await open();
            if (store === undefined) break;
          }
          dirty = false;
        }
        seen = await store.offer(snapshot.text);
        if (seen.answer === 'accepted') dirty = true;
        else if (seen.answer === 'refused') {
          const after = await store.adapter.snapshot();
          const difference = firstDifference(BASE_SNAPSHOT, after);
          if (difference !== undefined) {
            changed = { difference, after };
            dirty = true;
          }
        }
      } catch (error) {
        if (isTimeLimit(error)) break;
        seen = { answer: 'failed', error: errorText(error) };
        // The store is in doubt: the next snapshot goes to a fresh one.
        await store?.adapter.close().catch(() => undefined);
        adapter = undefined;
        store = undefined;
        dirty = false;
      }
      if (seen.answer === 'unsupported') {
        ended = { notExercised: seen.why };
        break;
      }
      const ok = seen.answer === 'refused' && seen.code === snapshot.expected.code && changed === undefined;
      outcomes.push({
        snapshot,
        seen,
        ...(changed === undefined ? {} : { changed }),
        ok,
        durationMs: performance.now() - begun,
      });
      options.onCase?.(index + 1, all.length);
      if (store === undefined && index + 1 < all.length && !spent()) store = await open();
    }
    return ended === undefined ? result('agree', name) : result('diverge', name, ended);
  } catch (error) {
    if (isTimeLimit(error)) return result('incomplete', name, ended ?? {});
    // A store that could not be made, or failed while the base was restored into it.
    return result('diverge', name, { setup: { seen: { answer: 'failed', error: errorText(error) } } });
  } finally {
    await (adapter as Adapter | undefined)?.close().catch(() => undefined);
  }
}
