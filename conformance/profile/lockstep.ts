/**
 * The lockstep runner of profiles: conformance/lockstep.ts's comparison (replies without
 * `message`, canonical snapshots, the aliasing check after the last step), over a model that may
 * have declared variants in place (model/variants.ts), and with the rules each step exercised
 * (model/rules.ts) recorded beside it. Its result is a LockstepResult, so stories, shrinking and
 * replay work on it unchanged.
 *
 * A nondeterministic variant (`choose`) needs the implementation's reply before the model's step:
 * the implementation goes first, the variant's choice is read off its reply (within the variant's
 * bounds only), and the model steps under it. Comparison stays exact everywhere.
 */
import type { Config, Reply, Snapshot } from '../../contract/index.ts';
import type { RuleId } from '../../contract/rules.ts';
import { toSnapshot } from '../../model/index.ts';
import type { JobStep, ModelState, StepResult } from '../../model/index.ts';
import { RESTART_RULES, rulesExercised } from '../../model/rules.ts';
import type { ModelVariant } from '../../model/variants.ts';
import type { Adapter, AdapterFactory } from '../adapter.ts';
import { isTimeLimit } from '../budget.ts';
import type { Budget } from '../budget.ts';
import { firstDifference, replyDifference } from '../compare.ts';
import type { Difference } from '../compare.ts';
import { aliasDifference } from '../lockstep.ts';
import type { Divergence, LockstepResult, LockstepStep, RunInput } from '../lockstep.ts';
import { newResolveMemory, resolveCommand } from '../symbolic.ts';
import type { SymbolicCommand } from '../symbolic.ts';

/** What attribution needs to know of one step of the model. */
export interface ModelStepView {
  /** The model's state before the step. */
  readonly before: ModelState;
  /** The command (absent for a restart). */
  readonly command?: unknown;
  /** The model's step (absent for a restart). */
  readonly result?: StepResult;
}

/** A profile run: the lockstep result, the rules each step exercised, and the model's view of the last step. */
export interface ProfileRun {
  readonly result: LockstepResult;
  /** Rules exercised by each executed step, by position (the diverging step included). */
  readonly exercised: readonly (readonly RuleId[])[];
  /** The model's view of the diverging step (null when none). */
  readonly diverging: ModelStepView | null;
  /** True when the aliasing check after the last step ran (it exercises `snapshot-is-a-copy`). */
  readonly aliasChecked: boolean;
  /** True when the run was to start from a snapshot and the implementation cannot be restored from one: it did not run. */
  readonly cannotStart?: boolean;
}

/** The model a profile checks against: the reference, or the reference with declared variants in place. */
export type CheckedModel = Pick<ModelVariant, 'model' | 'choose'>;

const isSymbolic = (x: RunInput): x is SymbolicCommand => 'kind' in x;
const errorText = (e: unknown): string => (e instanceof Error ? `${e.name}: ${e.message}` : String(e));

/**
 * Runs `inputs` on a fresh model (`checked.model`) and a fresh implementation in lockstep. Never
 * throws for the implementation (its errors are `impl_error` divergences); the adapter is always
 * closed.
 */
export async function runProfileLockstep(
  config: Config,
  inputs: readonly RunInput[],
  factory: AdapterFactory,
  checked: CheckedModel,
  budget?: Budget,
  start?: Snapshot,
): Promise<ProfileRun> {
  const { model, choose } = checked;
  const spent = (): boolean => budget?.expired === true;
  let state: ModelState = start === undefined ? model.initialState(config) : model.fromSnapshot(start);
  const exercised: RuleId[][] = [];
  const stopped = (name: string, steps: readonly LockstepStep[]): ProfileRun => ({
    result: { adapter: name, config, steps, divergence: null, interrupted: true },
    exercised: exercised.slice(0, steps.length),
    diverging: null,
    aliasChecked: false,
  });
  if (spent()) return stopped('(factory)', []);
  let adapter: Adapter;
  try {
    adapter = await factory(config);
  } catch (e) {
    if (isTimeLimit(e)) return stopped('(factory)', []);
    const divergence: Divergence = { step: 0, kind: 'impl_error', error: `could not create the implementation: ${errorText(e)}` };
    return { result: { adapter: '(factory)', config, steps: [], divergence }, exercised, diverging: null, aliasChecked: false };
  }
  const steps: LockstepStep[] = [];
  const memory = newResolveMemory();
  if (start !== undefined) {
    if (adapter.restoreFrom === undefined) {
      await adapter.close().catch(() => undefined);
      return { result: { adapter: adapter.name, config, steps, divergence: null }, exercised, diverging: null, aliasChecked: false, cannotStart: true };
    }
    // The restore is the run's first step, told as a restart: a store that does not come back with
    // the snapshot it was given departs there, on the restore's rule, before any command.
    let implSnapshot: unknown;
    let error: string | undefined;
    try {
      await adapter.restoreFrom(start);
      implSnapshot = await adapter.snapshot();
    } catch (e) {
      if (isTimeLimit(e)) {
        await adapter.close().catch(() => undefined);
        return stopped(adapter.name, []);
      }
      error = `could not restore the starting snapshot: ${errorText(e)}`;
    }
    const snapshot = error === undefined ? firstDifference(start, implSnapshot) : undefined;
    if (error !== undefined || snapshot !== undefined) {
      await adapter.close().catch(() => undefined);
      exercised.push([...RESTART_RULES]);
      steps.push({ index: 1, action: { restart: true }, modelSnapshot: start, trace: [], rules: RESTART_RULES });
      const divergence: Divergence = {
        step: 1,
        kind: error === undefined ? 'snapshot' : 'impl_error',
        ...(snapshot === undefined ? {} : { snapshot }),
        ...(implSnapshot === undefined ? {} : { implSnapshot }),
        ...(error === undefined ? {} : { error }),
      };
      return { result: { adapter: adapter.name, config, steps, divergence }, exercised, diverging: { before: state }, aliasChecked: false };
    }
  }
  try {
    for (let i = 0; i < inputs.length; i++) {
      const input = inputs[i];
      if (input === undefined) continue;
      if (spent()) return stopped(adapter.name, steps);
      const index = i + 1;
      const before = state;
      const action = isSymbolic(input) ? resolveCommand(state, memory, input) : input;
      let modelReply: Reply | undefined;
      let implReply: unknown;
      let trace: readonly JobStep[] = [];
      let implError: string | undefined;
      let timeLimit = false;
      let view: ModelStepView;
      if ('restart' in action) {
        state = model.fromSnapshot(JSON.parse(JSON.stringify(toSnapshot(state))));
        exercised.push([...RESTART_RULES]);
        view = { before };
        try {
          await adapter.restart();
        } catch (e) {
          timeLimit = isTimeLimit(e);
          implError = `restart threw ${errorText(e)}`;
        }
      } else {
        try {
          implReply = await adapter.execute(action.do);
        } catch (e) {
          timeLimit = isTimeLimit(e);
          implError = `execute threw ${errorText(e)}`;
        }
        const choice = choose === undefined || implError !== undefined ? undefined : choose(state, action.do, implReply);
        const result = model.step(state, action.do, choice);
        state = result.state;
        modelReply = result.reply;
        trace = result.trace;
        exercised.push([...rulesExercised(before, action.do, result)]);
        view = { before, command: action.do, result };
        if (modelReply.ok && modelReply.type === 'claim' && modelReply.job !== null) memory.lastToken.set(modelReply.job.id, modelReply.job.token);
      }
      const modelSnapshot: Snapshot = toSnapshot(state);
      steps.push({
        index,
        ...(isSymbolic(input) ? { symbolic: input } : {}),
        action,
        ...(modelReply === undefined ? {} : { modelReply }),
        ...(implError === undefined && modelReply !== undefined ? { implReply } : {}),
        modelSnapshot,
        trace,
        rules: exercised[exercised.length - 1] ?? [],
      });
      if (timeLimit) return stopped(adapter.name, steps.slice(0, -1));
      const reply = modelReply === undefined || implError !== undefined ? undefined : replyDifference(modelReply, implReply);
      let implSnapshot: unknown;
      let snapshot: Difference | undefined;
      try {
        implSnapshot = await adapter.snapshot();
        snapshot = firstDifference(modelSnapshot, implSnapshot);
      } catch (e) {
        if (isTimeLimit(e) && implError === undefined) return stopped(adapter.name, steps.slice(0, -1));
        implError ??= `snapshot threw ${errorText(e)}`;
      }
      if (implError !== undefined || reply !== undefined || snapshot !== undefined) {
        const divergence: Divergence = {
          step: index,
          kind: implError !== undefined ? 'impl_error' : reply !== undefined ? 'reply' : 'snapshot',
          ...(reply === undefined ? {} : { reply }),
          ...(snapshot === undefined ? {} : { snapshot }),
          ...(implSnapshot === undefined ? {} : { implSnapshot }),
          ...(implError === undefined ? {} : { error: implError }),
        };
        return { result: { adapter: adapter.name, config, steps, divergence }, exercised, diverging: view, aliasChecked: false };
      }
    }
    const last = steps[steps.length - 1];
    if (last !== undefined) {
      const alias = await aliasDifference(adapter, last.modelSnapshot);
      if (alias === 'time_limit') return stopped(adapter.name, steps);
      if (alias !== undefined) {
        return { result: { adapter: adapter.name, config, steps, divergence: { step: last.index, ...alias } }, exercised, diverging: { before: state }, aliasChecked: true };
      }
    }
    return { result: { adapter: adapter.name, config, steps, divergence: null }, exercised, diverging: null, aliasChecked: last !== undefined };
  } finally {
    await adapter.close().catch(() => undefined);
  }
}
