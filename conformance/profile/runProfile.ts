/**
 * `runProfile`: an implementation checked rule by rule. For every rule not declared unsupported,
 * the fixture stories whose model run exercises it and a targeted campaign (generation.ts) whose
 * scenarios exercise it at least once are run in lockstep against the model, with the declared
 * variants in place of their rules (model/variants.ts). Every divergence is attributed to the rule
 * it departs from (attribution.ts) and recorded under that rule, whichever campaign found it; the
 * campaign of a rule stops at its own first departure and goes on past others'. Each departing
 * rule's first departure is then shrunk by fast-check, keeping only runs that still depart on that
 * same rule, and told as a story with the flags that replay it.
 *
 * A rule conforms only when commands exercised it and none departed; a rule no command reached is
 * `not_reached`, and one whose campaign the time limit cut short `budget_exhausted`: neither is a pass.
 *
 * A target on a wall clock (a broker that keeps its own time, `clock: { kind: 'wall' }`) cannot be
 * made to repeat itself exactly: a lease that ends on a tick's boundary may end a little before or a
 * little after the command that depends on it. So its shrunk departure is replayed REPLAYS times more,
 * a fresh instance each time, and counts only if it departs on the same rule at least
 * REPLAYS_NEEDED times; otherwise the rule is `flaky`, with the story and the count, and never a pass.
 * A logical-clock target repeats exactly and is not replayed.
 *
 * A replay the time limit cut short (or never started) is no evidence either way, so only replays
 * that ran to their end are counted (`replays.runs`). The rule `departs` once REPLAYS_NEEDED of them
 * departed; it is `flaky` once so many did not that REPLAYS_NEEDED can no longer be reached even if
 * every replay left had run and departed; otherwise the time limit decided, not the queue: the rule
 * is `budget_exhausted`, with the departure kept as what was found and the replays that completed
 * counted (none: no count). The same holds of the fixtures: when the time limit stops them, a rule
 * whose evidence is theirs alone (its campaign not asked for) is `budget_exhausted`, not judged on
 * the fixtures that happened to run.
 *
 * A variant may reach states that the contract's snapshot cannot hold: under `no-account-order` a
 * job behind its account's head runs, which the snapshot's cross-field rules refuse (they state
 * account-head-only), so the checked model itself refuses to restart from that state. Such a
 * restart has no expected outcome to compare with, so a scenario that needs one is left out: the
 * campaigns' filter passes over it, and a fixture or a shrunk run that meets one is not counted.
 */
import { CodedError } from '../../contract/CodedError.ts';
import { isJobcheckError } from '../../contract/index.ts';
import type { Config } from '../../contract/index.ts';
import fc from 'fast-check';
import { RULE_IDS, ruleOf } from '../../contract/rules.ts';
import type { RuleId } from '../../contract/rules.ts';
import { loadFixtures } from '../../model/fixtures.ts';
import type { Fixture } from '../../model/fixtures.ts';
import { toSnapshot } from '../../model/index.ts';
import { rulesExercised } from '../../model/rules.ts';
import { composeVariants, modelVariant } from '../../model/variants.ts';
import type { ModelVariant } from '../../model/variants.ts';
import type { ProfileScenario } from './generation.ts';
import type { Budget } from '../budget.ts';
import { showValue } from '../lockstep/compare.ts';
import { exercisedRules, runLockstepDetailed } from '../lockstep/index.ts';
import type { CheckedModel, LockstepOptions, LockstepRun } from '../lockstep/index.ts';
import { inOrder } from '../parallel.ts';
import { renderStory } from '../lockstep/story.ts';
import { newResolveMemory, resolveCommand } from '../lockstep/symbolic.ts';
import type { ScriptStep } from '../lockstep/symbolic.ts';
import { attributeDivergence } from './attribution.ts';
import { RULE_BIAS, targetedScenarioArb } from './generation.ts';
import { PROFILE_FORMAT } from './result.ts';
import type { Departure, Profile, RuleResult, Unattributed } from './result.ts';
import type { ProfileTarget } from './target.ts';

/** A declaration the engine cannot use (a variant that does not exist, or replaces another rule). */
export class ProfileError extends CodedError<'invalid_declaration'> {
  override name = 'ProfileError' as const;
  constructor(message: string) {
    super('invalid_declaration', message);
  }
}

/** Replays of a wall-clock target's shrunk departure (fresh instance each time). */
export const REPLAYS = 3;
/** Replays, of REPLAYS, that must depart on the same rule for the departure to count. */
export const REPLAYS_NEEDED = 2;

/** Options of a profile run. */
export interface ProfileOptions {
  /** Runs of each rule's targeted campaign that exercise the rule (default 30). */
  readonly runs?: number;
  /** Seed of the profile; each rule's campaign derives its own from it (default 1). */
  readonly seed?: number;
  /** Most commands per generated run (default 30). */
  readonly maxCommands?: number;
  readonly budget?: Budget;
  /** Rules' campaigns, then their departures' shrinking and replays, in flight at once (default 1). */
  readonly parallel?: number;
  /** Only these rules' campaigns (default all); the fixtures still run. */
  readonly rules?: readonly RuleId[];
  /**
   * Replays one shrunk run: the campaign of `rule` at fast-check `path` (with `seed`), exactly that
   * run, without the fixtures and without shrinking it further.
   */
  readonly replay?: { readonly rule: RuleId; readonly path: string };
  /**
   * The command that replays a departure on `rule`, for stories (default: the library call): found
   * by `campaign`'s run at `path`, or (both undefined) by a fixture, which every profile runs.
   */
  readonly replayCommand?: (rule: RuleId, campaign: RuleId | undefined, path: string | undefined) => string;
  /** Most candidate scenarios drawn per kept run (default 6): those that do not exercise the rule are skipped. */
  readonly triesPerRun?: number;
  /** Called after each rule's campaign. */
  readonly onRule?: (rule: RuleId, done: number, total: number) => void;
}

/** The seed of one rule's campaign: the profile's seed and the rule's position, mixed. Pure. */
export const campaignSeed = (seed: number, rule: RuleId): number =>
  (Math.imul(seed ^ 0x5bd1e995, 31) + RULE_IDS.indexOf(rule) * 7919) | 0;

/** The model a target's declarations call for; throws ProfileError for a bad declaration. */
export function checkedModelOf(target: Pick<ProfileTarget, 'declarations'>): CheckedModel {
  const variants: ModelVariant[] = [];
  for (const [rule, d] of Object.entries(target.declarations) as [
    RuleId,
    NonNullable<ProfileTarget['declarations'][RuleId]>,
  ][]) {
    if (d.kind !== 'variant') continue;
    const v = modelVariant(d.variant);
    if (v === undefined)
      throw new ProfileError(`declaration of ${rule}: no model variant named ${JSON.stringify(d.variant)}`);
    if (v.rule !== rule)
      throw new ProfileError(`declaration of ${rule}: the variant ${v.name} replaces ${v.rule}, not ${rule}`);
    variants.push(v);
  }
  return composeVariants(variants);
}

/** True for what the checked model throws when it refuses to restart from its own state's snapshot. Pure. */
const isRefusedRestart = (e: unknown): boolean => isJobcheckError(e, 'invalid_snapshot');

/**
 * How many commands of a model-only run of a scenario exercise each rule (no implementation
 * involved), for the campaign's filter; undefined when the scenario restarts from a state the
 * checked model refuses to restore (a variant's state the contract's snapshot cannot hold).
 */
function modelRules(checked: CheckedModel, scenario: ProfileScenario): Map<RuleId, number> | undefined {
  const out = new Map<RuleId, number>();
  const add = (r: RuleId): void => {
    out.set(r, (out.get(r) ?? 0) + 1);
  };
  let state =
    scenario.start === undefined
      ? checked.model.initialState(scenario.config)
      : checked.model.fromSnapshot(scenario.start);
  const memory = newResolveMemory();
  for (const sym of scenario.commands) {
    const action = resolveCommand(state, memory, sym);
    if ('restart' in action) {
      try {
        state = checked.model.fromSnapshot(JSON.parse(JSON.stringify(toSnapshot(state))));
      } catch (e) {
        if (isRefusedRestart(e)) return undefined;
        throw e;
      }
      add('snapshot-restore-round-trip');
      continue;
    }
    const result = checked.model.step(state, action.do);
    for (const r of rulesExercised(state, action.do, result)) add(r);
    if (result.reply.ok && result.reply.type === 'claim' && result.reply.job !== null)
      memory.lastToken.set(result.reply.job.id, result.reply.job.token);
    state = result.state;
  }
  add('snapshot-is-a-copy');
  return out;
}

/** The lockstep options of a run of a profile: the checked model, the budget, and the scenario's starting snapshot. Pure. */
const lockstepOptions = (
  checked: CheckedModel,
  budget: Budget | undefined,
  scenario: Pick<ProfileScenario, 'start'>,
): LockstepOptions => ({
  model: checked,
  ...(budget === undefined ? {} : { budget }),
  ...(scenario.start === undefined ? {} : { start: scenario.start }),
});

/**
 * runLockstepDetailed, or `refused` when the checked model refused to restart from its own state
 * (modelRules): the runner lets that throw, since it is not the implementation's doing.
 */
async function runChecked(
  config: Config,
  inputs: Parameters<typeof runLockstepDetailed>[1],
  factory: ProfileTarget['factory'],
  options: LockstepOptions,
): Promise<LockstepRun | 'refused'> {
  try {
    return await runLockstepDetailed(config, inputs, factory, options);
  } catch (e) {
    if (isRefusedRestart(e)) return 'refused';
    throw e;
  }
}

/** A fixture as a script: its commands and restarts (its aliasing steps are the run's own aliasing check). */
const fixtureScript = (f: Fixture): ScriptStep[] =>
  f.steps.flatMap((s): ScriptStep[] => ('do' in s ? [{ do: s.do }] : 'restart' in s ? [{ restart: true }] : []));

/** Counts, per rule, the agreeing commands of a run (every step before the divergence, and the aliasing check). */
function countRun(run: LockstepRun, counts: Map<RuleId, number>): void {
  const exercised = exercisedRules(run);
  const agreeing = run.result.divergence === null ? exercised.length : run.result.divergence.step - 1;
  for (let i = 0; i < agreeing; i++) for (const r of exercised[i] ?? []) counts.set(r, (counts.get(r) ?? 0) + 1);
  if (run.aliasChecked && run.result.divergence === null)
    counts.set('snapshot-is-a-copy', (counts.get('snapshot-is-a-copy') ?? 0) + 1);
}

/** The rule a run departs on (null: unattributed), and the first differing field in words. */
function attribution(run: LockstepRun): { rule: RuleId | null; divergence: Departure['divergence'] } | null {
  const d = run.result.divergence;
  if (d === null) return null;
  const step = run.result.steps[d.step - 1];
  const exercised = d.kind === 'alias' ? ['snapshot-is-a-copy' as const] : (exercisedRules(run)[d.step - 1] ?? []);
  const rule = attributeDivergence(d, run.diverging, exercised, step?.implReply);
  const diff = d.reply ?? d.snapshot;
  return {
    rule,
    divergence: {
      step: d.step,
      kind: d.kind,
      field: diff === undefined ? '' : diff.path,
      model: diff === undefined ? '' : showValue(diff.model),
      impl: diff === undefined ? (d.error ?? '') : showValue(diff.impl),
    },
  };
}

interface Candidate {
  /** The rule it departs on; null when unattributed. */
  readonly rule: RuleId | null;
  readonly campaign: RuleId | undefined;
  readonly fixture: string | undefined;
  /** Index of the generated scenario in its campaign (fast-check path). */
  readonly index: number;
  readonly run: LockstepRun;
  readonly divergence: Departure['divergence'];
  /** Runs the same commands again on a fresh instance (the fixture's script; a campaign's is the shrunk scenario, from shrink). */
  readonly rerun: () => Promise<LockstepRun | 'refused'>;
}

interface CampaignOutcome {
  readonly rule: RuleId;
  readonly kept: number;
  readonly complete: boolean;
  readonly counts: Map<RuleId, number>;
  readonly candidates: Candidate[];
  readonly unattributed: Candidate[];
}

/** Runs a ProfileTarget rule by rule and returns its profile. Never throws for the implementation; throws ProfileError for a bad declaration. */
export async function runProfile(target: ProfileTarget, options: ProfileOptions = {}): Promise<Profile> {
  const runs = options.runs ?? 30;
  const seed = options.seed ?? 1;
  const maxCommands = options.maxCommands ?? 30;
  const budget = options.budget;
  const checked = checkedModelOf(target);
  const declared = target.declarations;
  const unsupported = new Set(RULE_IDS.filter((r) => declared[r]?.kind === 'unsupported'));
  let adapter = target.queue;
  const noteAdapter = (run: LockstepRun): void => {
    if (run.result.adapter !== '(factory)') adapter = run.result.adapter;
  };

  // 1. The fixtures, each once, in lockstep against the checked model.
  const fixtureRules = new Map<RuleId, string[]>();
  const counts = new Map<RuleId, number>();
  const candidates: Candidate[] = [];
  const unattributed: Candidate[] = [];
  // False once the time limit stops the fixtures: a rule judged on them alone is then not judged.
  let fixturesComplete = true;
  for (const fixture of options.replay === undefined ? loadFixtures() : []) {
    if (budget?.expired === true) {
      fixturesComplete = false;
      break;
    }
    const script = fixtureScript(fixture);
    const run = await runChecked(fixture.config, script, target.factory, lockstepOptions(checked, budget, {}));
    if (run === 'refused') continue;
    noteAdapter(run);
    if (run.result.interrupted === true) {
      fixturesComplete = false;
      break;
    }
    const reached = new Set(exercisedRules(run).flat());
    for (const r of reached) fixtureRules.set(r, [...(fixtureRules.get(r) ?? []), fixture.name]);
    countRun(run, counts);
    const a = attribution(run);
    if (a !== null) {
      const c: Candidate = {
        rule: a.rule,
        campaign: undefined,
        fixture: fixture.name,
        index: 0,
        run,
        divergence: a.divergence,
        rerun: () => runChecked(fixture.config, script, target.factory, lockstepOptions(checked, budget, {})),
      };
      if (a.rule === null) unattributed.push(c);
      else if (!unsupported.has(a.rule)) candidates.push(c);
    }
  }

  // 2. One targeted campaign per checked rule.
  const campaignRules = RULE_IDS.filter(
    (r) => !unsupported.has(r) && (options.rules === undefined || options.rules.includes(r)),
  );
  const tries = options.triesPerRun ?? 6;
  let done = 0;
  const outcomes = await inOrder(campaignRules.length, options.parallel ?? 1, async (i): Promise<CampaignOutcome> => {
    const rule = campaignRules[i] as RuleId;
    const arb = targetedScenarioArb(rule, maxCommands);
    const minHits = RULE_BIAS[rule].minHits ?? 1;
    const ruleSeed = campaignSeed(seed, rule);
    const own: CampaignOutcome = {
      rule,
      kept: 0,
      complete: false,
      counts: new Map(),
      candidates: [],
      unattributed: [],
    };
    let scenarios: ProfileScenario[] = [];
    const at = (index: number): ProfileScenario => {
      if (index >= scenarios.length)
        scenarios = fc.sample(arb, { numRuns: Math.max(index + 1, 2 * scenarios.length, 16), seed: ruleSeed });
      return scenarios[index] as ProfileScenario;
    };
    const indices =
      options.replay === undefined
        ? undefined
        : options.replay.rule === rule
          ? [Number(options.replay.path.split(':')[0])]
          : [];
    let kept = 0;
    let stoppedEarly = false;
    const limit = indices === undefined ? runs * tries : indices.length;
    for (let t = 0; t < limit && kept < runs; t++) {
      if (budget?.expired === true) {
        stoppedEarly = true;
        break;
      }
      const index = indices === undefined ? t : (indices[t] as number);
      const scenario = at(index);
      if ((modelRules(checked, scenario)?.get(rule) ?? 0) < minHits) continue;
      const run = await runChecked(
        scenario.config,
        scenario.commands,
        target.factory,
        lockstepOptions(checked, budget, scenario),
      );
      if (run === 'refused') continue;
      noteAdapter(run);
      // An implementation that cannot start from a snapshot leaves this rule's edge not reached.
      if (run.cannotStart === true) break;
      if (run.result.interrupted === true) {
        stoppedEarly = true;
        break;
      }
      kept += 1;
      countRun(run, own.counts);
      const a = attribution(run);
      if (a === null) continue;
      const c: Candidate = {
        rule: a.rule,
        campaign: rule,
        fixture: undefined,
        index,
        run,
        divergence: a.divergence,
        rerun: () =>
          runChecked(scenario.config, scenario.commands, target.factory, lockstepOptions(checked, budget, scenario)),
      };
      if (a.rule === null) own.unattributed.push(c);
      else if (!unsupported.has(a.rule)) own.candidates.push(c);
      if (a.rule === rule) break; // this rule departs: its campaign has found what it looks for
    }
    done += 1;
    options.onRule?.(rule, done, campaignRules.length);
    return { ...own, kept, complete: !stoppedEarly };
  });
  const byRule = new Map<RuleId, CampaignOutcome>();
  for (const o of outcomes) {
    if (o === undefined) continue;
    byRule.set(o.rule, o);
    for (const [r, n] of o.counts) counts.set(r, (counts.get(r) ?? 0) + n);
    candidates.push(...o.candidates);
    unattributed.push(...o.unattributed);
  }

  // 3. Each departing rule's departure, shrunk: its own campaign's if it has one, else the first found;
  // on a wall clock, replayed REPLAYS times to tell a departure from a flaky one.
  const departures = new Map<RuleId, Departure>();
  const replays = new Map<RuleId, Replays>();
  const wall = target.clock?.kind === 'wall';
  // Each rule's departure is shrunk (and replayed) on its own instances, so the rules go as many at
  // a time as their campaigns did: on a wall clock shrinking is most of a profile's time, and
  // mostly waiting. The results are kept by rule, so the page does not depend on which ends first.
  const departing = RULE_IDS.filter((rule) => candidates.some((c) => c.rule === rule));
  const shrunkByRule = await inOrder(departing.length, options.parallel ?? 1, async (i) => {
    const rule = departing[i] as RuleId;
    const mine = candidates.filter((c) => c.rule === rule);
    const first =
      mine.find((c) => c.campaign === rule) ?? mine.find((c) => c.campaign !== undefined) ?? (mine[0] as Candidate);
    const shrunk = await shrink(first, checked, target, {
      seed,
      maxCommands,
      budget,
      replayCommand: options.replayCommand,
      replayPath: options.replay?.path,
    });
    return { departure: shrunk.departure, replays: wall ? await replay(shrunk.rerun, rule, noteAdapter) : undefined };
  });
  departing.forEach((rule, i) => {
    const done = shrunkByRule[i];
    if (done === undefined) return;
    departures.set(rule, done.departure);
    if (done.replays !== undefined) replays.set(rule, done.replays);
  });

  const results: RuleResult[] = RULE_IDS.map((rule): RuleResult => {
    const d = declared[rule];
    const base = {
      rule,
      title: ruleOf(rule).title,
      commands: counts.get(rule) ?? 0,
      runs: byRule.get(rule)?.kept ?? 0,
      fixtures: fixtureRules.get(rule) ?? [],
      ...(target.upstream?.[rule] === undefined ? {} : { upstream: target.upstream[rule] }),
      ...(target.tolerances?.[rule] === undefined ? {} : { tolerance: target.tolerances[rule] }),
    };
    if (d?.kind === 'unsupported') return { ...base, status: 'unsupported', why: d.why };
    const variant = d?.kind === 'variant' ? { variant: d.variant, why: d.why } : {};
    const departure = departures.get(rule);
    const replayed = replays.get(rule);
    if (departure !== undefined && replayed !== undefined)
      return {
        ...base,
        ...variant,
        status: replayStatus(replayed),
        departure,
        ...(replayed.runs === 0 ? {} : { replays: replayed }),
      };
    if (departure !== undefined) return { ...base, ...variant, status: 'departs', departure };
    const campaign = byRule.get(rule);
    const incomplete =
      (campaign !== undefined && !campaign.complete) ||
      (campaign === undefined && (!fixturesComplete || (options.rules === undefined && budget?.expired === true)));
    if (incomplete) return { ...base, ...variant, status: 'budget_exhausted' };
    if (base.commands === 0) return { ...base, ...variant, status: 'not_reached' };
    return { ...base, ...variant, status: d?.kind === 'variant' ? 'variant' : 'conforms' };
  });
  const unattributedOut: Unattributed[] = unattributed.map((c) => ({
    source: c.fixture === undefined ? 'campaign' : 'fixture',
    ...(c.campaign === undefined
      ? {}
      : { campaign: c.campaign, seed: campaignSeed(seed, c.campaign), path: String(c.index) }),
    ...(c.fixture === undefined ? {} : { fixture: c.fixture }),
    divergence: c.divergence,
    story: renderStory(c.run.result),
  }));
  const verdict =
    results.some((r) => r.status === 'departs') || unattributedOut.length > 0
      ? 'departs'
      : results.some((r) => r.status === 'budget_exhausted' || r.status === 'flaky')
        ? 'incomplete'
        : 'conforms';
  return {
    format: PROFILE_FORMAT,
    queue: target.queue,
    version: target.version,
    adapter,
    clock: target.clock ?? { kind: 'logical' },
    seed,
    runs,
    maxCommands,
    verdict,
    rules: results,
    unattributed: unattributedOut,
  };
}

/**
 * How a shrunk departure replayed: of the `runs` fresh runs that ran to their end (at most REPLAYS;
 * fewer when the time limit stopped the others), `departed` departed on the same rule.
 */
export interface Replays {
  readonly runs: number;
  readonly departed: number;
}

/**
 * The status replays give a wall-clock departure: `departs` once REPLAYS_NEEDED departed, `flaky`
 * once too many did not for REPLAYS_NEEDED to be reached even if every replay not run had departed,
 * and otherwise `budget_exhausted`: the replays the time limit stopped would have decided. Pure.
 */
export function replayStatus(r: Replays): 'departs' | 'flaky' | 'budget_exhausted' {
  if (r.departed >= REPLAYS_NEEDED) return 'departs';
  if (r.departed + (REPLAYS - r.runs) < REPLAYS_NEEDED) return 'flaky';
  return 'budget_exhausted';
}

/**
 * Replays a shrunk departure up to REPLAYS times (each a fresh instance) and counts those that
 * depart on `rule` again; stops at the first the time limit cuts short, which is not counted.
 */
async function replay(
  rerun: () => Promise<LockstepRun | 'refused'>,
  rule: RuleId,
  noteAdapter: (run: LockstepRun) => void,
): Promise<Replays> {
  let runs = 0;
  let departed = 0;
  for (let i = 0; i < REPLAYS; i++) {
    const run = await rerun();
    if (run === 'refused' || run.result.interrupted === true) break;
    noteAdapter(run);
    runs += 1;
    if (attribution(run)?.rule === rule) departed += 1;
  }
  return { runs, departed };
}

/**
 * Shrinks one departure with fast-check, keeping only runs that depart on the same rule; a
 * fixture's is told as it is. Returns the departure and a way to run its story again.
 */
async function shrink(
  c: Candidate,
  checked: CheckedModel,
  target: ProfileTarget,
  o: {
    seed: number;
    maxCommands: number;
    budget: Budget | undefined;
    replayCommand: ProfileOptions['replayCommand'];
    replayPath?: string | undefined;
  },
): Promise<{ departure: Departure; rerun: () => Promise<LockstepRun | 'refused'> }> {
  const told = (
    run: LockstepRun,
    seed: number | undefined,
    path: string | undefined,
    unshrunk: number,
    divergence: Departure['divergence'],
  ): Departure => {
    const replay =
      o.replayCommand?.(c.rule ?? 'snapshot-is-a-copy', c.campaign, path) ??
      (path === undefined
        ? `runProfile(target, { seed: ${o.seed} })`
        : `runProfile(target, { seed: ${o.seed}, replay: { rule: '${c.campaign}', path: '${path}' } })`);
    return {
      source: c.campaign === undefined ? 'fixture' : 'campaign',
      ...(c.campaign === undefined ? {} : { campaign: c.campaign }),
      ...(c.fixture === undefined ? {} : { fixture: c.fixture }),
      ...(seed === undefined ? {} : { seed }),
      ...(path === undefined ? {} : { path }),
      steps: run.result.steps.length,
      unshrunkSteps: unshrunk,
      divergence,
      story: renderStory(run.result, { reproduceCommand: replay }),
      replay,
    };
  };
  if (c.campaign === undefined)
    return {
      departure: told(c.run, undefined, undefined, c.run.result.steps.length, c.divergence),
      rerun: c.rerun,
    };
  const rule = c.rule;
  const seed = campaignSeed(o.seed, c.campaign);
  const arb = targetedScenarioArb(c.campaign, o.maxCommands);
  let last: { run: LockstepRun; divergence: Departure['divergence']; rerun: () => Promise<LockstepRun | 'refused'> } = {
    run: c.run,
    divergence: c.divergence,
    rerun: c.rerun,
  };
  const remaining = o.budget?.remainingMs() ?? Number.POSITIVE_INFINITY;
  const property = fc.asyncProperty(arb, async (scenario: ProfileScenario) => {
    const run = await runChecked(
      scenario.config,
      scenario.commands,
      target.factory,
      lockstepOptions(checked, o.budget, scenario),
    );
    // Neither a run the time limit cut short nor one the model cannot restart is a departure.
    if (run === 'refused' || run.result.interrupted === true) return true;
    const a = attribution(run);
    if (a === null || a.rule !== rule) return true;
    last = {
      run,
      divergence: a.divergence,
      rerun: () =>
        runChecked(scenario.config, scenario.commands, target.factory, lockstepOptions(checked, o.budget, scenario)),
    };
    return false;
  });
  const details = await fc.check(property, {
    numRuns: 1,
    seed,
    // A replay goes straight to the shrunk run of its path and stops there.
    ...(o.replayPath === undefined ? { path: String(c.index) } : { path: o.replayPath, endOnFailure: true }),
    ...(Number.isFinite(remaining) ? { interruptAfterTimeLimit: Math.max(1, Math.ceil(remaining)) } : {}),
  });
  const path = details.failed && details.counterexamplePath !== null ? details.counterexamplePath : String(c.index);
  return { departure: told(last.run, seed, path, c.run.result.steps.length, last.divergence), rerun: last.rerun };
}
