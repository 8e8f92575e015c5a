/**
 * A state of one of the model's machines as a plain value: the state it is in, its context, and
 * the machine whose transitions it takes. This is what the model's fast step works on
 * (runMachine.ts); an xstate snapshot of the same machine has the same three members, so every
 * reader of `value`, `context` and `machine` serves both, and the reference step (referenceModel.ts)
 * can keep xstate snapshots all the way down.
 *
 * The machine is carried, not implied: a variant of the model (variants.ts) runs its jobs on a
 * variant of the job lifecycle, and a job finds its rules through its own `machine`.
 */

/** A plain state of `machine`: which state it is in, and its context. Treat it as an immutable value. */
export interface MachineState<TMachine, TContext, TValue extends string = string> {
  readonly value: TValue;
  readonly context: TContext;
  readonly machine: TMachine;
}

/** A plain state of `machine` in state `value` with `context`; nothing is checked or copied. Pure. */
export function machineState<TMachine, TContext, TValue extends string>(
  machine: TMachine,
  value: TValue,
  context: TContext,
): MachineState<TMachine, TContext, TValue> {
  return { value, context, machine };
}

/**
 * Whether `state` is an xstate snapshot rather than a plain state. Only the reference step asks:
 * it turns plain states into snapshots before xstate takes them. Pure.
 */
export function isActorSnapshot(state: object): boolean {
  // Every xstate MachineSnapshot has a `status` ('active', 'done', ...); a plain state never has one.
  return 'status' in state;
}
