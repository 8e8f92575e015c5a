/**
 * What a lockstep run returns. The comparison's outcome (LockstepResult: the steps and the first
 * divergence) is what stories, shrinking, artifacts and replay read; LockstepRun adds what only a
 * profile reads (the model's view of the diverging step, whether the aliasing check ran), so that
 * one runner serves the campaign, the path suite, exploration and profiles.
 */
import type { Config, Reply, RuleId, Snapshot } from '../../contract/index.ts';
import type { JobStep, ModelState, StepResult } from '../../model/index.ts';
import type { Difference } from './compare.ts';
import type { ScriptStep, SymbolicCommand } from './symbolic.ts';

/** One executed step: what was done, what each side answered, and the model's state afterwards. */
export interface LockstepStep {
  /** 1-based position in the run. */
  readonly index: number;
  /** The generated command this step was resolved from (random campaigns only). */
  readonly symbolic?: SymbolicCommand;
  /** The concrete step executed by both sides. */
  readonly action: ScriptStep;
  /** The model's reply (absent for a restart). */
  readonly modelReply?: Reply;
  /** The implementation's reply (absent for a restart or when it threw). */
  readonly implReply?: unknown;
  /** The model's canonical snapshot after the step. */
  readonly modelSnapshot: Snapshot;
  /** The lifecycle transitions the model took in this step. */
  readonly trace: readonly JobStep[];
  /** The contract's rules that decided the model's side of this step (model/rules.ts); absent in steps built elsewhere. */
  readonly rules?: readonly RuleId[];
}

/** Why a run stopped: the first step at which the implementation disagreed with the model. */
export interface Divergence {
  /** 1-based index of the step. */
  readonly step: number;
  /**
   * `reply` or `snapshot` mismatch; `alias`: changing a snapshot the implementation returned
   * changed its next snapshot (checked once, after the last step); `impl_error`: it threw.
   */
  readonly kind: 'reply' | 'snapshot' | 'alias' | 'impl_error';
  /** The first differing field of the reply (path starts with `reply.`), if the replies differ. */
  readonly reply?: Difference;
  /** The first differing field of the snapshots, if they differ (or could be compared). */
  readonly snapshot?: Difference;
  /** The implementation's snapshot at the divergence, when it could be taken. */
  readonly implSnapshot?: unknown;
  /** The message of what the implementation threw (`impl_error`). */
  readonly error?: string;
}

/** The outcome of one lockstep run. */
export interface LockstepResult {
  readonly adapter: string;
  readonly config: Config;
  /** Steps executed, up to and including the diverging one. */
  readonly steps: readonly LockstepStep[];
  /** Null when the implementation agreed at every step (that was run). */
  readonly divergence: Divergence | null;
  /**
   * True when the check's time limit cut the run short: the steps run so far agreed, the rest
   * were never run. Such a run is neither a pass nor a divergence.
   */
  readonly interrupted?: boolean;
}

/** Input of a run: generated (symbolic) commands, or concrete script steps. */
export type RunInput = SymbolicCommand | ScriptStep;

/** What attribution needs to know of one step of the model. */
export interface ModelStepView {
  /** The model's state before the step. */
  readonly before: ModelState;
  /** The command (absent for a restart). */
  readonly command?: unknown;
  /** The model's step (absent for a restart). */
  readonly result?: StepResult;
}

/** A lockstep run told in full: its result, the model's view of the diverging step, and whether the aliasing check ran. */
export interface LockstepRun {
  readonly result: LockstepResult;
  /** The model's view of the diverging step (null when none). */
  readonly diverging: ModelStepView | null;
  /** True when the aliasing check after the last step ran (it exercises `snapshot-is-a-copy`). */
  readonly aliasChecked: boolean;
  /** True when the run was to start from a snapshot and the implementation cannot be restored from one: it did not run. */
  readonly cannotStart?: boolean;
}

/** The rules each executed step exercised, by position (the diverging step included). Pure. */
export const exercisedRules = (run: LockstepRun): readonly (readonly RuleId[])[] =>
  run.result.steps.map((s) => s.rules ?? []);
