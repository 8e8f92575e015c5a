/**
 * xstate's own transition of a machine, as the reference step takes it (referenceModel.ts): one
 * inert actor scope per machine (pureTransition.ts), made on first use and kept in a WeakMap, and
 * a second one that reports the actions of each microstep to the action log while a recording is
 * under way (actionLog.ts), so that the reference's executed actions can be compared with the
 * fast step's. The inert scope is the one used outside recordings: the reference costs what the
 * model's step cost before it had a fast path.
 */
import type { AnyStateMachine, EventFromLogic, SnapshotFrom } from 'xstate';
import { isRecording, logActions } from './actionLog.ts';
import type { ExecutedAction } from './actionLog.ts';
import { pureTransition } from './pureTransition.ts';
import type { PureTransition } from './pureTransition.ts';

interface Pair {
  readonly inert: PureTransition<AnyStateMachine>;
  readonly recording: PureTransition<AnyStateMachine>;
}
const cache = new WeakMap<AnyStateMachine, Pair>();

/** An action of a transition definition as the log names it. Pure. */
function executed(machine: string, action: unknown): ExecutedAction {
  if (typeof action === 'string') return { machine, action };
  const a = action as { type?: unknown; name?: unknown; params?: unknown };
  const name = String(a.type ?? a.name ?? '(anonymous)');
  if (typeof action === 'function' || !('params' in a) || a.params === undefined) return { machine, action: name };
  return { machine, action: name, params: typeof a.params === 'function' ? '(computed)' : a.params };
}

/**
 * xstate's pure transition of `machine`: `(snapshot, event) => nextSnapshot`, reporting executed
 * actions while a recording is under way. Pure to its callers.
 */
export function referenceTransition<M extends AnyStateMachine>(
  machine: M,
): (snapshot: SnapshotFrom<M>, event: EventFromLogic<M>) => SnapshotFrom<M> {
  let pair = cache.get(machine);
  if (pair === undefined) {
    const id = machine.id;
    pair = {
      inert: pureTransition(machine),
      recording: pureTransition(machine, (transitions) => {
        for (const t of transitions) logActions(t.actions.map((a) => executed(id, a)));
      }),
    };
    cache.set(machine, pair);
  }
  const { inert, recording } = pair;
  return (snapshot, event) => (isRecording() ? recording : inert)(snapshot, event) as SnapshotFrom<M>;
}
