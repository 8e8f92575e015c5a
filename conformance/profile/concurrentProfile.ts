/**
 * `runConcurrentProfile`: competing workers against a profiled queue. A concurrent campaign
 * (conformance/concurrent/campaign.ts) runs with the target's `concurrentFactory` (lanes that are
 * separate connections, channels or clients), checks each history for linearizability against the
 * model with the target's declared variants in place (checkedModelOf), and generates only
 * scenarios clear of the rules the target declares unsupported (concurrentRestriction.ts), lest a
 * queue's first story be the rule it already says it lacks.
 *
 * As in runProfile, a failure on a wall clock is replayed (its seed and path, unshrunk) REPLAYS
 * times on fresh instances and counts only if it fails again REPLAYS_NEEDED times; otherwise the
 * verdict is `flaky`, with the story and the count. A logical-clock target is not replayed.
 *
 * A queue that departs one command at a time departs with competing workers too, with stories that
 * say nothing the rules do not. So the profile also searches for races (runRaceSearch): the same
 * campaign, letting pass every history whose requests never overlapped and every one that departs
 * as well when sent again one at a time (oneAtATime.ts). And since random scenarios reach the stale
 * acknowledgement only now and then, every queue is also asked that question the same way
 * (runStaleAck: conformance/concurrent/staleAck.ts through the same campaign, checker and replays).
 * Every store goes through the profile's BrokerWatch: a search that meets a lost broker is `unknown`.
 */
import type { Budget } from '../budget.ts';
import { runConcurrentCampaign } from '../concurrent/campaign.ts';
import type { ConcurrentCampaignOptions } from '../concurrent/campaign.ts';
import type { ConcurrentCampaignResult, NotLinearizable } from '../concurrent/result.ts';
import { renderConcurrentStory } from '../concurrent/story.ts';
import { concurrentRestrictionOf } from './concurrentRestriction.ts';
import type { ConcurrentRestriction } from './concurrentRestriction.ts';
import type { ScenarioRestriction } from '../concurrent/restriction.ts';
import type { CheckedModel } from '../lockstep/index.ts';
import { departsOneAtATime, inFlightTogether } from './oneAtATime.ts';
import type { ConcurrentSection, RaceSection, StaleAckSection } from './result.ts';
import { staleAckScenario } from '../concurrent/staleAck.ts';
import type { ConcurrentScenario } from '../concurrent/generate.ts';
import { REPLAYS, REPLAYS_NEEDED, checkedModelOf } from './runProfile.ts';
import type { ProfileTarget } from './target.ts';
import { BrokerWatch } from './brokerWatch.ts';

/** Default scenarios of a profile's concurrent campaign. */
export const DEFAULT_CONCURRENT_PROFILE_RUNS = 30;

/** Options of runConcurrentProfile. */
export interface ConcurrentProfileOptions {
  /** Most worker lanes of a scenario (2 or more to compete). */
  readonly workers: number;
  /** Scenarios to generate (default DEFAULT_CONCURRENT_PROFILE_RUNS). */
  readonly runs?: number;
  /** fast-check seed (default 1: profiles are repeatable). */
  readonly seed?: number;
  /** fast-check path of a known failure (with `seed` and `workers`): replays exactly that scenario. */
  readonly path?: string;
  readonly budget?: Budget;
  /** Most rounds per scenario (default the campaign's). */
  readonly maxRounds?: number;
  /** The reply timeout of the implementation in ms (default the campaign's). */
  readonly timeoutMs?: number;
  /** The command that replays the failure at `path` (default: the library call). */
  readonly replayCommand?: (path: string) => string;
  /** Also search for races (runRaceSearch), unless `path` replays one run. */
  readonly races?: boolean;
  /** runRaceSearch: the fast-check path of a race to replay (with `seed` and `workers`). */
  readonly racePath?: string;
  /** runRaceSearch: the command that replays the race at `path`. */
  readonly raceReplayCommand?: (path: string) => string;
  /** Also run the stale-acknowledgement scenario (runStaleAck), unless `path` replays one run. */
  readonly staleAck?: boolean;
  /** runStaleAck: the command that runs it again. */
  readonly staleAckReplayCommand?: string;
  /** The watch on the broker, when the profile shares it with its rules (default: one of its own). */
  readonly watch?: BrokerWatch;
}

/** What one search found, before it is named as a concurrent verdict or a race verdict. */
type Search =
  | { readonly found: 'nothing'; readonly runsDone: number; readonly excused: number; readonly adapter: string }
  | { readonly found: 'time_limit'; readonly runsDone: number; readonly excused: number; readonly adapter: string }
  | {
      readonly found: 'unknown';
      readonly runsDone: number;
      readonly excused: number;
      readonly adapter: string;
      readonly reason: string;
      readonly story?: string;
      readonly path?: string;
      readonly replay?: string;
    }
  | {
      readonly found: 'failure' | 'flaky';
      readonly runsDone: number;
      readonly excused: number;
      readonly adapter: string;
      readonly story: string;
      readonly path: string;
      readonly replay: string;
      readonly replays?: { readonly runs: number; readonly departed: number };
    };

/**
 * One campaign of competing workers against the target (a search, or the replay of `path`), with
 * `excuse` letting histories pass (the search for races), and, on a wall clock, the failure
 * replayed REPLAYS more times (each replay excused the same way). Returns undefined for a target
 * that cannot be run so (no concurrent factory, a nondeterministic variant), with `notRun` saying why.
 */
async function search(
  target: ProfileTarget,
  { checked, restriction, watch }: Prepared,
  options: ConcurrentProfileOptions,
  how: SearchHow,
): Promise<Search | { readonly notRun: string }> {
  const { path, replayCommand, excuse, scenario } = how;
  const seed = options.seed ?? 1;
  const runs = path === undefined && scenario === undefined ? (options.runs ?? DEFAULT_CONCURRENT_PROFILE_RUNS) : 1;
  const factory = target.concurrentFactory;
  if (factory === undefined)
    return {
      notRun: `${target.queue}'s profile target has no concurrentFactory: its queue is profiled one command at a time only.`,
    };
  if (checked.choose !== undefined)
    return {
      notRun:
        'a declared variant is nondeterministic (it takes its choice from the reply observed), which the linearizability checker cannot follow yet.',
    };
  const lostSearch = (runsDone: number): Search => ({
    found: 'unknown',
    runsDone,
    excused: 0,
    adapter: target.queue,
    reason: `the broker was lost: ${watch.reason ?? 'it stopped answering'}`,
  });
  if (watch.lost !== undefined) return lostSearch(0);
  const watched = watch.run();
  const campaign = (at: string | undefined): Promise<ConcurrentCampaignResult> => {
    const o: ConcurrentCampaignOptions = {
      factory: watched.concurrentFactory(factory),
      workers: options.workers,
      numRuns: runs,
      seed,
      model: checked.model,
      restriction,
      // A replay of a given path stops at it; a search shrinks what it finds.
      ...(at === undefined ? {} : { path: at, endOnFailure: true }),
      ...(excuse === undefined ? {} : { excuse }),
      ...(scenario === undefined ? {} : { scenario }),
      ...(options.budget === undefined ? {} : { budget: options.budget }),
      ...(options.maxRounds === undefined ? {} : { maxRounds: options.maxRounds }),
      ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
    };
    return runConcurrentCampaign(o);
  };
  const result = await campaign(path);
  if (watched.lost || watch.lost !== undefined) return lostSearch(result.runs);
  const common = { runsDone: result.runs, excused: result.excusedRuns, adapter: result.adapter };
  switch (result.verdict) {
    case 'passed':
      return { ...common, found: 'nothing' };
    case 'time_limit':
      return { ...common, found: 'time_limit' };
    case 'unknown':
      return {
        ...common,
        found: 'unknown',
        reason: `the checker's budget ran out (${result.firstUnknown?.reason ?? 'unknown'}) on ${result.unknownRuns} history(ies) and none failed.`,
      };
    case 'not_exercised':
      // Sequential histories cannot show a race: finding none there is not "nothing found".
      return {
        ...common,
        found: 'unknown',
        reason: `no two requests were in flight together: ${result.notExercised}.`,
      };
    case 'failed':
      break;
  }
  const failure = result.failure;
  const at = result.path ?? path ?? '';
  const replay =
    replayCommand?.(at) ??
    (scenario === undefined
      ? `runConcurrentProfile(target, { workers: ${options.workers}, seed: ${seed}, path: '${at}' })`
      : `runStaleAck(target, { workers: ${options.workers} })`);
  if (failure === null)
    return { ...common, found: 'unknown', reason: 'the campaign failed without a failure to tell.' };
  const story = renderConcurrentStory(failure, {
    adapter: result.adapter,
    workers: options.workers,
    // A fixed scenario is named by its command alone: no seed or path draws it.
    ...(scenario === undefined ? { seed, path: at } : {}),
    reproduceCommand: replay,
    model: checked.model,
    ...(restriction.ignoreFields === undefined ? {} : { ignoreFields: restriction.ignoreFields }),
  });
  const told = { ...common, story, path: at, replay };
  if (failure.kind === 'impl_error')
    return { ...told, found: 'unknown', reason: `the adapter failed: ${failure.error}` };
  if (target.clock?.kind !== 'wall') return { ...told, found: 'failure' };
  let departed = 0;
  for (let i = 0; i < REPLAYS; i++) {
    if (options.budget?.expired === true) break;
    const again = await campaign(scenario === undefined ? at : undefined);
    if (watched.lost) return lostSearch(result.runs);
    if (again.verdict === 'failed' && again.failure?.kind === 'not_linearizable') departed += 1;
  }
  return {
    ...told,
    found: departed >= REPLAYS_NEEDED ? 'failure' : 'flaky',
    replays: { runs: REPLAYS, departed },
  };
}

/** What one search runs: generated scenarios (or the one at `path`), or one fixed `scenario`; `excuse` lets histories pass. */
interface SearchHow {
  readonly path?: string | undefined;
  readonly replayCommand?: ((path: string) => string) | undefined;
  readonly excuse?: (failure: NotLinearizable) => Promise<boolean>;
  readonly scenario?: ConcurrentScenario;
}

/** What a target's declarations make of competing workers: the model checked against, and what the scenarios avoid. */
interface Prepared {
  readonly checked: CheckedModel;
  readonly watch: BrokerWatch;
  readonly restriction: ScenarioRestriction;
  readonly avoided: ConcurrentRestriction['avoided'];
}

/** The target's checked model and restriction, and the watch on its broker; throws ProfileError for a bad declaration. */
function prepare(target: ProfileTarget, options: ConcurrentProfileOptions): Prepared {
  return {
    checked: checkedModelOf(target),
    watch: options.watch ?? new BrokerWatch(options.budget),
    ...concurrentRestrictionOf(target),
  };
}

/**
 * Competing workers' search for races (see RaceSection): the campaign, letting pass every history
 * whose requests never overlapped, and every one whose requests, sent one at a time in the order
 * they were sent or in the closest order to a fresh instance of the target's sequential factory,
 * depart as well. Returns
 * undefined when the target cannot be run with competing workers. Never throws for what the queue
 * does; throws ProfileError for a bad declaration.
 */
export function runRaceSearch(
  target: ProfileTarget,
  options: ConcurrentProfileOptions,
): Promise<RaceSection | undefined> {
  return raceSearch(target, prepare(target, options), options);
}

async function raceSearch(
  target: ProfileTarget,
  prepared: Prepared,
  options: ConcurrentProfileOptions,
): Promise<RaceSection | undefined> {
  const { checked, restriction, watch } = prepared;
  // A history whose requests never overlapped is sequential, whatever it shows (the section of
  // competing workers tells it); one that departs one request at a time too is the rules' business.
  const excuse = async (failure: NotLinearizable): Promise<boolean> =>
    !inFlightTogether(failure) ||
    (await departsOneAtATime(watch.run().factory(target.factory), failure, {
      model: checked.model,
      ...(restriction.ignoreFields === undefined ? {} : { ignoreFields: restriction.ignoreFields }),
      ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
    })) === 'departs';
  const runs = options.racePath === undefined ? (options.runs ?? DEFAULT_CONCURRENT_PROFILE_RUNS) : 1;
  const s = await search(target, prepared, options, {
    path: options.racePath,
    replayCommand: options.raceReplayCommand,
    excuse,
  });
  if ('notRun' in s) return undefined;
  const base = { runs, runsDone: s.runsDone, oneAtATime: s.excused };
  switch (s.found) {
    case 'nothing':
      return { ...base, verdict: 'none_found' };
    case 'time_limit':
      return { ...base, verdict: 'budget_exhausted' };
    case 'unknown': {
      const { found: _f, runsDone: _r, excused: _e, adapter: _a, ...rest } = s;
      return { ...base, ...rest, verdict: 'unknown' };
    }
    case 'failure':
    case 'flaky': {
      const { found, runsDone: _r, excused: _e, adapter: _a, ...rest } = s;
      return { ...base, ...rest, verdict: found === 'failure' ? 'race' : 'flaky' };
    }
  }
}

/**
 * The stale-acknowledgement race (conformance/concurrent/staleAck.ts) against the target's
 * competing workers: one fixed scenario, checked against the model with the declared variants and
 * the target's restriction applied; on a wall clock a departure counts only if it departs again on
 * REPLAYS_NEEDED of REPLAYS replays. Returns undefined when the target cannot be run with competing
 * workers. Never throws for what the queue does; throws ProfileError for a bad declaration.
 */
export function runStaleAck(
  target: ProfileTarget,
  options: ConcurrentProfileOptions,
): Promise<StaleAckSection | undefined> {
  return staleAckRun(target, prepare(target, options), options);
}

async function staleAckRun(
  target: ProfileTarget,
  prepared: Prepared,
  options: ConcurrentProfileOptions,
): Promise<StaleAckSection | undefined> {
  const replayCommand = options.staleAckReplayCommand;
  const s = await search(target, prepared, options, {
    scenario: staleAckScenario(),
    ...(replayCommand === undefined ? {} : { replayCommand: () => replayCommand }),
  });
  if ('notRun' in s) return undefined;
  switch (s.found) {
    case 'nothing':
      return { verdict: 'kept' };
    case 'time_limit':
      return { verdict: 'budget_exhausted' };
    case 'unknown':
      return {
        verdict: 'unknown',
        reason: s.reason,
        ...(s.story === undefined ? {} : { story: s.story }),
        ...(s.replay === undefined ? {} : { replay: s.replay }),
      };
    case 'failure':
    case 'flaky':
      return {
        verdict: s.found === 'failure' ? 'departs' : 'flaky',
        story: s.story,
        replay: s.replay,
        ...(s.replays === undefined ? {} : { replays: s.replays }),
      };
  }
}

/**
 * Runs competing workers against a ProfileTarget and returns the profile's concurrent section;
 * with `races` (and no `path`), the search for races too (runRaceSearch). Never throws for what the
 * queue does; throws ProfileError for a bad declaration or a declared-unsupported rule the
 * scenarios cannot avoid.
 */
export async function runConcurrentProfile(
  target: ProfileTarget,
  options: ConcurrentProfileOptions,
): Promise<ConcurrentSection> {
  const seed = options.seed ?? 1;
  const runs = options.path === undefined ? (options.runs ?? DEFAULT_CONCURRENT_PROFILE_RUNS) : 1;
  const prepared = prepare(target, options);
  const base = { workers: options.workers, runs, seed, avoided: prepared.avoided };
  const s = await search(target, prepared, options, { path: options.path, replayCommand: options.replayCommand });
  if ('notRun' in s) return { ...base, verdict: 'not_run', runsDone: 0, reason: s.notRun };
  const staleAck =
    options.staleAck === true && options.path === undefined ? await staleAckRun(target, prepared, options) : undefined;
  const races =
    options.races === true && options.path === undefined ? await raceSearch(target, prepared, options) : undefined;
  const withRaces = { ...(staleAck === undefined ? {} : { staleAck }), ...(races === undefined ? {} : { races }) };
  const { found, excused: _e, ...rest } = s;
  switch (found) {
    case 'nothing':
      return { ...base, ...rest, ...withRaces, verdict: 'linearizable' };
    case 'time_limit':
      return { ...base, ...rest, ...withRaces, verdict: 'budget_exhausted' };
    case 'unknown':
      return { ...base, ...rest, ...withRaces, verdict: 'unknown' };
    case 'failure':
      return { ...base, ...rest, ...withRaces, verdict: 'not_linearizable' };
    case 'flaky':
      return { ...base, ...rest, ...withRaces, verdict: 'flaky' };
  }
}
