/**
 * BUG: an ack checks its token, awaits (bringing the store to its `now`), then settles the job it
 * found if that job is still running, without checking the token again. When the ack is sent at
 * the very tick its lease ends, a claim in flight beside it can expire the lease and take the job
 * again under a new token; the stale ack then settles the new delivery: it is accepted, and the
 * job is done while its new holder still works on it. Alone, each ack is right.
 */
import type { Reply } from '../../../contract/index.ts';
import { parseCommand } from '../../../contract/index.ts';
import { JobEntry } from '../../../impl/index.ts';
import { AsyncJobStore } from '../../concurrent/inProcess.ts';
import type { Pause } from '../../concurrent/inProcess.ts';

/** AsyncJobStore whose ack awaits between the token check and the settlement. */
export class AckChecksThenSettles extends AsyncJobStore {
  override async executeAsync(command: unknown, pause: Pause): Promise<Reply> {
    await pause();
    const parsed = parseCommand(command);
    if (!parsed.ok || parsed.command.type !== 'ack' || parsed.command.now < this.now) return this.execute(command);
    const found = this.delivery(parsed.command);
    if (!(found instanceof JobEntry)) return this.execute(command);
    await pause(); // the bug: the check above is not repeated after this
    const entered = this.enter(command);
    if ('reply' in entered) return entered.reply;
    if (found.status !== 'running')
      return {
        ok: false,
        code: 'stale_token',
        message: `token ${parsed.command.token} is not the current delivery of any running job`,
      };
    this.endDelivery(found);
    this.resolve(found, 'done');
    return { ok: true, type: 'ack', id: found.id };
  }
}
