/**
 * The verdict merge: what the phases of a check add up to. A check agrees only when every phase it
 * was asked to run ran in full, exercised something and agreed; any failure makes it diverge;
 * anything else (the time limit, a concurrent history the checker could not decide, a replayed
 * path whose runs all agree, a phase that exercised nothing) is `incomplete`, which is never a pass.
 *
 * A phase exercised nothing when it ran and could not have failed: competing workers whose
 * requests were never in flight together (an implementation that takes one at a time), a restore
 * phase that could offer no snapshot, a campaign whose runs sent no command, an exploration that
 * compared no transition. Such a check says so (`notExercised`, and `notAPass` in words) and exits
 * as incomplete: the phases that ran agree, but a badge must not say that what was asked was checked.
 */
import type { CampaignResult } from '../random/campaign.ts';
import type { ConcurrentCampaignResult } from '../concurrent/result.ts';
import type { ExploreResult } from '../explore/index.ts';
import type { RestorePhaseResult } from '../restore/index.ts';
import type { CheckFailure } from './failure.ts';
import type { CheckPhase } from './phaseStop.ts';

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
  /** The restore phase, null when it did not run; `restoreSkipped` when that was on purpose (or another shard's). */
  readonly restore: RestorePhaseResult | null;
  readonly restoreSkipped: boolean;
  /** Whether this check was to run competing workers (asked for, and in shard 1), and what they found. */
  readonly concurrentAsked: boolean;
  readonly concurrent: ConcurrentCampaignResult | null;
  /** The counterexample paths the check was asked to replay instead of whole campaigns. */
  readonly path?: string | undefined;
  readonly concurrentPath?: string | undefined;
  /** The shortest failure found, if any. */
  readonly failure: CheckFailure | null;
}

/** A phase that ran and exercised nothing, and why. */
export interface PhaseNotExercised {
  readonly phase: CheckPhase;
  readonly reason: string;
}

/** The merged verdict, and why it is not a pass when it is incomplete. */
export interface MergedVerdict {
  readonly verdict: CheckVerdict;
  readonly stoppedByTimeLimit: boolean;
  /**
   * Set when the check is incomplete although the time limit did not stop it: a replayed path's
   * runs all agreed, or a phase exercised nothing (`notExercised`).
   */
  readonly notAPass: string | null;
  /** The phases that ran and exercised nothing, in the order they run; empty when every phase that ran exercised something. */
  readonly notExercised: readonly PhaseNotExercised[];
}

/** The same words for a phase as the summary uses. */
const PHASE_NAMES: Record<CheckPhase, string> = {
  fixtures: 'the fixture stories',
  restore: 'the restore phase',
  paths: 'the path suite',
  campaign: 'the random campaign',
  explore: 'the exploration',
  concurrent: 'the competing workers',
};

/** The phases that ran and exercised nothing (see the file's header). Pure. */
export function phasesNotExercised(o: PhaseOutcomes): PhaseNotExercised[] {
  const out: PhaseNotExercised[] = [];
  if (o.restore?.verdict === 'not_exercised')
    out.push({ phase: 'restore', reason: o.restore.notExercised ?? 'no snapshot could be offered' });
  if (o.campaign.verdict === 'agree' && o.campaign.runs > 0 && o.campaign.commands === 0)
    out.push({ phase: 'campaign', reason: `its ${o.campaign.runs} runs sent no command` });
  const x = o.exploration;
  if (x !== null && x.verdict === 'complete' && x.transitions === 0)
    out.push({ phase: 'explore', reason: 'it compared no transition' });
  if (o.concurrent?.verdict === 'not_exercised')
    out.push({ phase: 'concurrent', reason: o.concurrent.notExercised ?? 'no two requests were in flight together' });
  return out;
}

/** Merges the phases' outcomes into the check's verdict. Pure. */
export function mergeVerdict(o: PhaseOutcomes): MergedVerdict {
  const explorationComplete =
    o.explorationSkipped || (o.exploration !== null && o.exploration.verdict !== 'incomplete');
  const restoreComplete = o.restoreSkipped || (o.restore !== null && o.restore.verdict !== 'incomplete');
  // A concurrent campaign whose checker ran out of budget on some history (`unknown`) did not pass
  // either, nor one that was not exercised (which notExercised tells).
  const concurrentComplete =
    !o.concurrentAsked ||
    o.concurrent?.verdict === 'passed' ||
    o.concurrent?.verdict === 'failed' ||
    o.concurrent?.verdict === 'not_exercised';
  const notExercised = phasesNotExercised(o);
  const stoppedByTimeLimit =
    o.fixturesNotRun > 0 ||
    o.pathsNotRun > 0 ||
    o.campaign.stoppedByTimeLimit ||
    !explorationComplete ||
    !restoreComplete ||
    o.concurrent?.stoppedByTimeLimit === true ||
    (o.concurrentAsked && o.concurrent === null);
  // A replayed path stands in for a whole campaign: runs of it that all agree are not that campaign's pass.
  const replays = [
    o.path !== undefined && o.campaign.verdict === 'agree' ? `--path ${o.path}` : null,
    o.concurrentPath !== undefined && o.concurrent?.verdict === 'passed'
      ? `--concurrent-path ${o.concurrentPath}`
      : null,
  ].filter((r): r is string => r !== null);
  const replayed =
    replays.length === 0
      ? null
      : `the runs named by ${replays.join(' and ')} all agree, so the campaign they stand for did not run ` +
        '(a fixed bug, or a path that names another run); run without it for a full check';
  const idle =
    notExercised.length === 0
      ? null
      : `${notExercised.map((n) => `${PHASE_NAMES[n.phase]} exercised nothing: ${n.reason}`).join('; ')}; what ran agrees, but that part of the check did not happen`;
  const notAPass = [replayed, idle].filter((x): x is string => x !== null).join('; ') || null;
  const complete =
    o.fixturesNotRun === 0 &&
    o.pathsNotRun === 0 &&
    o.campaign.verdict !== 'incomplete' &&
    explorationComplete &&
    restoreComplete &&
    concurrentComplete &&
    notAPass === null;
  return {
    verdict: o.failure !== null ? 'diverge' : complete ? 'agree' : 'incomplete',
    stoppedByTimeLimit,
    notAPass: o.failure === null && !stoppedByTimeLimit ? notAPass : null,
    notExercised,
  };
}
