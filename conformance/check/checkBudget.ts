/**
 * The time budget of a check that can also give up on the phase under way. Every wait on an
 * implementation listens to its budget's `signal` (conformance/protocol/peer.ts ends the wait and
 * kills the process group when it fires, as `time_limit`); this budget's signal fires when the time
 * limit is reached, as any budget's does, and also when the check gives up the phase under way
 * (phaseGate.ts: a timeout in the phase, or --fail-fast). So the requests already waiting end at
 * once too, instead of each waiting out its own timeout, and are reported as not run.
 *
 * The check starts each phase afresh (`startPhase`): giving up one phase does not cut the next.
 * `expired` and `remainingMs` stay the time limit's alone, so that nothing mistakes a phase given up
 * for the end of the check's time.
 */
import { Budget } from '../budget.ts';
import type { PhaseGate } from './phaseGate.ts';

/** A Budget whose signal also fires when the phase under way is given up. */
export class CheckBudget extends Budget {
  private phase = new AbortController();
  private combined: AbortSignal = AbortSignal.any([super.signal, this.phase.signal]);

  /** Fires at the time limit, or when the phase under way is given up. */
  override get signal(): AbortSignal {
    return this.combined;
  }

  /** Starts a phase behind `gate`: its waits are cut when the gate closes (at once if it is closed already). */
  startPhase(gate: PhaseGate): void {
    this.phase = new AbortController();
    this.combined = AbortSignal.any([super.signal, this.phase.signal]);
    const phase = this.phase;
    gate.onClose(() => phase.abort());
  }
}
