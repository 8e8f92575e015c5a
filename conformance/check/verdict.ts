/**
 * The verdict merge: what the phases of a check add up to. A check agrees only when every phase it
 * was asked to run ran in full and agreed; any failure makes it diverge; anything else (the time
 * limit, a concurrent history the checker could not decide, a replayed path whose runs all agree)
 * is `incomplete`, which is never a pass.
 */
import type { CampaignResult } from '../random/campaign.ts';
import type { ConcurrentCampaignResult } from '../concurrent/result.ts';
import type { ExploreResult } from '../explore/index.ts';
import type { CheckFailure } from './failure.ts';

/** A check's verdict. */
export type CheckVerdict = 'agree' | 'diverge' | 'incomplete';

/** What the phases of a check did, as the merge needs it. */
export interface PhaseOutcomes {
  /** Fixture stories and paths the time limit kept from running. */
  readonly fixturesNotRun: number;
  readonly pathsNotRun: number;
  readonly campaign: CampaignResult;
  /** The exploration, null when it did not run; `explorationSkipped` when that was on purpose (or another shard's). */
  readonly exploration: ExploreResult | null;
  readonly explorationSkipped: boolean;
  /** Whether this check was to run competing workers (asked for, and in shard 1), and what they found. */
  readonly concurrentAsked: boolean;
  readonly concurrent: ConcurrentCampaignResult | null;
  /** The counterexample paths the check was asked to replay instead of whole campaigns. */
  readonly path?: string | undefined;
  readonly concurrentPath?: string | undefined;
  /** The shortest failure found, if any. */
  readonly failure: CheckFailure | null;
}

/** The merged verdict, and why it is not a pass when it is incomplete. */
export interface MergedVerdict {
  readonly verdict: CheckVerdict;
  readonly stoppedByTimeLimit: boolean;
  /** Set when the check is incomplete because a replayed path's runs all agreed, not because of the time limit. */
  readonly notAPass: string | null;
}

/** Merges the phases' outcomes into the check's verdict. Pure. */
export function mergeVerdict(o: PhaseOutcomes): MergedVerdict {
  const explorationComplete =
    o.explorationSkipped || (o.exploration !== null && o.exploration.verdict !== 'incomplete');
  // A concurrent campaign whose checker ran out of budget on some history (`unknown`) did not pass either.
  const concurrentComplete =
    !o.concurrentAsked || o.concurrent?.verdict === 'passed' || o.concurrent?.verdict === 'failed';
  const stoppedByTimeLimit =
    o.fixturesNotRun > 0 ||
    o.pathsNotRun > 0 ||
    o.campaign.stoppedByTimeLimit ||
    !explorationComplete ||
    o.concurrent?.stoppedByTimeLimit === true ||
    (o.concurrentAsked && o.concurrent === null);
  // A replayed path stands in for a whole campaign: runs of it that all agree are not that campaign's pass.
  const replays = [
    o.path !== undefined && o.campaign.verdict === 'agree' ? `--path ${o.path}` : null,
    o.concurrentPath !== undefined && o.concurrent?.verdict === 'passed'
      ? `--concurrent-path ${o.concurrentPath}`
      : null,
  ].filter((r): r is string => r !== null);
  const notAPass =
    replays.length === 0
      ? null
      : `the runs named by ${replays.join(' and ')} all agree, so the campaign they stand for did not run ` +
        '(a fixed bug, or a path that names another run); run without it for a full check';
  const complete =
    o.fixturesNotRun === 0 &&
    o.pathsNotRun === 0 &&
    o.campaign.verdict !== 'incomplete' &&
    explorationComplete &&
    concurrentComplete &&
    notAPass === null;
  return {
    verdict: o.failure !== null ? 'diverge' : complete ? 'agree' : 'incomplete',
    stoppedByTimeLimit,
    notAPass: o.failure === null && !stoppedByTimeLimit ? notAPass : null,
  };
}
