/**
 * A machine's own definition, compiled once into plain transition tables for the fast step
 * (runMachine.ts). The xstate machines in storeMachine.ts and jobMachine.ts stay the one
 * specification: the tables are read from the machine's state nodes (`machine.root`) and its
 * implementations (`machine.implementations`, so `machine.provide(...)` variants compile to their
 * own tables), never written out a second time.
 *
 * What the executor runs is exactly the subset of xstate these machines use: flat states (atomic
 * or final children of the root), per state and event the candidate transitions in order (the
 * first whose guard holds is taken), named guards with xstate's `and`/`or`/`not`, `assign` actions
 * with params, targets among the sibling states. Anything else (delays, invoked or spawned actors,
 * nested or parallel states, eventless transitions, entry or exit actions, wildcard events, other
 * built-in actions, side-effect actions, `stateIn`) throws `UnsupportedMachineError` at compile
 * time, so a future change of a machine cannot be silently mis-executed: the fast step refuses the
 * machine and says what it met.
 */
import type { AnyStateMachine } from 'xstate';

/** A machine uses something the fast executor does not run. */
export class UnsupportedMachineError extends Error {
  override name = 'UnsupportedMachineError' as const;
  readonly code = 'unsupported_machine' as const;
}

/** The arguments xstate hands a guard. */
export interface GuardArgs {
  readonly context: unknown;
  readonly event: { readonly type: string };
}

/** A compiled guard: whether it holds for these arguments. */
export type Predicate = (args: GuardArgs) => boolean;

/** A compiled `assign`: the context after it. */
export interface CompiledAction {
  readonly name: string;
  /** The parameters as declared: a value, or a function of the arguments (resolved when run). */
  readonly params: unknown;
  readonly paramsAreComputed: boolean;
  /** The assignment of `assign(...)`: a function of (args, params), or an object of values and functions. */
  readonly assignment: unknown;
  /** For an object assignment, its keys (read once here rather than on every run). */
  readonly keys: readonly string[];
  /** For an object assignment, whether any of its values is a function (to be called with the arguments). */
  readonly hasFunctions: boolean;
}

/** One candidate transition of a state for an event. */
export interface CompiledTransition {
  readonly guard: Predicate | undefined;
  /** The state it leads to; undefined for a targetless transition (the state stays). */
  readonly target: string | undefined;
  readonly actions: readonly CompiledAction[];
}

/** A machine's transition tables: per state, per event type, the candidates in order. */
export interface CompiledMachine {
  readonly id: string;
  readonly states: ReadonlyMap<string, ReadonlyMap<string, readonly CompiledTransition[]>>;
}

// The parts of xstate's state nodes and definitions read here (their public shape in xstate v5).
interface NodeLike {
  readonly key: string;
  readonly id: string;
  readonly type: string;
  readonly parent: NodeLike | undefined;
  readonly states: Record<string, NodeLike>;
  readonly entry: readonly unknown[];
  readonly exit: readonly unknown[];
  readonly invoke: readonly unknown[];
  readonly after: readonly unknown[];
  readonly always: readonly unknown[] | undefined;
  readonly history: unknown;
  readonly transitions: ReadonlyMap<string, readonly TransitionLike[]>;
}
interface TransitionLike {
  readonly target: readonly NodeLike[] | undefined;
  readonly guard: unknown;
  readonly actions: readonly unknown[];
}
type Implementations = { readonly guards: Record<string, unknown>; readonly actions: Record<string, unknown> };

const unsupported = (where: string, what: string): never => {
  throw new UnsupportedMachineError(`${where}: ${what} is not supported by the model's fast step`);
};

function assertPlainNode(node: NodeLike, where: string): void {
  if (node.entry.length > 0) unsupported(where, 'an entry action');
  if (node.exit.length > 0) unsupported(where, 'an exit action');
  if (node.invoke.length > 0) unsupported(where, 'an invoked actor');
  if (node.after.length > 0) unsupported(where, 'a delayed transition');
  if (node.always !== undefined && node.always.length > 0) unsupported(where, 'an eventless transition');
}

function compileGuard(guard: unknown, impl: Implementations, where: string): Predicate {
  if (typeof guard === 'string' || (typeof guard === 'object' && guard !== null)) {
    const g = guard as { type?: unknown; params?: unknown };
    const name = typeof guard === 'string' ? guard : g.type;
    if (typeof name !== 'string') return unsupported(where, 'a guard without a name');
    const resolved = impl.guards[name];
    if (resolved === undefined) return unsupported(where, `the unimplemented guard '${name}'`);
    if (typeof resolved !== 'function') return compileGuard(resolved, impl, where);
    if ('check' in resolved) return compileBuiltinGuard(resolved, impl, where);
    const fn = resolved as (args: GuardArgs, params: unknown) => boolean;
    if (typeof guard === 'string' || !('params' in g)) return (args) => fn(args, undefined);
    const params = g.params;
    if (typeof params === 'function') return (args) => fn(args, params(args));
    return (args) => fn(args, params);
  }
  if (typeof guard === 'function') {
    if ('check' in guard) return compileBuiltinGuard(guard, impl, where);
    const fn = guard as (args: GuardArgs, params: unknown) => boolean;
    return (args) => fn(args, undefined);
  }
  return unsupported(where, `the guard ${String(guard)}`);
}

function compileBuiltinGuard(guard: object, impl: Implementations, where: string): Predicate {
  const { name, guards } = guard as { name?: string; guards?: readonly unknown[] };
  if (guards === undefined) return unsupported(where, `the built-in guard '${name}'`);
  const parts = guards.map((g) => compileGuard(g, impl, where));
  // Loops rather than every/some: no closure is made on each evaluation.
  if (name === 'and')
    return (args) => {
      for (const p of parts) if (!p(args)) return false;
      return true;
    };
  if (name === 'or')
    return (args) => {
      for (const p of parts) if (p(args)) return true;
      return false;
    };
  const [only] = parts;
  if (name === 'not' && only !== undefined && parts.length === 1) return (args) => !only(args);
  return unsupported(where, `the built-in guard '${name}'`);
}

function compileAction(action: unknown, impl: Implementations, where: string): CompiledAction {
  let name: string;
  let resolved: unknown;
  let params: unknown;
  if (typeof action === 'function') {
    resolved = action;
    name = String((action as { type?: unknown }).type ?? (action.name || '(anonymous)'));
  } else {
    const a = action as { type?: unknown; params?: unknown };
    const type = typeof action === 'string' ? action : a.type;
    if (typeof type !== 'string') return unsupported(where, 'an action without a name');
    name = type;
    resolved = impl.actions[type];
    if (resolved === undefined) return unsupported(where, `the unimplemented action '${type}'`);
    if (typeof action === 'object' && action !== null && 'params' in a) params = a.params;
  }
  const r = resolved as { type?: unknown; assignment?: unknown; resolve?: unknown };
  if (typeof resolved !== 'function') return unsupported(where, `the action '${name}' (not a function)`);
  if (r.type !== 'xstate.assign' || r.assignment === undefined) {
    const kind = 'resolve' in r ? `the built-in action '${String(r.type)}'` : `the side-effect action '${name}'`;
    return unsupported(where, kind);
  }
  const assignment = r.assignment;
  const keys = typeof assignment === 'object' && assignment !== null ? Object.keys(assignment) : [];
  const hasFunctions = keys.some((k) => typeof (assignment as Record<string, unknown>)[k] === 'function');
  return { name, params, paramsAreComputed: typeof params === 'function', assignment, keys, hasFunctions };
}

/**
 * The transition tables of `machine`. Throws UnsupportedMachineError naming the first state and
 * feature the fast executor does not run. Pure (callers cache the result per machine).
 */
export function compileMachine(machine: AnyStateMachine): CompiledMachine {
  const root = machine.root as unknown as NodeLike;
  const impl = machine.implementations as unknown as Implementations;
  const id = root.id;
  if (root.type !== 'compound') unsupported(`machine '${id}'`, `a root of type '${root.type}'`);
  assertPlainNode(root, `machine '${id}'`);
  if (root.transitions.size > 0) unsupported(`machine '${id}'`, 'a transition on the root');
  const states = new Map<string, Map<string, CompiledTransition[]>>();
  for (const node of Object.values(root.states)) {
    const where = `state '${node.id}'`;
    if (node.type !== 'atomic' && node.type !== 'final') unsupported(where, `a state of type '${node.type}'`);
    assertPlainNode(node, where);
    if (node.type === 'final' && node.transitions.size > 0) unsupported(where, 'a transition out of a final state');
    const byEvent = new Map<string, CompiledTransition[]>();
    for (const [event, defs] of node.transitions) {
      if (event.includes('*') || event.startsWith('xstate.')) unsupported(where, `the event descriptor '${event}'`);
      byEvent.set(
        event,
        defs.map((def, i) => {
          const at = `${where}, event '${event}', transition ${i + 1}`;
          const targets = def.target ?? [];
          if (targets.length > 1) unsupported(at, 'more than one target');
          const [to] = targets;
          if (to !== undefined && to.parent !== root)
            unsupported(at, `the target '${to.id}' outside the root's states`);
          return {
            guard: def.guard === undefined ? undefined : compileGuard(def.guard, impl, at),
            target: to?.key,
            actions: def.actions.map((a) => compileAction(a, impl, at)),
          };
        }),
      );
    }
    states.set(node.key, byEvent);
  }
  return { id, states };
}
