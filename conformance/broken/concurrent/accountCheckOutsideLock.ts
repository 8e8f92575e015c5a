/**
 * BUG: a claim reads which accounts are busy (their head running or waiting) in one critical
 * section and delivers in another. Between the two, a claim beside it delivers an account's head;
 * the first claim, going by what it read, then delivers the account's second job: two jobs of one
 * account run at once, and the second overtakes the first if the first is retried. Alone, each
 * claim is right. Every other command runs whole under the store's lock.
 */
import type { JobEntry } from '../../../impl/index.ts';
import type { Reply } from '../../../contract/index.ts';
import { AsyncJobStore } from '../../concurrent/inProcess.ts';
import type { Pause } from '../../concurrent/inProcess.ts';

/** AsyncJobStore whose claim checks per-account order outside the critical section that delivers. */
export class AccountCheckOutsideLock extends AsyncJobStore {
  override async executeAsync(command: unknown, pause: Pause): Promise<Reply> {
    await pause();
    const first = await this.lock.run(() => {
      const entered = this.enter(command);
      if ('reply' in entered) return { reply: entered.reply };
      const c = entered.command;
      if (c.type !== 'claim' || this.tokensExhausted() !== undefined) return { reply: this.executeTrusted(c) };
      return { claim: c, busy: this.busyAccounts() };
    });
    if ('reply' in first) return first.reply;
    await pause(); // the bug: `busy` may be out of date when it is used below
    return this.lock.run(() => {
      let chosen: JobEntry | undefined;
      for (const job of this.jobs.values()) {
        if (job.status === 'ready' && !first.busy.has(job.account)) {
          chosen = job;
          break;
        }
      }
      return chosen === undefined ? { ok: true, type: 'claim', job: null } : this.deliver(chosen, first.claim);
    });
  }

  /** Accounts whose head is running or waiting. */
  private busyAccounts(): Set<string> {
    const busy = new Set<string>();
    for (const [account, queue] of this.accounts)
      if (queue.head !== null && queue.head.status !== 'ready') busy.add(account);
    return busy;
  }
}
