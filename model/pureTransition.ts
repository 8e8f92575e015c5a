/**
 * Pure transitions of a machine without xstate's per-call actor.
 *
 * xstate's `transition(machine, snapshot, event)` is pure, but on every call it builds a
 * throw-away actor (`createActor` plus a fresh actor system) only to hand the machine an actor
 * scope, and that construction costs more than the transition itself. The scope is read, never
 * kept: the machine asks it for `self` and `system` (for spawned children and delayed events,
 * which these machines do not use) and hands it the actions to run (`actionExecutor`), which the
 * pure form collects and drops. Built-in actions such as `assign` are applied by the transition
 * itself, whatever the scope does.
 *
 * So one inert scope per machine, made once, gives exactly the same next snapshot:
 * `pureTransition(machine)` returns `(snapshot, event) => nextSnapshot`. The scope holds no state
 * between calls, so the function stays pure and may be called in any order on any snapshot.
 * This is the reference path (referenceModel.ts); the model's own step runs the machines' compiled
 * tables (runMachine.ts). `observe`, when given, hears the transitions of every microstep xstate
 * takes (through the inert actor's inspection): the reference's executed actions, recorded for
 * comparison with the fast step's.
 */
import { createActor } from 'xstate';
import type { AnyActorScope, AnyStateMachine, EventFromLogic, SnapshotFrom } from 'xstate';

/** A pure transition function of `machine`: the next snapshot; inputs are left untouched. */
export type PureTransition<M extends AnyStateMachine> = (
  snapshot: SnapshotFrom<M>,
  event: EventFromLogic<M>,
) => SnapshotFrom<M>;

/** The transitions xstate took in one microstep, as its inspection reports them. */
export type MicrostepObserver = (transitions: readonly { readonly actions: readonly unknown[] }[]) => void;

/**
 * Builds one inert actor scope for `machine` and returns its pure transition function; `observe`
 * (optional) hears each microstep's transitions.
 */
export function pureTransition<M extends AnyStateMachine>(machine: M, observe?: MicrostepObserver): PureTransition<M> {
  // The actor is never started: it exists only so that `self` is an actor of this machine.
  const self =
    observe === undefined
      ? createActor(machine)
      : createActor(machine, {
          inspect: (e: { type: string }) => {
            const t = (e as { _transitions?: readonly { actions: readonly unknown[] }[] })._transitions;
            if (e.type === '@xstate.microstep' && t !== undefined) observe(t);
          },
        } as never);
  const ignore = (): void => {};
  const scope: AnyActorScope = {
    self,
    id: '',
    sessionId: '',
    logger: ignore,
    defer: ignore,
    emit: ignore,
    stopChild: ignore,
    system: self.system,
    actionExecutor: ignore,
  };
  return (snapshot, event) => machine.transition(snapshot, event, scope) as SnapshotFrom<M>;
}
