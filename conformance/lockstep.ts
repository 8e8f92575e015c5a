/**
 * The lockstep runner: drives the model and an implementation with the same steps and compares,
 * after every step, the replies (without `message`) and the canonical snapshots. The first
 * difference ends the run and is returned as data, never thrown.
 */
import type { Config, Reply, Snapshot } from '../contract/index.ts';
import { RESTART_RULES, fromSnapshot, initialState, rulesExercised, step, toSnapshot } from '../model/index.ts';
import type { RuleId } from '../contract/index.ts';
import type { JobStep, ModelState } from '../model/index.ts';
import type { Adapter, AdapterFactory } from './adapter.ts';
import { isTimeLimit } from './budget.ts';
import type { Budget } from './budget.ts';
import { firstDifference, replyDifference } from './compare.ts';
import type { Difference } from './compare.ts';
import { newResolveMemory, resolveCommand } from './symbolic.ts';
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

/** Options of a lockstep run. */
export interface LockstepOptions {
  /** The check's time budget: once it is spent, the run stops where it is (`interrupted`). */
  readonly budget?: Budget;
}

/** Input of a run: generated (symbolic) commands, or concrete script steps. */
export type RunInput = SymbolicCommand | ScriptStep;

const isSymbolic = (x: RunInput): x is SymbolicCommand => 'kind' in x;
const errorText = (e: unknown): string => (e instanceof Error ? `${e.name}: ${e.message}` : String(e));

/**
 * Runs the steps on a fresh model and a fresh implementation (from `factory`) in lockstep and
 * returns every step plus the first divergence. After the last step it checks once that the
 * snapshots handed out are the caller's (changing one does not change the implementation). The
 * adapter is always closed. A factory that throws is reported as an `impl_error` divergence at
 * step 0; only an error of the model itself (a defect of the specification) is thrown.
 */
export async function runLockstep(
  config: Config,
  inputs: readonly RunInput[],
  factory: AdapterFactory,
  options: LockstepOptions = {},
): Promise<LockstepResult> {
  const spent = (): boolean => options.budget?.expired === true;
  let model: ModelState = initialState(config);
  const stopped = (name: string, steps: readonly LockstepStep[]): LockstepResult => ({ adapter: name, config, steps, divergence: null, interrupted: true });
  if (spent()) return stopped('(factory)', []);
  let adapter: Adapter;
  try {
    adapter = await factory(config);
  } catch (e) {
    if (isTimeLimit(e)) return stopped('(factory)', []);
    const divergence: Divergence = { step: 0, kind: 'impl_error', error: `could not create the implementation: ${errorText(e)}` };
    return { adapter: '(factory)', config, steps: [], divergence };
  }
  const steps: LockstepStep[] = [];
  const memory = newResolveMemory();
  // A step the time limit cut short is dropped: it did not run to the end on both sides.
  const interrupted = (): LockstepResult => stopped(adapter.name, steps.slice(0, -1));
  try {
    for (let i = 0; i < inputs.length; i++) {
      const input = inputs[i];
      if (input === undefined) continue;
      if (spent()) return stopped(adapter.name, steps);
      const index = i + 1;
      const action = isSymbolic(input) ? resolveCommand(model, memory, input) : input;
      const symbolic = isSymbolic(input) ? { symbolic: input } : {};
      let modelReply: Reply | undefined;
      let implReply: unknown;
      let trace: readonly JobStep[] = [];
      let rules: readonly RuleId[] = RESTART_RULES;
      let implError: string | undefined;
      let timeLimit = false;
      if ('restart' in action) {
        model = fromSnapshot(JSON.parse(JSON.stringify(toSnapshot(model))));
        try {
          await adapter.restart();
        } catch (e) {
          timeLimit = isTimeLimit(e);
          implError = `restart threw ${errorText(e)}`;
        }
      } else {
        const result = step(model, action.do);
        rules = rulesExercised(model, action.do, result);
        model = result.state;
        modelReply = result.reply;
        trace = result.trace;
        if (modelReply.ok && modelReply.type === 'claim' && modelReply.job !== null) memory.lastToken.set(modelReply.job.id, modelReply.job.token);
        try {
          implReply = await adapter.execute(action.do);
        } catch (e) {
          timeLimit = isTimeLimit(e);
          implError = `execute threw ${errorText(e)}`;
        }
      }
      const modelSnapshot = toSnapshot(model);
      const record: LockstepStep = {
        index,
        ...symbolic,
        action,
        ...(modelReply === undefined ? {} : { modelReply }),
        ...(implError === undefined && modelReply !== undefined ? { implReply } : {}),
        modelSnapshot,
        trace,
        rules,
      };
      steps.push(record);
      if (timeLimit) return interrupted();
      const reply = modelReply === undefined || implError !== undefined ? undefined : replyDifference(modelReply, implReply);
      let implSnapshot: unknown;
      let snapshot: Difference | undefined;
      try {
        implSnapshot = await adapter.snapshot();
        snapshot = firstDifference(modelSnapshot, implSnapshot);
      } catch (e) {
        if (isTimeLimit(e) && implError === undefined) return interrupted();
        implError ??= `snapshot threw ${errorText(e)}`;
      }
      if (implError !== undefined || reply !== undefined || snapshot !== undefined) {
        const kind = implError !== undefined ? 'impl_error' : reply !== undefined ? 'reply' : 'snapshot';
        const divergence: Divergence = {
          step: index,
          kind,
          ...(reply === undefined ? {} : { reply }),
          ...(snapshot === undefined ? {} : { snapshot }),
          ...(implSnapshot === undefined ? {} : { implSnapshot }),
          ...(implError === undefined ? {} : { error: implError }),
        };
        return { adapter: adapter.name, config, steps, divergence };
      }
    }
    const last = steps[steps.length - 1];
    if (last !== undefined) {
      const alias = await aliasDifference(adapter, last.modelSnapshot);
      if (alias === 'time_limit') return stopped(adapter.name, steps);
      if (alias !== undefined) return { adapter: adapter.name, config, steps, divergence: { step: last.index, ...alias } };
    }
    return { adapter: adapter.name, config, steps, divergence: null };
  } finally {
    await adapter.close().catch(() => undefined);
  }
}

/** Overwrites every field of a JSON value in place (numbers, strings, booleans) and adds a key to every object. */
function scribble(value: unknown): void {
  if (typeof value !== 'object' || value === null) return;
  const record = value as Record<string, unknown>;
  for (const [k, v] of Object.entries(record)) {
    if (typeof v === 'number') record[k] = -1;
    else if (typeof v === 'string') record[k] = 'changed by the caller';
    else if (typeof v === 'boolean') record[k] = !v;
    else scribble(v);
  }
  record['addedByTheCaller'] = true;
}

/**
 * The aliasing check: a snapshot is the caller's value, so changing it must not change the
 * implementation. Takes a snapshot, changes it deeply, and compares the next snapshot with the
 * model's. Returns the divergence fields, or undefined when the implementation is unaffected.
 */
export async function aliasDifference(adapter: Adapter, expected: Snapshot): Promise<Omit<Divergence, 'step'> | 'time_limit' | undefined> {
  try {
    scribble(await adapter.snapshot());
    const implSnapshot = await adapter.snapshot();
    const snapshot = firstDifference(expected, implSnapshot);
    return snapshot === undefined ? undefined : { kind: 'alias', snapshot, implSnapshot };
  } catch (e) {
    if (isTimeLimit(e)) return 'time_limit';
    return { kind: 'impl_error', error: `snapshot threw ${errorText(e)}` };
  }
}
