/**
 * One short story per SQS target (adapters/sqs/profile.ts), on the emulator the target starts:
 * a submit repeated (FIFO deduplicates it by MessageDeduplicationId, a standard queue takes a
 * second message), a lease that runs out and a redelivery with the next receive count, and the old
 * holder's late ack: what each emulator did when this was written (fauxqs and local-aws-sqs's
 * standard queue accept it, local-aws-sqs's FIFO queue refuses it), so that an emulator that
 * changes its answer fails here. Every emulator process is gone when the file ends.
 */
import { afterAll, describe, expect, it } from 'vitest';
import type { Reply } from '../../contract/index.ts';
import type { ProfileTarget } from '../../conformance/profile/target.ts';
import { sqsTarget } from './profile.ts';
import { SqsEmulator } from './servers.ts';
import type { EmulatorName } from './servers.ts';

const CONFIG = { capacity: 10, maxAttempts: 3, leaseTicks: 2, backoffBase: 1, backoffCap: 4 };
const JOB = { id: 'a', account: 'x', key: 'k1', amount: 5, deadline: 50 };

const CASES: readonly { emulator: EmulatorName; fifo: boolean; lateAck: 'ok' | 'stale_token' }[] = [
  { emulator: 'fauxqs', fifo: false, lateAck: 'ok' },
  { emulator: 'fauxqs', fifo: true, lateAck: 'ok' },
  { emulator: 'local-aws-sqs', fifo: false, lateAck: 'ok' },
  { emulator: 'local-aws-sqs', fifo: true, lateAck: 'stale_token' },
];

const opened: ProfileTarget[] = [];
afterAll(async () => {
  for (const t of opened) await t.close?.();
});

const outcome = (r: Reply): string => (r.ok ? 'ok' : r.code);

describe('SQS through each emulator', () => {
  for (const c of CASES) {
    it(`${c.emulator}, ${c.fifo ? 'FIFO' : 'standard'}: a repeat is ${c.fifo ? 'deduplicated' : 'a new message'}, a lease runs out, the late ack is ${c.lateAck}`, async () => {
      // local-aws-sqs's clock at 4 times real time here, not the profile's 20: half a tick (250 ms)
      // is the margin its timers have, which a loaded machine's timers stay within.
      const target = sqsTarget(c.emulator, c.fifo ? 'fifo' : 'standard', 4);
      opened.push(target);
      const store = await target.factory(CONFIG);
      try {
        expect(await store.execute({ type: 'submit', ...JOB, now: 0 })).toEqual({
          ok: true,
          type: 'submit',
          id: 'a',
          seq: 1,
          duplicate: false,
        });
        const repeat = await store.execute({ type: 'submit', ...JOB, now: 0 });
        expect(repeat).toEqual(
          c.fifo
            ? { ok: true, type: 'submit', id: 'a', seq: 1, duplicate: true }
            : { ok: true, type: 'submit', id: 'a', seq: 2, duplicate: false },
        );
        const first = await store.execute({ type: 'claim', worker: 'w1', now: 0 });
        expect(first).toMatchObject({ ok: true, job: { id: 'a', token: 1, attempt: 1, leaseUntil: 2 } });
        // Within the lease, the FIFO queue's group is locked; a standard queue hands out the second copy.
        const during = await store.execute({ type: 'claim', worker: 'w2', now: 1 });
        expect(during).toMatchObject(c.fifo ? { ok: true, job: null } : { ok: true, job: { id: 'a', attempt: 1 } });
        const again = await store.execute({ type: 'claim', worker: 'w3', now: 2 });
        expect(again).toMatchObject({ ok: true, job: { id: 'a', attempt: 2 } });
        expect(outcome(await store.execute({ type: 'ack', worker: 'w1', token: 1, now: 3 }))).toBe(c.lateAck);
        const snapshot = await store.snapshot();
        expect(snapshot.clock).toBe(3);
        expect(Object.keys(snapshot.jobs)).toEqual(['a']);
      } finally {
        await store.close();
      }
    }, 60_000);
  }

  it('leaves no emulator process behind once its target closes', async () => {
    const emulator = await SqsEmulator.start('fauxqs', { kind: 'stopped', ms: Date.UTC(2026, 0, 1) });
    const pid = emulator.pid ?? 0;
    expect(() => process.kill(pid, 0)).not.toThrow();
    await emulator.stop();
    expect(() => process.kill(pid, 0)).toThrow();
  }, 60_000);
});
