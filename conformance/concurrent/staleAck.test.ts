import { describe, expect, it } from 'vitest';
import type { Reply } from '../../contract/index.ts';
import { JobStore } from '../../impl/index.ts';
import { runConcurrentProfile, runStaleAck } from '../profile/concurrentProfile.ts';
import { renderProfileMarkdown } from '../profile/render.ts';
import { profileSchema, withConcurrent } from '../profile/result.ts';
import { emptyProfile } from '../profile/emptyProfile.ts';
import type { ProfileTarget } from '../profile/target.ts';
import { jobStoreFactory } from '../stores/jobStore.ts';
import type { ConcurrentFactory } from './adapter.ts';
import { runConcurrentCampaign } from './campaign.ts';
import { lockedJobStoreFactory } from './inProcess.ts';
import { STALE_ACK_CONFIG, staleAckScenario } from './staleAck.ts';

/**
 * A store that acknowledges by job, not by delivery (as a broker that acks a message by its
 * sequence number does): an ack with any token it ever handed out for a job is taken as an ack of
 * that job's current delivery. The deliberately broken variant the scenario must catch.
 */
const acksByJob: ConcurrentFactory = (config) => {
  const store = JobStore.create(config);
  const jobOfToken = new Map<number, string>();
  return Promise.resolve({
    name: 'acks-by-job',
    concurrent: false,
    execute(_lane: number, command: unknown): Promise<Reply> {
      const c = command as { type: string; token?: number };
      if (c.type === 'ack' && c.token !== undefined) {
        const id = jobOfToken.get(c.token);
        const current = id === undefined ? undefined : store.snapshot().jobs[id];
        if (current?.status === 'running' && current.token !== undefined)
          return Promise.resolve(store.execute({ ...c, token: current.token, worker: current.owner }));
      }
      const reply = store.execute(command);
      if (reply.ok && reply.type === 'claim' && reply.job !== null) jobOfToken.set(reply.job.token, reply.job.id);
      return Promise.resolve(reply);
    },
    snapshot: () => Promise.resolve(store.snapshot()),
    close: () => Promise.resolve(),
  });
};

const target = (concurrentFactory: ConcurrentFactory): ProfileTarget => ({
  queue: 'test',
  version: 'test',
  factory: jobStoreFactory(),
  concurrentFactory,
  declarations: {},
});

describe('the stale-acknowledgement scenario', () => {
  it('is two lanes of eight rounds, one at a time, on its own config', () => {
    const s = staleAckScenario();
    expect(s.config).toEqual(STALE_ACK_CONFIG);
    expect(s.workers).toBe(2);
    expect(s.rounds).toHaveLength(8);
    expect(s.rounds.some((r) => r.overlap === true)).toBe(false);
  });

  it('agrees with the reference store, and the campaign runs it once, unshrunk', async () => {
    const r = await runConcurrentCampaign({
      factory: lockedJobStoreFactory(),
      workers: 4,
      seed: 1,
      scenario: staleAckScenario(),
    });
    expect(r.verdict).toBe('passed');
    expect(r.runs).toBe(1);
  });

  it("catches a store that takes the old holder's ack as the new delivery's, and tells it lane by lane", async () => {
    const r = await runConcurrentCampaign({ factory: acksByJob, workers: 4, seed: 1, scenario: staleAckScenario() });
    expect(r.verdict).toBe('failed');
    expect(r.shrinks).toBe(0);
    expect(r.path).toBeNull();
    const story = r.story ?? '';
    expect(story).toContain('#5 [8->9] claim by w2');
    expect(story).toMatch(/#7 \[\d+->\d+\] ack token=1 by w1[^\n]*\n[^\n]*-> ok \(a done\)/);
    expect(story).toMatch(/#7 ack token=1 by w1[^\n]*\n\s+model:\s+stale_token/);
  });

  it('gives a profile its verdict, story, replay line and page section', async () => {
    const kept = await runStaleAck(target(lockedJobStoreFactory()), { workers: 4 });
    expect(kept).toEqual({ verdict: 'kept' });
    const line = 'npx jobcheck profile --module m.ts --workers 4 --stale-ack';
    const departs = await runStaleAck(target(acksByJob), { workers: 4, staleAckReplayCommand: line });
    expect(departs?.verdict).toBe('departs');
    expect(departs?.replay).toBe(line);
    expect(departs?.story).toContain(`reproduce: ${line}`);
    expect(departs?.story).not.toContain('seed:');

    const section = await runConcurrentProfile(target(acksByJob), { workers: 2, runs: 1, staleAck: true });
    expect(section.staleAck?.verdict).toBe('departs');
    const base = emptyProfile({ queue: 'test', version: 'test', adapter: 'acks-by-job', maxCommands: 30 });
    const profile = withConcurrent(base, { ...section, verdict: 'linearizable' });
    expect(profile.verdict).toBe('departs');
    expect(profileSchema.parse(JSON.parse(JSON.stringify(profile)))).toEqual(profile);
    const page = renderProfileMarkdown(profile);
    expect(page).toContain('### Stale acknowledgement');
    expect(page).toContain('**Verdict**: departs');
    const flaky = withConcurrent(base, { ...section, verdict: 'linearizable', staleAck: { verdict: 'flaky' } });
    expect(flaky.verdict).toBe('incomplete');
  });
});
