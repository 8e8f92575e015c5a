/**
 * The shortest-failure choice: of the failures a check's phases found, the one whose story is
 * shown. Shorter stories are easier to read; a story that replays beats one that does not; one
 * client's story beats a race; a story of the store's behaviour (fixtures, paths, campaign,
 * exploration) beats one of the restore phase, which tells a snapshot no store writes and has no
 * artifact to replay (it is shown when nothing else was found).
 */
import type { CampaignResult } from '../random/campaign.ts';
import type { ConcurrentCampaignResult } from '../concurrent/result.ts';
import { requestCount } from '../concurrent/generate.ts';
import type { ExploreResult } from '../explore/index.ts';
import type { PathSuiteResult } from '../paths/pathSuite.ts';
import type { CheckFailure } from './failure.ts';
import type { RestorePhaseResult } from '../restore/index.ts';
import type { FixtureOutcome } from './fixturePhase.ts';

/** The failures of a check's phases, as shortestFailure weighs them. */
export interface FailureCandidates {
  readonly fixtures: readonly FixtureOutcome[];
  readonly paths: PathSuiteResult;
  readonly campaign: CampaignResult;
  readonly exploration: ExploreResult | null;
  readonly concurrent: ConcurrentCampaignResult | null;
  /** The restore phase (optional: a caller from before it weighs none). */
  readonly restore?: RestorePhaseResult | null;
}

/**
 * Every failure found, in the order that breaks ties: concurrent, exploration, campaign, paths,
 * fixtures, restore (a story of the behaviour first, then one of a snapshot no store writes). Pure.
 */
export function failureCandidates(found: FailureCandidates): CheckFailure[] {
  const { fixtures, paths, campaign, exploration, concurrent } = found;
  const candidates: CheckFailure[] = [];
  const race = concurrent?.failure;
  if (concurrent !== null && race !== undefined && race !== null) {
    const requests = race.run === null ? 0 : requestCount(race.run.rounds);
    candidates.push({
      kind: 'race',
      source: 'concurrent',
      name: 'concurrent campaign',
      steps: requests,
      concurrent,
      race,
    });
  }
  for (const c of exploration?.configs ?? []) {
    const x = c.counterexample;
    if (x === null) continue;
    const name = `exploration ${c.part}/${c.name}`;
    // A divergence that a second run of its steps did not show again is told, not replayed: its
    // run agrees, so an artifact of it would replay as a pass.
    if (x.run !== undefined && x.run.divergence !== null)
      candidates.push({ kind: 'divergence', source: 'explore', name, steps: x.run.steps.length, run: x.run });
    else candidates.push({ kind: 'unrepeated', source: 'explore', name, steps: x.path.length, story: x.story });
  }
  if (campaign.counterexample !== null) {
    const run = campaign.counterexample;
    candidates.push({ kind: 'divergence', source: 'campaign', name: 'random campaign', steps: run.steps.length, run });
  }
  for (const f of paths.failures)
    candidates.push({
      kind: 'divergence',
      source: 'path',
      name: f.path.name,
      steps: f.result.steps.length,
      run: f.result,
    });
  for (const f of fixtures) {
    if (!f.result.ok) {
      const steps = f.result.step === 'final' ? f.fixture.steps.length : f.result.step;
      candidates.push({ kind: 'fixture', source: 'fixture', name: f.fixture.name, steps, fixture: f });
    }
  }
  const restore = found.restore;
  if (restore !== null && restore !== undefined && restore.verdict === 'diverge') {
    const outcome = restore.outcomes.find((o) => !o.ok) ?? null;
    // Restore the base, offer the snapshot; a store changed by its refusal adds the snapshot read after it.
    const steps =
      outcome === null ? (restore.setup?.changed === undefined ? 1 : 2) : outcome.changed === undefined ? 2 : 3;
    const name = outcome === null ? 'restore of a valid snapshot' : `restore ${outcome.snapshot.name}`;
    candidates.push({ kind: 'restore', source: 'restore', name, steps, restore, outcome });
  }
  return candidates;
}

/**
 * The shortest of the failures found with at least one step; ties go to the one found first in
 * failureCandidates' order (the campaign's story before a path's: it is shrunk). Pure.
 */
export function shortestFailure(found: FailureCandidates): CheckFailure | null {
  let candidates = failureCandidates(found);
  // A failure before the first step (a store that could not even be started) cannot be replayed
  // and shows less than any story with a step: it is shown only when it is the only kind found.
  // A story that did not repeat cannot be replayed either: it too is shown only when nothing else was found.
  // A restore story comes after every story of the behaviour, whatever their lengths.
  const rank = (f: CheckFailure): number =>
    f.steps === 0 || f.kind === 'unrepeated'
      ? Number.POSITIVE_INFINITY
      : f.kind === 'restore'
        ? Number.MAX_SAFE_INTEGER
        : f.steps;
  // A race is told only when no sequential story was found: one client's story is the simpler one.
  const sequential = candidates.filter((c) => c.kind !== 'race');
  if (sequential.length > 0) candidates = sequential;
  let best: CheckFailure | null = null;
  for (const c of candidates) if (best === null || rank(c) < rank(best)) best = c;
  return best;
}
