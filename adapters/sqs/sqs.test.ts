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
import { checkedModelOf } from '../../conformance/profile/runProfile.ts';
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

  it('FIFO: fauxqs remembers an id for 300 ticks from its send, local-aws-sqs only while its message is in the queue', async () => {
    const submit = (id: string, now: number) => ({ type: 'submit', ...JOB, deadline: 1000, id, now });
    const seqOf = (r: Reply): string =>
      r.ok && r.type === 'submit' ? `seq ${r.seq}${r.duplicate ? ' duplicate' : ''}` : outcome(r);
    const answers: Record<string, string[]> = {};
    for (const emulator of ['fauxqs', 'local-aws-sqs'] as const) {
      const target = sqsTarget(emulator, 'fifo', 4);
      opened.push(target);
      // The declared window is the model's: checkedModelOf accepts it (local-aws-sqs declares none).
      expect(() => checkedModelOf(target)).not.toThrow();
      const store = await target.factory(CONFIG);
      const seen: string[] = [];
      answers[emulator] = seen;
      try {
        seen.push(seqOf(await store.execute(submit('a', 0))));
        await store.execute({ type: 'claim', worker: 'w1', now: 0 });
        expect(outcome(await store.execute({ type: 'ack', worker: 'w1', token: 1, now: 0 }))).toBe('ok');
        // After the delete: AWS keeps tracking the id for the 5-minute interval.
        seen.push(seqOf(await store.execute(submit('a', 1))));
        if (emulator === 'fauxqs') {
          seen.push(seqOf(await store.execute(submit('b', 1))));
          for (const now of [299, 300]) seen.push(seqOf(await store.execute(submit('a', now))));
          // b was never received: its message is still in the queue when its window ends.
          seen.push(seqOf(await store.execute(submit('b', 301))));
        }
      } finally {
        await store.close();
      }
    }
    expect(answers).toEqual({
      fauxqs: ['seq 1', 'seq 1 duplicate', 'seq 2', 'seq 1 duplicate', 'seq 3', 'seq 4'],
      'local-aws-sqs': ['seq 1', 'seq 2'],
    });
    expect(sqsTarget('fauxqs', 'fifo').declarations['duplicate-submit-accepted']).toMatchObject({
      variant: 'deduplication-window:300',
    });
  }, 60_000);

  it('leaves no emulator process behind once its target closes', async () => {
    const emulator = await SqsEmulator.start('fauxqs', { kind: 'stopped', ms: Date.UTC(2026, 0, 1) });
    const pid = emulator.pid ?? 0;
    expect(() => process.kill(pid, 0)).not.toThrow();
    await emulator.stop();
    expect(() => process.kill(pid, 0)).toThrow();
  }, 60_000);
});
