/**
 * BUG: a submit checks the capacity, awaits, then inserts without checking again. Two submits in
 * flight at once both see the last free slot, and both are admitted: the store holds more
 * unresolved jobs than its capacity. Alone, each submit is right.
 */
import type { Reply } from '../../../contract/index.ts';
import { AsyncJobStore } from '../../concurrent/inProcess.ts';
import type { Pause } from '../../concurrent/inProcess.ts';

/** AsyncJobStore whose submit awaits between the capacity check and the insert. */
export class CapacityCheckThenInsert extends AsyncJobStore {
  override async executeAsync(command: unknown, pause: Pause): Promise<Reply> {
    await pause();
    const entered = this.enter(command);
    if ('reply' in entered) return entered.reply;
    const c = entered.command;
    if (c.type !== 'submit' || this.jobs.has(c.id) || this.unresolved >= this.cfg.capacity)
      return this.executeTrusted(c);
    await pause(); // the bug: another submit may take the free slot meanwhile
    // Insert as if the check above still held: JobStore's own check is made to pass.
    const counted = this.unresolved;
    this.unresolved = 0;
    try {
      return this.applySubmit(c);
    } finally {
      this.unresolved += counted;
    }
  }
}
