import { describe, expect, it } from 'vitest';
import { CONCURRENT_BROKEN_VARIANTS } from '../../conformance/broken/concurrent/index.ts';
import { runConcurrentCampaign } from '../../conformance/concurrent/campaign.ts';
import type { ConcurrentFactory } from '../../conformance/concurrent/adapter.ts';
import { lockedJobStoreFactory } from '../../conformance/concurrent/inProcess.ts';
import { concurrentLine } from './phaseLines.ts';

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
