/**
 * The beanstalkd adapter on a real server under libfaketime: TTR expiry and release delays follow
 * the timestamp file the adapter writes, beanstalkd's job id is no fencing token (a delete from the
 * old holder settles the job after its TTR ran out), a short profile with a rule that conforms
 * and a departure that replays from its path, and competing workers (concurrent.ts): what a stale
 * acknowledgement from another lane does, a request handled at its own tick while another lane
 * moves the clock, and a concurrent campaign of four lanes. Needs a server (see beanstalkdEnv.ts):
 * in CI a missing server fails the file, elsewhere it is skipped with the command that runs it.
 * The competing workers are here, not in a file of their own, because every instance moves the
 * one clock of the server: two test files run at once would move it under each other.
 */
import { describe, expect, it } from 'vitest';
import { closingFactory } from '../closingFactory.ts';
import type { Config, Reply } from '../../contract/index.ts';
import { postgresRequired as ciRequired } from '../../conformance/postgresEnv.ts';
import { runConcurrentCampaign } from '../../conformance/concurrent/campaign.ts';
import { runProfile } from '../../conformance/profile/runProfile.ts';
import { BeanstalkdAdapter, parseAddr } from './adapter.ts';
import { BeanstalkdConnection } from './BeanstalkdConnection.ts';
import { beanstalkdMissing } from './beanstalkdEnv.ts';
import { beanstalkdConcurrentFactory } from './concurrent.ts';
import type { BeanstalkdConcurrentAdapter } from './concurrent.ts';
import { beanstalkdTarget } from './profile.ts';

const missing = beanstalkdMissing();
const CONFIG: Config = { capacity: 4, maxAttempts: 3, leaseTicks: 2, backoffBase: 3, backoffCap: 8 };
/** The shrunk run of duplicate-submit-accepted's campaign (seed 1) that departs: beanstalkd has no deduplication. */
const DUPLICATE_PATH = '5:0:0:0:4:0:2:11:11:4:4';
const SUBMIT = { type: 'submit', id: 'a', account: 'alice', key: 'a:k', amount: 7, deadline: 100 } as const;

/** The delivery of a successful claim reply (fails the test otherwise). */
function delivery(reply: Reply): { token: number; attempt: number; leaseUntil: number } {
  if (!(reply.ok && reply.type === 'claim' && reply.job !== null))
    throw new Error(`expected a delivery, got ${JSON.stringify(reply)}`);
  return reply.job;
}

if (missing !== undefined && ciRequired()) {
  describe('beanstalkd in CI', () => {
    it('has a server (the beanstalkd tests never skip in CI)', () => {
      expect.fail(`${missing}; .ci/run wraps the tests in scripts/brokers.sh`);
    });
  });
}

describe.skipIf(missing !== undefined)(
  `the beanstalkd adapter${missing === undefined ? '' : ` (skipped: ${missing})`}`,
  () => {
    it('expires a reservation when the file reaches its TTR, and reserves it again for another worker', async () => {
      const q = await BeanstalkdAdapter.create(CONFIG);
      try {
        await q.execute({ ...SUBMIT, now: 0 });
        expect(delivery(await q.execute({ type: 'claim', worker: 'w1', now: 1 }))).toMatchObject({ leaseUntil: 3 });
        expect(await q.execute({ type: 'claim', worker: 'w2', now: 2 })).toEqual({
          ok: true,
          type: 'claim',
          job: null,
        });
        expect(delivery(await q.execute({ type: 'claim', worker: 'w2', now: 3 }))).toMatchObject({
          token: 2,
          attempt: 2,
          leaseUntil: 5,
        });
        // Reserved by w2's connection: w1's delete is refused by beanstalkd itself.
        expect(await q.execute({ type: 'ack', worker: 'w1', token: 1, now: 3 })).toMatchObject({ code: 'stale_token' });
      } finally {
        await q.close();
      }
    });

    it('keeps a released job delayed until the file reaches its delay', async () => {
      const q = await BeanstalkdAdapter.create(CONFIG);
      try {
        await q.execute({ ...SUBMIT, now: 0 });
        const { token } = delivery(await q.execute({ type: 'claim', worker: 'w1', now: 0 }));
        expect(await q.execute({ type: 'fail', worker: 'w1', token, kind: 'transient', error: 'x', now: 1 })).toEqual({
          ok: true,
          type: 'fail',
          id: 'a',
          status: 'waiting',
          notBefore: 4,
        });
        expect(await q.execute({ type: 'claim', worker: 'w1', now: 3 })).toEqual({
          ok: true,
          type: 'claim',
          job: null,
        });
        expect(delivery(await q.execute({ type: 'claim', worker: 'w1', now: 4 }))).toMatchObject({ attempt: 2 });
      } finally {
        await q.close();
      }
    });

    it('lets the old holder delete the job after its TTR ran out and the same connection reserved it again: the job id is no fencing token', async () => {
      const q = await BeanstalkdAdapter.create(CONFIG);
      try {
        await q.execute({ ...SUBMIT, now: 0 });
        const first = delivery(await q.execute({ type: 'claim', worker: 'w1', now: 0 }));
        const second = delivery(await q.execute({ type: 'claim', worker: 'w1', now: 2 }));
        expect(second.token).not.toBe(first.token);
        // The contract refuses token 1 (stale_token); beanstalkd deletes the job delivery 2 holds.
        expect(await q.execute({ type: 'ack', worker: 'w1', token: first.token, now: 2 })).toEqual({
          ok: true,
          type: 'ack',
          id: 'a',
        });
        expect((await q.snapshot()).jobs['a']?.status).toBe('done');
      } finally {
        await q.close();
      }
    });

    it('profiles short: a rule that conforms, and a departure that replays from its path', async () => {
      const target = beanstalkdTarget();
      // One run of each campaign, at a path found by a full profile (seed 1): no fixtures, no shrinking.
      const conforming = await runProfile(target, {
        rules: ['admission-in-seq-order'],
        replay: { rule: 'admission-in-seq-order', path: '4' },
      });
      const admission = conforming.rules.find((r) => r.rule === 'admission-in-seq-order');
      expect(admission?.status).toBe('conforms');
      expect(admission?.commands).toBeGreaterThan(0);
      const replay = { rule: 'duplicate-submit-accepted', path: DUPLICATE_PATH } as const;
      const once = await runProfile(target, { rules: ['duplicate-submit-accepted'], replay });
      const twice = await runProfile(target, { rules: ['duplicate-submit-accepted'], replay });
      const departs = once.rules.find((r) => r.rule === 'duplicate-submit-accepted');
      expect(departs?.status).toBe('departs');
      expect(departs?.departure?.divergence).toMatchObject({ field: 'reply.seq' });
      expect(twice.rules.find((r) => r.rule === 'duplicate-submit-accepted')?.departure?.story).toBe(
        departs?.departure?.story,
      );
    });
  },
);

/** The tubes the server lists now (`list-tubes`). */
async function serverTubes(): Promise<string> {
  const { host, port } = parseAddr(process.env['JOBCHECK_BEANSTALKD_ADDR'] ?? '');
  const conn = await BeanstalkdConnection.open(host, port);
  try {
    return (await conn.send('list-tubes')).body ?? '';
  } finally {
    await conn.close();
  }
}

describe.skipIf(missing !== undefined)(
  `competing workers on beanstalkd${missing === undefined ? '' : ` (skipped: ${missing})`}`,
  () => {
    const LEASE = CONFIG.leaseTicks;

    it("refuses the old holder's ack after the TTR ran out and another worker reserved the job, but performs it when the same worker did", async () => {
      const q = await beanstalkdConcurrentFactory()(CONFIG, { workers: 2 });
      try {
        await q.execute(0, { ...SUBMIT, now: 0 });
        const first = delivery(await q.execute(0, { type: 'claim', worker: 'w1', now: 0 }));
        // The TTR has run out at tick LEASE; w2 reserves the job on lane 1 (its own connection).
        const second = delivery(await q.execute(1, { type: 'claim', worker: 'w2', now: LEASE }));
        expect(second).toMatchObject({ token: 2, attempt: 2 });
        // w1's delete goes on w1's connection, which no longer holds the reservation: NOT_FOUND.
        expect(await q.execute(0, { type: 'ack', worker: 'w1', token: first.token, now: LEASE })).toMatchObject({
          ok: false,
          code: 'stale_token',
        });
        expect((await q.snapshot()).jobs['a']).toMatchObject({ status: 'running', token: 2, owner: 'w2' });
      } finally {
        await q.close();
      }
      const same = await beanstalkdConcurrentFactory()(CONFIG, { workers: 2 });
      try {
        await same.execute(0, { ...SUBMIT, now: 0 });
        const first = delivery(await same.execute(0, { type: 'claim', worker: 'w1', now: 0 }));
        // w1 reserves the job again after its TTR ran out, from lane 1: the same connection, w1's.
        delivery(await same.execute(1, { type: 'claim', worker: 'w1', now: LEASE }));
        // The contract refuses token 1 (stale_token); beanstalkd deletes the job the second reservation holds.
        expect(await same.execute(0, { type: 'ack', worker: 'w1', token: first.token, now: LEASE })).toEqual({
          ok: true,
          type: 'ack',
          id: 'a',
        });
        expect((await same.snapshot()).jobs['a']?.status).toBe('done');
      } finally {
        await same.close();
      }
    });

    it("handles a request at its own tick while another lane's request moves the clock past the lease", async () => {
      const q = await beanstalkdConcurrentFactory()(CONFIG, { workers: 2 });
      try {
        await q.execute(0, { ...SUBMIT, now: 0 });
        const { token } = delivery(await q.execute(0, { type: 'claim', worker: 'w1', now: 0 }));
        // Both in flight at once: the fail names the lease's last tick, the claim the tick it ends on.
        const [failed, claimed] = await Promise.all([
          q.execute(0, { type: 'fail', worker: 'w1', token, kind: 'transient', error: 'x', now: LEASE - 1 }),
          q.execute(1, { type: 'claim', worker: 'w2', now: LEASE }),
        ]);
        expect(failed).toEqual({ ok: true, type: 'fail', id: 'a', status: 'waiting', notBefore: LEASE - 1 + 3 });
        expect(claimed).toEqual({ ok: true, type: 'claim', job: null });
        // A request for a tick below the one asked for since is refused, as the contract has it.
        expect(await q.execute(0, { type: 'tick', now: LEASE - 1 })).toMatchObject({ code: 'clock_regressed' });
      } finally {
        await q.close();
      }
    });

    it('runs a concurrent campaign of four lanes to a verdict and closes every instance it made', async () => {
      const { factory, made } = closingFactory<BeanstalkdConcurrentAdapter>(beanstalkdConcurrentFactory());
      const result = await runConcurrentCampaign({ factory, workers: 4, numRuns: 5, seed: 1 });
      // The plain model knows none of beanstalkd's declarations, so any verdict will do; an
      // implementation error (a crash, a hang, a missing snapshot) will not.
      // Three short runs on a wall clock may hold no two requests in flight together (seed 3 on NATS: 13
      // requests, none overlapping): not_exercised is then the honest verdict, never a pass.
      expect(['passed', 'failed', 'unknown', 'not_exercised']).toContain(result.verdict);
      expect(result.failure?.kind ?? 'none').not.toBe('impl_error');
      expect(result.adapter).toBe('beanstalkd');
      expect(made.length).toBeGreaterThan(0);
      expect(made.filter((m) => !m.closed)).toEqual([]);
      const tubes = await serverTubes();
      expect(made.map((m) => m.adapter.adapter.tube).filter((t) => tubes.includes(t))).toEqual([]);
    });
  },
);
