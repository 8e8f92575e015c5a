/**
 * The types of the model's step, apart from step.ts so that threeSteps.ts (which step.ts calls)
 * and step.ts both read them from here instead of from each other. Types only.
 */
import type { Reply } from '../contract/index.ts';
import type { jobMachine } from './jobMachine.ts';
import type { MachineState } from './machineState.ts';
import type { JobStep, StoreContext, storeMachine } from './storeMachine.ts';

/**
 * A state of the reference model: the store machine in its one state, `open`, with its context,
 * and the machine itself (a variant's states carry the variant's machine). A plain value from the
 * model's own functions, an xstate snapshot from the reference step's; treat it as immutable.
 */
export type ModelState = MachineState<typeof storeMachine, StoreContext>;

/** The outcome of one step: the next state, the reply, and the job transitions it caused. */
export interface StepResult {
  readonly state: ModelState;
  readonly reply: Reply;
  /** Job lifecycle transitions taken, clock advance first, in order. */
  readonly trace: readonly JobStep[];
}

/**
 * Extra fields a nondeterministic variant of the model reads from the store event of one step (for
 * `jittered-backoff`, the delay the implementation chose); the default model reads none.
 */
export type StepChoice = Readonly<Record<string, unknown>>;

/** The store and job machines a model is built from; a variant provides some of their guards and actions differently. */
export interface ModelMachines {
  readonly store: typeof storeMachine;
  readonly job: typeof jobMachine;
}

/** A model: its empty state, its pure step, and restore from a snapshot (toSnapshot serves every model). */
export interface Model {
  /** The empty store for a config. Throws JobcheckError `invalid_config` for a bad config. Pure. */
  readonly initialState: (config: unknown) => ModelState;
  /** One command in the contract's three steps; `choice` is merged into the store event after validation. Pure. */
  readonly step: (state: ModelState, command: unknown, choice?: StepChoice) => StepResult;
  /** A state from a snapshot; throws JobcheckError `invalid_snapshot`. Pure. */
  readonly fromSnapshot: (input: unknown) => ModelState;
}
