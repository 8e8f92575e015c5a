/**
 * The lockstep runner: drives the model and an implementation with the same steps and compares,
 * after every step, the replies (without `message`) and the canonical snapshots, then once, after
 * the last step, that a snapshot handed out is the caller's (aliasDifference.ts). The first
 * difference ends the run and is returned as data, never thrown. Every step records the contract's
 * rules that decided the model's side of it (model/rules.ts), which profiles count and attribute.
 *
 * One runner serves the campaign, the path suite, exploration and profiles; a profile's needs are
 * options (options.ts): a model with declared variants in place, and a snapshot to start from. A
 * nondeterministic variant (`choose`) needs the implementation's reply before the model's step: the
 * implementation then goes first, the variant's choice is read off its reply (within the variant's
 * bounds only), and the model steps under it. Comparison stays exact everywhere. Without `choose`
 * the model goes first; the order changes nothing the run reports, as the model's step is pure.
 *
 * Without `choose`, the implementation's calls up to the next restart depend on nothing it answers
 * (a difference only ends the run early), so the runner steps the model through them first and
 * tells the adapter what it is about to ask (Adapter.plan): a process that reads requests written
 * ahead gets them in one write. Each reply is still compared when its step comes, in order.
 */
import type { Config, Reply, RuleId, Snapshot } from '../../contract/index.ts';
import { RESTART_RULES, rulesExercised, toSnapshot } from '../../model/index.ts';
import type { JobStep, ModelState, StepResult } from '../../model/index.ts';
import type { Adapter, AdapterFactory, PlannedRequest } from '../adapter.ts';
import { isTimeLimit } from '../budget.ts';
import { firstDifference, replyDifference, withoutFields } from './compare.ts';
import type { Difference } from './compare.ts';
import { newResolveMemory, resolveCommand } from './symbolic.ts';
import type { SymbolicCommand } from './symbolic.ts';
import { aliasDifference } from './aliasDifference.ts';
import { errorText } from './errorText.ts';
import { REFERENCE_MODEL } from './options.ts';
import type { LockstepOptions } from './options.ts';
import type { Divergence, LockstepResult, LockstepRun, LockstepStep, ModelStepView, RunInput } from './result.ts';
import { breathe } from '../breathe.ts';

const isSymbolic = (x: RunInput): x is SymbolicCommand => 'kind' in x;

/** A command step whose model side was taken ahead of the implementation's (see the header). */
interface SteppedAhead {
  readonly action: { readonly do: unknown };
  readonly result: StepResult;
}

/** A call into the implementation: its value, or what it threw (and whether that was the time limit). */
type Attempt =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly error: string; readonly timeLimit: boolean };

/** Calls the implementation; what it throws is data. */
async function attempt(call: () => Promise<unknown>, what: 'restart' | 'execute'): Promise<Attempt> {
  try {
    return { ok: true, value: await call() };
  } catch (e) {
    return { ok: false, error: `${what} threw ${errorText(e)}`, timeLimit: isTimeLimit(e) };
  }
}

/**
 * Runs the steps on a fresh model and a fresh implementation (from `factory`) in lockstep and
 * returns every step plus the first divergence. The adapter is always closed. A factory that
 * throws is reported as an `impl_error` divergence at step 0; only an error of the model itself (a
 * defect of the specification) is thrown.
 */
export async function runLockstep(
  config: Config,
  inputs: readonly RunInput[],
  factory: AdapterFactory,
  options: LockstepOptions = {},
): Promise<LockstepResult> {
  return (await runLockstepDetailed(config, inputs, factory, options)).result;
}

/**
 * runLockstep, told in full (LockstepRun): besides the result, the model's view of the diverging
 * step and whether the aliasing check ran; `cannotStart` when `options.start` asks for a snapshot
 * the implementation cannot be restored from (nothing ran). Never throws for the implementation.
 */
export async function runLockstepDetailed(
  config: Config,
  inputs: readonly RunInput[],
  factory: AdapterFactory,
  options: LockstepOptions = {},
): Promise<LockstepRun> {
  const { budget, start } = options;
  const { model, choose } = options.model ?? REFERENCE_MODEL;
  const ignored = new Set(options.ignoreFields ?? []);
  const spent = (): boolean => budget?.expired === true;
  let state: ModelState = start === undefined ? model.initialState(config) : model.fromSnapshot(start);
  const stopped = (name: string, steps: readonly LockstepStep[]): LockstepRun => ({
    result: { adapter: name, config, steps, divergence: null, interrupted: true },
    diverging: null,
    aliasChecked: false,
  });
  const diverged = (
    name: string,
    steps: readonly LockstepStep[],
    divergence: Divergence,
    diverging: ModelStepView | null,
    aliasChecked = false,
  ): LockstepRun => ({
    result: { adapter: name, config, steps, divergence },
    diverging,
    aliasChecked,
  });
  await breathe();
  if (spent()) return stopped('(factory)', []);
  let adapter: Adapter;
  try {
    adapter = await factory(config);
  } catch (e) {
    if (isTimeLimit(e)) return stopped('(factory)', []);
    return diverged(
      '(factory)',
      [],
      { step: 0, kind: 'impl_error', error: `could not create the implementation: ${errorText(e)}` },
      null,
    );
  }
  const steps: LockstepStep[] = [];
  const memory = newResolveMemory();
  if (start !== undefined) {
    const restored = await restoreStart(adapter, start);
    if (restored !== undefined) {
      await adapter.close().catch(() => undefined);
      if (restored === 'time_limit') return stopped(adapter.name, []);
      if (restored === 'cannot_start') {
        const result: LockstepResult = { adapter: adapter.name, config, steps, divergence: null };
        return { result, diverging: null, aliasChecked: false, cannotStart: true };
      }
      return diverged(adapter.name, [restored.step], restored.divergence, { before: state });
    }
  }
  // A step the time limit cut short is dropped: it did not run to the end on both sides.
  const interrupted = (): LockstepRun => stopped(adapter.name, steps.slice(0, -1));
  const ahead = new Map<number, SteppedAhead>();
  /**
   * Steps the model from input `from` up to the next restart, and tells the adapter the requests
   * the loop will make: `first` (the snapshot after a restart), then each command and the
   * snapshot after it.
   */
  const planFrom = (from: number, first: readonly PlannedRequest[] = []): void => {
    if (choose !== undefined || adapter.plan === undefined) return;
    const requests: PlannedRequest[] = [...first];
    let at = state;
    for (let j = from; j < inputs.length; j++) {
      const input = inputs[j];
      if (input === undefined) continue;
      const action = isSymbolic(input) ? resolveCommand(at, memory, input) : input;
      if ('restart' in action) break;
      const result = model.step(at, action.do);
      remember(result.reply);
      ahead.set(j, { action, result });
      requests.push({ execute: action.do }, { snapshot: true });
      at = result.state;
    }
    adapter.plan(requests);
  };
  /** A claim's token, for symbolic commands that name the last token of a job. */
  const remember = (reply: Reply): void => {
    if (reply.ok && reply.type === 'claim' && reply.job !== null) memory.lastToken.set(reply.job.id, reply.job.token);
  };
  try {
    planFrom(0);
    for (let i = 0; i < inputs.length; i++) {
      const input = inputs[i];
      if (input === undefined) continue;
      if (spent()) return stopped(adapter.name, steps);
      const index = i + 1;
      const before = state;
      const stepped = ahead.get(i);
      ahead.delete(i);
      const action = stepped?.action ?? (isSymbolic(input) ? resolveCommand(state, memory, input) : input);
      let modelReply: Reply | undefined;
      let implReply: unknown;
      let trace: readonly JobStep[] = [];
      let rules: readonly RuleId[] = RESTART_RULES;
      let view: ModelStepView = { before };
      let impl: Attempt = { ok: true, value: undefined };
      if ('restart' in action) {
        state = model.fromSnapshot(JSON.parse(JSON.stringify(toSnapshot(state))));
        impl = await attempt(() => adapter.restart(), 'restart');
        if (impl.ok) planFrom(i + 1, [{ snapshot: true }]);
      } else {
        // With a choice to read off the implementation's reply, the implementation goes first.
        if (choose !== undefined) impl = await attempt(() => adapter.execute(action.do), 'execute');
        const choice = choose === undefined || !impl.ok ? undefined : choose(state, action.do, impl.value);
        const result: StepResult = stepped?.result ?? model.step(state, action.do, choice);
        rules = rulesExercised(before, action.do, result);
        view = { before, command: action.do, result };
        state = result.state;
        modelReply = result.reply;
        trace = result.trace;
        if (stepped === undefined) remember(modelReply);
        if (choose === undefined) impl = await attempt(() => adapter.execute(action.do), 'execute');
        if (impl.ok) implReply = impl.value;
      }
      let implError = impl.ok ? undefined : impl.error;
      const modelSnapshot = withoutFields(toSnapshot(state), ignored) as Snapshot;
      steps.push({
        index,
        ...(isSymbolic(input) ? { symbolic: input } : {}),
        action,
        ...(modelReply === undefined ? {} : { modelReply }),
        ...(implError === undefined && modelReply !== undefined ? { implReply } : {}),
        modelSnapshot,
        trace,
        rules,
      });
      if (!impl.ok && impl.timeLimit) return interrupted();
      const reply =
        modelReply === undefined || implError !== undefined ? undefined : replyDifference(modelReply, implReply);
      let implSnapshot: unknown;
      let snapshot: Difference | undefined;
      try {
        implSnapshot = withoutFields(await adapter.snapshot(), ignored);
        snapshot = firstDifference(modelSnapshot, implSnapshot);
      } catch (e) {
        if (isTimeLimit(e) && implError === undefined) return interrupted();
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
        return diverged(adapter.name, steps, divergence, view);
      }
    }
    const last = steps[steps.length - 1];
    if (last !== undefined) {
      const alias = await aliasDifference(adapter, last.modelSnapshot, ignored);
      if (alias === 'time_limit') return stopped(adapter.name, steps);
      if (alias !== undefined)
        return diverged(adapter.name, steps, { step: last.index, ...alias }, { before: state }, true);
    }
    return {
      result: { adapter: adapter.name, config, steps, divergence: null },
      diverging: null,
      aliasChecked: last !== undefined,
    };
  } finally {
    await adapter.close().catch(() => undefined);
  }
}

/**
 * Restores the implementation from the run's starting snapshot. Undefined when it came back with
 * that snapshot; else why the run cannot go on: the time limit, an implementation that cannot be
 * restored from a snapshot, or a departure at the restore, told as a restart at step 1.
 */
async function restoreStart(
  adapter: Adapter,
  start: Snapshot,
): Promise<undefined | 'time_limit' | 'cannot_start' | { step: LockstepStep; divergence: Divergence }> {
  if (adapter.restoreFrom === undefined) return 'cannot_start';
  let implSnapshot: unknown;
  let error: string | undefined;
  try {
    await adapter.restoreFrom(start);
    implSnapshot = await adapter.snapshot();
  } catch (e) {
    if (isTimeLimit(e)) return 'time_limit';
    error = `could not restore the starting snapshot: ${errorText(e)}`;
  }
  const snapshot = error === undefined ? firstDifference(start, implSnapshot) : undefined;
  if (error === undefined && snapshot === undefined) return undefined;
  return {
    step: { index: 1, action: { restart: true }, modelSnapshot: start, trace: [], rules: RESTART_RULES },
    divergence: {
      step: 1,
      kind: error === undefined ? 'snapshot' : 'impl_error',
      ...(snapshot === undefined ? {} : { snapshot }),
      ...(implSnapshot === undefined ? {} : { implSnapshot }),
      ...(error === undefined ? {} : { error }),
    },
  };
}
