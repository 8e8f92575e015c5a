/**
 * What a lockstep run may be asked for besides its steps. The campaign, the path suite and
 * exploration pass only a budget; a profile also passes the model it checks against (the reference
 * with declared variants in place, model/variants.ts) and sometimes a snapshot to start from.
 */
import type { Snapshot } from '../../contract/index.ts';
import { fromSnapshot, initialState, step } from '../../model/index.ts';
import type { ModelVariant } from '../../model/index.ts';
import type { Budget } from '../budget.ts';

/**
 * The model a run checks against: the reference, or the reference with declared variants in
 * place. A nondeterministic variant (`choose`) reads its choice off the implementation's reply,
 * so with `choose` the implementation takes each step first.
 */
export type CheckedModel = Pick<ModelVariant, 'model' | 'choose'>;

/** The reference model, as a CheckedModel (no choice to make). */
export const REFERENCE_MODEL: CheckedModel = { model: { initialState, step, fromSnapshot } };

/** Options of a lockstep run. */
export interface LockstepOptions {
  /** The check's time budget: once it is spent, the run stops where it is (`interrupted`). */
  readonly budget?: Budget;
  /** The model to check against (default REFERENCE_MODEL). */
  readonly model?: CheckedModel;
  /**
   * A snapshot both sides start from instead of the empty store: the implementation is restored
   * from it (Adapter.restoreFrom) as the run's first step, told as a restart.
   */
  readonly start?: Snapshot;
  /**
   * Fields left out of every snapshot before it is compared and kept, at any depth: the field of a
   * rule the target declares unsupported (`lastError`), so that a difference there neither stops
   * the run nor shows in its story. Default none.
   */
  readonly ignoreFields?: readonly string[];
}
