/**
 * One command in the contract's three steps over a store transition: validate (a malformed
 * command or a `now` before the clock is refused and nothing changes), advance the clock, apply.
 * Shared by the model's fast step (step.ts) and the reference step (referenceModel.ts), which
 * differ only in how the store machine takes an event and how a command is validated.
 */
import type { ParsedCommand, Reply } from '../contract/index.ts';
import type { ModelState, StepChoice, StepResult } from './stepTypes.ts';
import type { StoreEvent } from './storeMachine.ts';

/** How a step takes one store event in a state: the next state. */
export type TakeStoreEvent = (state: ModelState, event: StoreEvent) => ModelState;

/** Evaluates one command in the contract's three steps; `choice` is merged into the store event after validation. Pure. */
export function threeSteps(
  transition: TakeStoreEvent,
  parse: (input: unknown) => ParsedCommand,
  state: ModelState,
  command: unknown,
  choice: StepChoice | undefined,
): StepResult {
  const parsed = parse(command);
  if (!parsed.ok) return { state, reply: parsed.rejection, trace: [] };
  const cmd = choice === undefined ? parsed.command : ({ ...parsed.command, ...choice } as typeof parsed.command);
  if (cmd.now < state.context.clock) {
    const reply: Reply = {
      ok: false,
      code: 'clock_regressed',
      message: `now: ${cmd.now} is before the clock (${state.context.clock})`,
    };
    return { state, reply, trace: [] };
  }
  // Every instant a job waits for (deadline, leaseUntil, notBefore) lies strictly after the clock
  // once a command is done (leaseTicks, backoffBase >= 1 and deadline > now guarantee it), so an
  // advance to the current clock can change nothing; it is skipped only to save time.
  const skip = cmd.now === state.context.clock;
  const advanced = skip ? state : transition(state, { type: 'advance', now: cmd.now });
  const applied = transition(advanced, cmd);
  const reply = applied.context.reply;
  if (reply === undefined) throw new Error(`model: no reply for ${cmd.type}`);
  // The trace is the advance's then the command's; either alone is returned as it is (traces are
  // never changed once made), so that most steps build no array for it.
  const expired = skip ? undefined : advanced.context.trace;
  const own = applied.context.trace;
  const trace = expired === undefined || expired.length === 0 ? own : own.length === 0 ? expired : [...expired, ...own];
  return { state: applied, reply, trace };
}
