/**
 * The lifecycle machine read back as data: the list of its transitions, each with its guard
 * written out, so that coverage reports, path enumeration and diagrams are generated from the
 * machine itself and can never drift from it.
 */
import type { DeadReason, JobStatus } from '../contract/index.ts';
import { JOB_STATES, jobMachine } from './jobMachine.ts';
import type { JobEvent } from './jobMachine.ts';
import type { JobStep } from './storeMachine.ts';

/** One transition of the lifecycle machine, as declared. */
export interface LifecycleTransition {
  /** Stable name, e.g. `running --ADVANCE [leaseExpired]--> ready`. */
  readonly id: string;
  readonly from: JobStatus;
  readonly event: JobEvent['type'];
  /** The guard as written (`and`, `not` rendered as `&&`, `!`); null when unguarded. */
  readonly guard: string | null;
  readonly to: JobStatus;
  /** The dead reason this transition records, when it leads to `dead`. */
  readonly reason?: DeadReason;
  /** Named actions, in order. */
  readonly actions: readonly string[];
  /** Position among the candidates for the same state and event (first matching guard wins). */
  readonly order: number;
}

interface GuardLike {
  readonly type?: string;
  readonly name?: string;
  readonly guards?: readonly unknown[];
}

/** A guard as written in a machine's config: a name, or `and`/`not`/`or` combinations rendered as `&&`, `!`, `||`. Pure. */
export function renderGuard(guard: unknown): string {
  if (typeof guard === 'string') return guard;
  const g = guard as GuardLike;
  if (typeof guard === 'function' && g.guards !== undefined) {
    const parts = g.guards.map(renderGuard);
    if (g.name === 'not') return `!${parts[0]}`;
    if (g.name === 'or') return parts.join(' || ');
    return parts.join(' && ');
  }
  if (typeof g?.type === 'string') return g.type;
  return String(guard);
}

/** An action as written: its name, with its parameter when it has one (`die(deadline)`, `reject(conflict)`). Pure. */
export function actionName(action: unknown): string {
  if (typeof action === 'string') return action;
  const a = action as { type?: string; params?: { reason?: string; code?: string } };
  const param = a.params?.reason ?? a.params?.code;
  return param !== undefined ? `${a.type}(${param})` : String(a.type);
}

function reasonOf(actions: readonly unknown[]): DeadReason | undefined {
  for (const action of actions) {
    const a = action as { type?: string; params?: { reason?: DeadReason } };
    if (a.type === 'die' && a.params?.reason !== undefined) return a.params.reason;
  }
  return undefined;
}

let cache: readonly LifecycleTransition[] | undefined;

/** Every transition of the lifecycle machine, in declaration order. Pure (computed once). */
export function lifecycleTransitions(): readonly LifecycleTransition[] {
  if (cache !== undefined) return cache;
  const list: LifecycleTransition[] = [];
  for (const from of JOB_STATES) {
    const node = jobMachine.root.states[from];
    if (node === undefined) continue;
    for (const [event, defs] of node.transitions) {
      defs.forEach((def, order) => {
        const to = (def.target?.[0]?.key ?? from) as JobStatus;
        const guard = def.guard === undefined ? null : renderGuard(def.guard);
        const reason = reasonOf(def.actions);
        const t: LifecycleTransition = {
          id: `${from} --${event}${guard === null ? '' : ` [${guard}]`}--> ${to}`,
          from,
          event: event as JobEvent['type'],
          guard,
          to,
          actions: def.actions.map(actionName),
          order,
        };
        list.push(reason === undefined ? t : { ...t, reason });
      });
    }
  }
  cache = list;
  return list;
}

/** The declared transition a recorded job step took. Throws if the step matches none (a model bug). */
export function transitionOf(step: JobStep): LifecycleTransition {
  const found = lifecycleTransitions().find(
    (t) => t.from === step.from && t.event === step.event && t.to === step.to && t.reason === step.reason,
  );
  if (found === undefined) throw new Error(`model: no lifecycle transition matches ${JSON.stringify(step)}`);
  return found;
}
