/**
 * The campaign of a check that left it out on purpose (`concurrent.when: 'only'`): no run planned,
 * none run. It agrees vacuously, as the campaign of a shard without fixture stories does for what
 * it leaves out; the report's `concurrentWhen` says the sequential phases were left out.
 */
import { emptyCoverage } from '../coverage/coverage.ts';
import type { CampaignResult } from '../random/campaign.ts';

/** A campaign with no run planned and none run, for `seed`. Pure. */
export function leftOutCampaign(seed: number): CampaignResult {
  return {
    verdict: 'agree',
    runsPlanned: 0,
    stoppedByTimeLimit: false,
    adapter: '(left out)',
    seed,
    path: null,
    runs: 0,
    shrinks: 0,
    commands: 0,
    commandsDiscarded: 0,
    commandsToFirstFailure: null,
    firstFailureMs: null,
    durationMs: 0,
    shrinkMs: 0,
    counterexample: null,
    firstFailureLength: null,
    coverage: emptyCoverage(),
    story: null,
  };
}
