/**
 * The verdict merge holds every phase to what it exercised: a campaign whose runs sent no command,
 * an exploration that compared no transition, competing workers never in flight together and a
 * restore phase that could offer nothing each make an otherwise agreeing check incomplete, with
 * the phase and why, and never a pass; left out on purpose, they do not.
 */
import { describe, expect, it } from 'vitest';
import { jobStoreFactory } from '../stores/jobStore.ts';
import { runCheck } from './index.ts';
import type { CheckReport, PhaseOutcomes } from './index.ts';
import { mergeVerdict } from './verdict.ts';

const report = await runCheck({ factory: jobStoreFactory() }, { runs: 5, seed: 1 });

/** The merge's input for `report`, with `change` applied. */
const outcomes = (change: Partial<PhaseOutcomes> = {}): PhaseOutcomes => ({
  fixturesNotRun: 0,
  pathsNotRun: 0,
  campaign: report.campaign,
  exploration: report.exploration,
  explorationSkipped: false,
  restore: report.restore,
  restoreSkipped: false,
  concurrentAsked: false,
  concurrent: null,
  failure: null,
  ...change,
});

describe('mergeVerdict', () => {
  it('agrees when every phase ran, exercised something and agreed', () => {
    expect(report.verdict).toBe('agree');
    expect(mergeVerdict(outcomes())).toMatchObject({ verdict: 'agree', notAPass: null, notExercised: [] });
  });

  it('calls a campaign whose runs sent no command, and an exploration that compared no transition, not exercised', () => {
    const idle = mergeVerdict(
      outcomes({
        campaign: { ...report.campaign, commands: 0 } as CheckReport['campaign'],
        exploration: { ...(report.exploration as NonNullable<CheckReport['exploration']>), transitions: 0 },
      }),
    );
    expect(idle.verdict).toBe('incomplete');
    expect(idle.stoppedByTimeLimit).toBe(false);
    expect(idle.notExercised).toEqual([
      { phase: 'campaign', reason: 'its 5 runs sent no command' },
      { phase: 'explore', reason: 'it compared no transition' },
    ]);
    expect(idle.notAPass).toMatch(
      /^the random campaign exercised nothing: its 5 runs sent no command; the exploration/,
    );
  });

  it('calls a restore phase that offered nothing not exercised, and one left out on purpose nothing at all', () => {
    const restore = { ...(report.restore as NonNullable<CheckReport['restore']>) };
    const idle = mergeVerdict(
      outcomes({ restore: { ...restore, verdict: 'not_exercised', notExercised: 'no way in' } }),
    );
    expect(idle).toMatchObject({ verdict: 'incomplete', notExercised: [{ phase: 'restore', reason: 'no way in' }] });
    expect(mergeVerdict(outcomes({ restore: null, restoreSkipped: true })).verdict).toBe('agree');
    // Not run and not left out: the time limit came first.
    expect(mergeVerdict(outcomes({ restore: null })).stoppedByTimeLimit).toBe(true);
  });
});
