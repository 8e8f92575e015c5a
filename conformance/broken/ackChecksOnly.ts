/**
 * Shared by the two `ack-outside-guard` variants (SQLite and PostgreSQL): the run of an ack that
 * does steps 1b and 2 and the delivery check of the command core, writes the counters, and then
 * stops: the ack's own writes are left to the caller, which makes them in a transaction of its
 * own (the bug). Every other command runs the core as it is.
 */
import type { AckCommand, Reply } from '../../contract/index.ts';
import { advanceClock, delivery, writeCounters } from '../../impl/core/index.ts';
import type { CoreContext, CoreRun } from '../../impl/core/index.ts';
import type { Counters } from '../../impl/durable/index.ts';

/** An ack's run that checks the token and writes nothing of the ack; `checked` receives the job's seq. */
export function* ackChecksOnly(
  ctx: CoreContext,
  m: Counters,
  c: AckCommand,
  checked: (seq: number) => void,
): CoreRun<Reply> {
  const before = { ...m };
  const refused = yield* advanceClock(ctx, m, c.now);
  if (refused !== undefined) return refused;
  const job = yield* delivery(ctx, c);
  yield* writeCounters(m, before);
  if ('ok' in job) return job;
  checked(job.seq); // the bug: the write waits for a transaction of its own
  return { ok: true, type: 'ack', id: job.id };
}
