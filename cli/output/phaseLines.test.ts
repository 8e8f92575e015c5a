import { describe, expect, it } from 'vitest';
import { CONCURRENT_BROKEN_VARIANTS } from '../../conformance/broken/index.ts';
import { runConcurrentCampaign } from '../../conformance/concurrent/campaign.ts';
import type { ConcurrentFactory } from '../../conformance/concurrent/adapter.ts';
import { lockedJobStoreFactory, sequentialFactory } from '../../conformance/concurrent/inProcess.ts';
import { runCheck } from '../../conformance/check/index.ts';
import type { CheckReport } from '../../conformance/check/index.ts';
import { jobStoreFactory } from '../../conformance/stores/jobStore.ts';
import { concurrentLine } from './phaseLines.ts';
import { campaignText, explorationText, restoreText } from './phaseText.ts';

/**
 * The concurrent campaign's line of the summary names what failed: a history no order of the
 * model explains, an implementation that failed on a request, or one that could not be created
 * (which ran no request, so nothing was shrunk). Each from a real campaign.
 */
describe('concurrentLine', () => {
  it('says the implementation could not be created, and nothing about a history or shrinking', async () => {
    const failing: ConcurrentFactory = () => Promise.reject(new Error('no store today'));
    const r = await runConcurrentCampaign({ factory: failing, workers: 2, numRuns: 5, seed: 7 });
    expect(concurrentLine(r)).toBe('1 run of 2 workers, seed 7: the implementation could not be created');
  });

  it('says the implementation failed when a request of a lane failed, with what shrinking kept', async () => {
    const thrower: ConcurrentFactory = async (config, o) => {
      const inner = await lockedJobStoreFactory()(config, o);
      return { ...inner, name: 'thrower', execute: () => Promise.reject(new Error('store exploded')) };
    };
    const r = await runConcurrentCampaign({ factory: thrower, workers: 2, numRuns: 5, seed: 7 });
    expect(r.failure?.kind).toBe('impl_error');
    expect(concurrentLine(r)).toMatch(
      /^1 run of 2 workers, seed 7: the implementation failed \(a request of a lane, or the final snapshot\), shrunk from \d+ requests? to \d+ requests?$/,
    );
  });

  it('says a history no order of the model explains for a race', async () => {
    const variant = CONCURRENT_BROKEN_VARIANTS[0];
    if (variant === undefined) throw new Error('no concurrent broken variant');
    const r = await runConcurrentCampaign({ factory: variant.factory, workers: 4, numRuns: 2000, seed: 7 });
    expect(r.failure?.kind).toBe('not_linearizable');
    expect(r.stoppedByTimeLimit).toBe(false);
    expect(concurrentLine(r)).toMatch(
      /^\d+ runs? of 4 workers, seed 7: a history no order of the model explains, shrunk from \d+ requests? to \d+ requests?$/,
    );
    // The same failure, had the time limit stopped its shrinking, says so.
    expect(concurrentLine({ ...r, stoppedByTimeLimit: true })).toMatch(
      /, shrunk from \d+ requests? to \d+ requests? \(shrinking stopped by the time limit\)$/,
    );
  });
});

/**
 * A pass says what it exercised, and a phase that exercised nothing says NOT EXERCISED, never
 * that it agrees: the lines of the summary, from real outcomes changed where noted.
 */
describe('the lines of a pass and of a phase that exercised nothing', () => {
  it('count the overlap of competing workers that passed, and say NOT EXERCISED for sequential ones', async () => {
    const busy = await runConcurrentCampaign({ factory: lockedJobStoreFactory(), workers: 4, numRuns: 10, seed: 7 });
    expect(concurrentLine(busy)).toMatch(
      /^10 runs of 4 workers, seed 7: every history linearizable; \d+ of \d+ requests in flight together with another \(\d+ overlapping pairs?: claim\+claim \d+, settle at lease end\+claim \d+, claim at an expiry \d+, submit\+submit \d+, commit\+commit of one job \d+\)$/,
    );
    const idle = await runConcurrentCampaign({
      factory: sequentialFactory(jobStoreFactory()),
      workers: 4,
      numRuns: 10,
      seed: 7,
    });
    expect(concurrentLine(idle)).toMatch(
      /^10 runs of 4 workers, seed 7: NOT EXERCISED \(not a concurrency pass\): the implementation takes one request at a time/,
    );
    expect(concurrentLine(idle)).not.toMatch(/linearizable/);
  });

  it('say NOT EXERCISED for a campaign that sent no command, an exploration that compared none, a restore that offered none', async () => {
    const report = await runCheck({ factory: jobStoreFactory() }, { runs: 3, seed: 1 });
    const x = report.exploration as NonNullable<CheckReport['exploration']>;
    const r = report.restore as NonNullable<CheckReport['restore']>;
    expect(campaignText(report.campaign, 1, undefined)).toMatch(/^3 runs, \d+ commands, seed 1: agree$/);
    expect(campaignText({ ...report.campaign, commands: 0 }, 1, undefined)).toBe(
      '3 runs, 0 commands, seed 1: NOT EXERCISED: its runs sent no command',
    );
    expect(explorationText(x, undefined)).toMatch(/: every transition agrees$/);
    expect(explorationText({ ...x, transitions: 0 }, undefined)).toMatch(/: NOT EXERCISED: it compared no transition$/);
    expect(restoreText(r, undefined)).toMatch(
      /^\d+ invalid snapshots offered, each refused with invalid_snapshot and the store left as it was; 16\/16 kinds of refusal$/,
    );
    expect(restoreText({ ...r, verdict: 'not_exercised', notExercised: 'no way in', outcomes: [] }, undefined)).toBe(
      'NOT EXERCISED: no way in',
    );
  });
});
