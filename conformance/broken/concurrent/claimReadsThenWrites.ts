/**
 * BUG: a claim reads the head of the queue, awaits, then writes. Two claims in flight at once both
 * read the same head before either delivers it, so one job is delivered twice, under two tokens,
 * to two workers: a double delivery. Alone, each claim is right.
 */
import type { Reply } from '../../../contract/index.ts';
import { AsyncJobStore } from '../../concurrent/inProcess.ts';
import type { Pause } from '../../concurrent/inProcess.ts';

/** AsyncJobStore whose claim awaits between choosing the job and delivering it. */
export class ClaimReadsThenWrites extends AsyncJobStore {
  override async executeAsync(command: unknown, pause: Pause): Promise<Reply> {
    await pause();
    const entered = this.enter(command);
    if ('reply' in entered) return entered.reply;
    const c = entered.command;
    if (c.type !== 'claim' || this.tokensExhausted() !== undefined) return this.executeTrusted(c);
    const heap = this.claimable;
    while (heap.size > 0 && heap.peekTag() !== heap.peekValue().gen) heap.pop();
    if (heap.size === 0) return { ok: true, type: 'claim', job: null };
    const job = heap.peekValue();
    await pause(); // the bug: another claim may deliver `job` meanwhile
    if (heap.size > 0 && heap.peekValue() === job) heap.pop();
    return this.deliver(job, c);
  }
}
