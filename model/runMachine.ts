/**
 * The fast step of one machine: takes an event in a plain state (machineState.ts) by the state
 * machine's compiled tables (compileMachine.ts), without xstate's actor runtime. The first
 * candidate transition of the state for the event whose guard holds is taken: its `assign`
 * actions run in order, each on the context the previous one left (as xstate runs them), and the
 * state moves to its target. No candidate, or none whose guard holds: the state is returned as it
 * is. Tables are compiled once per machine and kept in a WeakMap, so each `machine.provide(...)`
 * variant runs on its own.
 *
 * The test conformance/fastStepEqualsReference.test.ts holds this executor equal to xstate's own
 * transition on every transition of the explorer's scopes and of random campaigns.
 */
import type { AnyStateMachine } from 'xstate';
import { isRecording, logActions } from './actionLog.ts';
import type { ExecutedAction } from './actionLog.ts';
import { compileMachine } from './compileMachine.ts';
import type { CompiledMachine, CompiledTransition, GuardArgs } from './compileMachine.ts';
import type { MachineState } from './machineState.ts';

const compiled = new WeakMap<AnyStateMachine, CompiledMachine>();

/**
 * The compiled tables of `machine`, compiled on first use. Throws UnsupportedMachineError for a
 * machine the executor cannot run. Pure (the cache is invisible).
 */
export function tablesOf(machine: AnyStateMachine): CompiledMachine {
  // A step alternates between a store machine and one job machine: the last two are kept at hand,
  // which spares most WeakMap look-ups.
  if (machine === lastMachine) return lastTables as CompiledMachine;
  if (machine === otherMachine) return otherTables as CompiledMachine;
  let tables = compiled.get(machine);
  if (tables === undefined) {
    tables = compileMachine(machine);
    compiled.set(machine, tables);
  }
  otherMachine = lastMachine;
  otherTables = lastTables;
  lastMachine = machine;
  lastTables = tables;
  return tables;
}
let lastMachine: AnyStateMachine | undefined;
let lastTables: CompiledMachine | undefined;
let otherMachine: AnyStateMachine | undefined;
let otherTables: CompiledMachine | undefined;

// xstate hands an assignment a `spawn`; these machines never spawn, and the compiler cannot see
// inside an assignment, so one that tries is stopped here rather than mis-executed.
const noSpawn = (): never => {
  throw new Error("model: spawn is not supported by the model's fast step");
};

function assigned(transition: CompiledTransition, context: unknown, event: GuardArgs['event']): unknown {
  // The first action copies the context; the later ones write into that copy, which is this
  // call's own (each assignment has returned before the next one runs, and none keeps the
  // context object it was given), so a transition of n actions makes one copy, not n.
  let current = context;
  let own = false;
  for (const action of transition.actions) {
    const params = action.paramsAreComputed
      ? (action.params as (a: GuardArgs) => unknown)({ context: current, event })
      : action.params;
    const assignment = action.assignment;
    const next = (own ? current : { ...(current as object) }) as Record<string, unknown>;
    // The arguments are made only for an assignment that has functions to call (`begin`, of
    // plain values, has none).
    const args =
      typeof assignment === 'function' || action.hasFunctions ? { context: current, event, spawn: noSpawn } : undefined;
    if (typeof assignment === 'function') Object.assign(next, assignment(args, params));
    else {
      // An object of values and functions: each key in turn, as xstate assigns them, every
      // function reading the context before this action. Into a fresh copy they are written as
      // they come; into this call's own copy (which `args.context` is), all are evaluated first.
      const keys = action.keys;
      const values = own ? keys.map((key) => (assignment as Record<string, unknown>)[key]) : undefined;
      for (let i = 0; i < keys.length; i++) {
        const key = keys[i] as string;
        const value = values === undefined ? (assignment as Record<string, unknown>)[key] : values[i];
        const result = typeof value === 'function' ? value(args, params) : value;
        if (values === undefined) next[key] = result;
        else values[i] = result;
      }
      if (values !== undefined) for (let i = 0; i < keys.length; i++) next[keys[i] as string] = values[i];
    }
    current = next;
    own = true;
  }
  return current;
}

function record(id: string, transition: CompiledTransition, context: unknown, event: GuardArgs['event']): void {
  const entries: ExecutedAction[] = transition.actions.map((a) => {
    const params = a.paramsAreComputed ? (a.params as (x: GuardArgs) => unknown)({ context, event }) : a.params;
    return params === undefined ? { machine: id, action: a.name } : { machine: id, action: a.name, params };
  });
  logActions(entries);
}

/**
 * The state after `event` in `state`, on `state.machine`'s own transitions. Pure: `state` is left
 * untouched; when no transition is enabled the same object is returned.
 */
export function runMachine<S extends MachineState<AnyStateMachine, unknown>>(
  state: S,
  event: { readonly type: string },
): S {
  const tables = tablesOf(state.machine);
  const candidates = tables.states.get(state.value)?.get(event.type);
  if (candidates === undefined) return state;
  const args: GuardArgs = { context: state.context, event };
  for (const transition of candidates) {
    if (transition.guard !== undefined && !transition.guard(args)) continue;
    const context = assigned(transition, state.context, event);
    // Recorded with the context before the actions ran; only computed parameters would read it.
    if (isRecording()) record(tables.id, transition, state.context, event);
    return { value: transition.target ?? state.value, context, machine: state.machine } as S;
  }
  return state;
}
