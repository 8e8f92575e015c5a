/**
 * `runProfile`: an implementation checked rule by rule. For every rule not declared unsupported,
 * the fixture stories that exercise it and a targeted campaign (generation.ts) whose scenarios
 * exercise it run in lockstep against the model, declared variants in place of their rules. Each
 * divergence is recorded under the rule it departs from (attribution.ts), whichever campaign found
 * it; a rule's campaign stops at its own first departure. Each departing rule's first departure is
 * shrunk (keeping only runs that depart on that rule) and told as a story with its replay flags.
 *
 * Invariants: a rule conforms only when commands exercised it and none departed; `not_reached` and
 * `budget_exhausted` (the time limit cut its evidence short, the fixtures' too) are never a pass.
 * A wall-clock target (`clock: { kind: 'wall' }`) cannot repeat itself exactly, so its shrunk
 * departure is replayed REPLAYS times on fresh instances, counting only replays that ran to their
 * end: `departs` at REPLAYS_NEEDED, `flaky` once that cannot be reached, else `budget_exhausted`.
 * A restart the checked model itself refuses (a variant's state the snapshot cannot hold) has no
 * expected outcome: a scenario or fixture that needs one is left out, never counted. Every run goes
 * through the profile's BrokerWatch: a run whose calls met a lost broker counts for nothing, the
 * engine asks the broker nothing more, and every rule not judged by then is `unknown`.
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
import { BrokerWatch } from './brokerWatch.ts';

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
  /** The watch on the broker, when the profile shares it with competing workers (default: one of its own). */
  readonly watch?: BrokerWatch;
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
    if (!v.declarable)
      throw new ProfileError(
        `declaration of ${rule}: the variant ${v.name} states a documented service (model/documented.ts), not a choice an adapter may declare (docs/declarations.md)`,
      );
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

/**
 * For a rule a target may declare unsupported whose whole outcome is one field of a job's record,
 * that field. Its runs compare the snapshots without it: a difference there is the rule's alone,
 * and stopping a run at it would leave every rule after a failure not reached.
 */
export const UNSUPPORTED_FIELDS: Partial<Record<RuleId, readonly string[]>> = { 'last-error-kept': ['lastError'] };

/** The fields a target's runs leave out of their comparisons (UNSUPPORTED_FIELDS of its rules declared unsupported). Pure. */
export const ignoredFields = (declarations: ProfileTarget['declarations']): readonly string[] =>
  RULE_IDS.filter((r) => declarations[r]?.kind === 'unsupported').flatMap((r) => UNSUPPORTED_FIELDS[r] ?? []);

/** The lockstep options of a run of a profile: the checked model, the budget, the scenario's starting snapshot, the fields left out. Pure. */
const lockstepOptions = (
  run: Pick<ProfileRun, 'checked' | 'ignoreFields'>,
  budget: Budget | undefined,
  scenario: Pick<ProfileScenario, 'start'>,
): LockstepOptions => ({
  model: run.checked,
  ...(budget === undefined ? {} : { budget }),
  ...(scenario.start === undefined ? {} : { start: scenario.start }),
  ...(run.ignoreFields.length === 0 ? {} : { ignoreFields: run.ignoreFields }),
});

/** What a run of a profile came to: the run, or `refused` (see runChecked), or `lost` (its broker was lost). */
type Checked = LockstepRun | 'refused' | 'lost';

/**
 * runLockstepDetailed through the watch; `refused` when the checked model refused to restart from
 * its own state (modelRules): the runner lets that throw, since it is not the implementation's
 * doing; `lost` when a call of the run met a lost broker, so that what it shows is not the queue's.
 */
async function runChecked(
  config: Config,
  inputs: Parameters<typeof runLockstepDetailed>[1],
  factory: ProfileTarget['factory'],
  options: LockstepOptions,
  watch: BrokerWatch,
): Promise<Checked> {
  const watched = watch.run();
  try {
    const run = await runLockstepDetailed(config, inputs, watched.factory(factory), options);
    return watched.lost ? 'lost' : run;
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
  readonly rerun: () => Promise<Checked>;
}

interface CampaignOutcome {
  readonly rule: RuleId;
  readonly kept: number;
  readonly complete: boolean;
  /** The broker was lost before the campaign ended: its rule is unknown. */
  readonly lost: boolean;
  readonly counts: Map<RuleId, number>;
  readonly candidates: Candidate[];
  readonly unattributed: Candidate[];
}

/** What a profile's steps share: its settings, the checked model, and the adapter's name as runs report it. */
interface ProfileRun {
  readonly target: ProfileTarget;
  readonly options: ProfileOptions;
  readonly runs: number;
  readonly seed: number;
  readonly maxCommands: number;
  readonly budget: Budget | undefined;
  readonly checked: CheckedModel;
  readonly unsupported: ReadonlySet<RuleId>;
  /** Fields left out of every comparison (UNSUPPORTED_FIELDS). */
  readonly ignoreFields: readonly string[];
  readonly watch: BrokerWatch;
  adapter: string;
}

/** What the fixtures and the campaigns found, rule by rule. */
interface Evidence {
  /** The fixtures that exercise each rule. */
  readonly fixtureRules: Map<RuleId, string[]>;
  /** Agreeing commands per rule. */
  readonly counts: Map<RuleId, number>;
  readonly candidates: Candidate[];
  readonly unattributed: Candidate[];
  /** False once the time limit stopped the fixtures: a rule judged on them alone is then not judged. */
  readonly fixturesComplete: boolean;
  /** True when the broker was lost before the fixtures ended: a rule judged on them alone is unknown. */
  readonly fixturesLost: boolean;
  readonly byRule: Map<RuleId, CampaignOutcome>;
}

/** Runs a ProfileTarget rule by rule and returns its profile. Never throws for the implementation; throws ProfileError for a bad declaration. */
export async function runProfile(target: ProfileTarget, options: ProfileOptions = {}): Promise<Profile> {
  const declared = target.declarations;
  const run: ProfileRun = {
    target,
    options,
    runs: options.runs ?? 30,
    seed: options.seed ?? 1,
    maxCommands: options.maxCommands ?? 30,
    budget: options.budget,
    checked: checkedModelOf(target),
    unsupported: new Set(RULE_IDS.filter((r) => declared[r]?.kind === 'unsupported')),
    ignoreFields: ignoredFields(declared),
    watch: options.watch ?? new BrokerWatch(options.budget),
    adapter: target.queue,
  };
  const evidence = await fixturePass(run);
  await campaignPass(run, evidence);
  const shrunk = await shrinkPass(run, evidence.candidates);
  const results = RULE_IDS.map((rule) => ruleResult(run, evidence, shrunk, rule));
  const unattributed = evidence.unattributed.map((c) => unattributedOf(run.seed, c));
  const lost = run.watch.reason;
  const verdict =
    lost !== undefined
      ? 'incomplete'
      : results.some((r) => r.status === 'departs') || unattributed.length > 0
        ? 'departs'
        : results.some((r) => r.status === 'budget_exhausted' || r.status === 'flaky')
          ? 'incomplete'
          : 'conforms';
  return {
    format: PROFILE_FORMAT,
    queue: target.queue,
    version: target.version,
    adapter: run.adapter,
    clock: target.clock ?? { kind: 'logical' },
    seed: run.seed,
    runs: run.runs,
    maxCommands: run.maxCommands,
    verdict,
    ...(lost === undefined ? {} : { lost }),
    rules: results,
    unattributed,
  };
}

/** Notes the adapter's name a run reports. */
function noteAdapter(run: ProfileRun, lockstep: LockstepRun): void {
  if (lockstep.result.adapter !== '(factory)') run.adapter = lockstep.result.adapter;
}

/** Step 1: the fixtures, each once, in lockstep against the checked model (none for a replay). */
async function fixturePass(run: ProfileRun): Promise<Evidence> {
  const { target, budget } = run;
  const evidence: Evidence & { fixturesComplete: boolean; fixturesLost: boolean } = {
    fixtureRules: new Map(),
    counts: new Map(),
    candidates: [],
    unattributed: [],
    fixturesComplete: true,
    fixturesLost: false,
    byRule: new Map(),
  };
  for (const fixture of run.options.replay === undefined ? loadFixtures() : []) {
    if (budget?.expired === true || run.watch.lost !== undefined) {
      evidence.fixturesComplete = false;
      evidence.fixturesLost = run.watch.lost !== undefined;
      break;
    }
    const script = fixtureScript(fixture);
    const again = () => runChecked(fixture.config, script, target.factory, lockstepOptions(run, budget, {}), run.watch);
    const ran = await again();
    if (ran === 'refused') continue;
    if (ran === 'lost') {
      evidence.fixturesComplete = false;
      evidence.fixturesLost = true;
      break;
    }
    noteAdapter(run, ran);
    if (ran.result.interrupted === true) {
      evidence.fixturesComplete = false;
      break;
    }
    for (const r of new Set(exercisedRules(ran).flat()))
      evidence.fixtureRules.set(r, [...(evidence.fixtureRules.get(r) ?? []), fixture.name]);
    countRun(ran, evidence.counts);
    const a = attribution(ran);
    if (a === null) continue;
    const c: Candidate = { ...a, campaign: undefined, fixture: fixture.name, index: 0, run: ran, rerun: again };
    keep(run, c, evidence);
  }
  return evidence;
}

/** Records a candidate departure: unattributed, or under its rule unless that rule is declared unsupported. */
function keep(run: ProfileRun, c: Candidate, into: Pick<Evidence, 'candidates' | 'unattributed'>): void {
  if (c.rule === null) into.unattributed.push(c);
  else if (!run.unsupported.has(c.rule)) into.candidates.push(c);
}

/** Step 2: one targeted campaign per checked rule, as many at once as `parallel`; folded into `evidence`. */
async function campaignPass(run: ProfileRun, evidence: Evidence): Promise<void> {
  const { options } = run;
  const rules = RULE_IDS.filter(
    (r) => !run.unsupported.has(r) && (options.rules === undefined || options.rules.includes(r)),
  );
  let done = 0;
  const outcomes = await inOrder(rules.length, options.parallel ?? 1, async (i): Promise<CampaignOutcome> => {
    const rule = rules[i] as RuleId;
    const outcome = await ruleCampaign(run, rule);
    done += 1;
    options.onRule?.(rule, done, rules.length);
    return outcome;
  });
  for (const o of outcomes) {
    if (o === undefined) continue;
    evidence.byRule.set(o.rule, o);
    for (const [r, n] of o.counts) evidence.counts.set(r, (evidence.counts.get(r) ?? 0) + n);
    evidence.candidates.push(...o.candidates);
    evidence.unattributed.push(...o.unattributed);
  }
}

/** The scenarios of a rule's campaign by index, drawn from its seed as needed. */
function scenariosOf(run: ProfileRun, rule: RuleId): (index: number) => ProfileScenario {
  const arb = targetedScenarioArb(rule, run.maxCommands);
  const seed = campaignSeed(run.seed, rule);
  let scenarios: ProfileScenario[] = [];
  return (index) => {
    if (index >= scenarios.length)
      scenarios = fc.sample(arb, { numRuns: Math.max(index + 1, 2 * scenarios.length, 16), seed });
    return scenarios[index] as ProfileScenario;
  };
}

/**
 * The targeted campaign of one rule: scenarios that exercise it (at least its minHits), until
 * `runs` of them ran or it departs; a replay runs only the scenario of its path.
 */
async function ruleCampaign(run: ProfileRun, rule: RuleId): Promise<CampaignOutcome> {
  const { options, target, checked, budget } = run;
  const at = scenariosOf(run, rule);
  const minHits = RULE_BIAS[rule].minHits ?? 1;
  const own: CampaignOutcome = {
    rule,
    kept: 0,
    complete: false,
    lost: false,
    counts: new Map(),
    candidates: [],
    unattributed: [],
  };
  const replay = options.replay;
  const indices = replay === undefined ? undefined : replay.rule === rule ? [Number(replay.path.split(':')[0])] : [];
  let kept = 0;
  let stoppedEarly = false;
  let lost = false;
  const limit = indices === undefined ? run.runs * (options.triesPerRun ?? 6) : indices.length;
  for (let t = 0; t < limit && kept < run.runs; t++) {
    if (run.watch.lost !== undefined) lost = true;
    if (budget?.expired === true || lost) {
      stoppedEarly = true;
      break;
    }
    const index = indices === undefined ? t : (indices[t] as number);
    const scenario = at(index);
    if ((modelRules(checked, scenario)?.get(rule) ?? 0) < minHits) continue;
    const again = () =>
      runChecked(scenario.config, scenario.commands, target.factory, lockstepOptions(run, budget, scenario), run.watch);
    const ran = await again();
    if (ran === 'refused') continue;
    if (ran === 'lost') {
      lost = true;
      stoppedEarly = true;
      break;
    }
    noteAdapter(run, ran);
    // An implementation that cannot start from a snapshot leaves this rule's edge not reached.
    if (ran.cannotStart === true) break;
    if (ran.result.interrupted === true) {
      stoppedEarly = true;
      break;
    }
    kept += 1;
    countRun(ran, own.counts);
    const a = attribution(ran);
    if (a === null) continue;
    keep(run, { ...a, campaign: rule, fixture: undefined, index, run: ran, rerun: again }, own);
    if (a.rule === rule) break; // this rule departs: its campaign has found what it looks for
  }
  return { ...own, kept, complete: !stoppedEarly, lost };
}

/** Each departing rule's shrunk departure and, on a wall clock, its replays. */
interface Shrunk {
  readonly departures: Map<RuleId, Departure>;
  readonly replays: Map<RuleId, Replays>;
}

/**
 * Step 3: each departing rule's departure, shrunk: its own campaign's if it has one, else the
 * first found; on a wall clock, replayed REPLAYS times to tell a departure from a flaky one. The
 * rules go as many at a time as their campaigns did (on a wall clock shrinking is most of a
 * profile's time, and mostly waiting); the results are kept by rule, so the page does not depend
 * on which ends first.
 */
async function shrinkPass(run: ProfileRun, candidates: readonly Candidate[]): Promise<Shrunk> {
  const { options, target } = run;
  const wall = target.clock?.kind === 'wall';
  const departing = RULE_IDS.filter((rule) => candidates.some((c) => c.rule === rule));
  const shrunkByRule = await inOrder(departing.length, options.parallel ?? 1, async (i) => {
    const rule = departing[i] as RuleId;
    const mine = candidates.filter((c) => c.rule === rule);
    const first =
      mine.find((c) => c.campaign === rule) ?? mine.find((c) => c.campaign !== undefined) ?? (mine[0] as Candidate);
    const shrunk = await shrink(first, run, target, {
      seed: run.seed,
      maxCommands: run.maxCommands,
      budget: run.budget,
      replayCommand: options.replayCommand,
      replayPath: options.replay?.path,
    });
    const replays = wall ? await replay(shrunk.rerun, rule, (r) => noteAdapter(run, r)) : undefined;
    return { departure: shrunk.departure, replays };
  });
  const out: Shrunk = { departures: new Map(), replays: new Map() };
  departing.forEach((rule, i) => {
    const done = shrunkByRule[i];
    if (done === undefined) return;
    out.departures.set(rule, done.departure);
    if (done.replays !== undefined) out.replays.set(rule, done.replays);
  });
  return out;
}

/** Step 4: the result of one rule, from what the fixtures, the campaigns and the shrinking found. Pure. */
function ruleResult(run: ProfileRun, evidence: Evidence, shrunk: Shrunk, rule: RuleId): RuleResult {
  const { target, options } = run;
  const d = target.declarations[rule];
  const campaign = evidence.byRule.get(rule);
  const base = {
    rule,
    title: ruleOf(rule).title,
    commands: evidence.counts.get(rule) ?? 0,
    runs: campaign?.kept ?? 0,
    fixtures: evidence.fixtureRules.get(rule) ?? [],
    ...(target.upstream?.[rule] === undefined ? {} : { upstream: target.upstream[rule] }),
    ...(target.tolerances?.[rule] === undefined ? {} : { tolerance: target.tolerances[rule] }),
  };
  if (d?.kind === 'unsupported') return { ...base, status: 'unsupported', why: d.why };
  const variant = d?.kind === 'variant' ? { variant: d.variant, why: d.why } : {};
  const departure = shrunk.departures.get(rule);
  const replayed = shrunk.replays.get(rule);
  const lost = { reason: run.watch.reason ?? 'the broker was lost' };
  if (departure !== undefined && replayed !== undefined) {
    const status = replayStatus(replayed);
    // Replays the loss cut short decide nothing: neither a departure nor flaky.
    const cut = replayed.lost === true && status === 'budget_exhausted';
    const { lost: _l, ...replays } = replayed;
    return {
      ...base,
      ...variant,
      status: cut ? 'unknown' : status,
      ...(cut ? lost : {}),
      departure,
      ...(replays.runs === 0 ? {} : { replays }),
    };
  }
  if (departure !== undefined) return { ...base, ...variant, status: 'departs', departure };
  if (campaign === undefined ? evidence.fixturesLost : campaign.lost)
    return { ...base, ...variant, status: 'unknown', ...lost };
  const expired = run.budget?.expired === true;
  const incomplete =
    (campaign !== undefined && !campaign.complete) ||
    (campaign === undefined && (!evidence.fixturesComplete || (options.rules === undefined && expired)));
  if (incomplete) return { ...base, ...variant, status: 'budget_exhausted' };
  if (base.commands === 0) return { ...base, ...variant, status: 'not_reached' };
  return { ...base, ...variant, status: d?.kind === 'variant' ? 'variant' : 'conforms' };
}

/** A divergence no rule explains, as the profile tells it. Pure. */
function unattributedOf(seed: number, c: Candidate): Unattributed {
  return {
    source: c.fixture === undefined ? 'campaign' : 'fixture',
    ...(c.campaign === undefined
      ? {}
      : { campaign: c.campaign, seed: campaignSeed(seed, c.campaign), path: String(c.index) }),
    ...(c.fixture === undefined ? {} : { fixture: c.fixture }),
    divergence: c.divergence,
    story: renderStory(c.run.result),
  };
}

/**
 * How a shrunk departure replayed: of the `runs` fresh runs that ran to their end (at most REPLAYS;
 * fewer when the time limit stopped the others), `departed` departed on the same rule.
 */
export interface Replays {
  readonly runs: number;
  readonly departed: number;
  /** The broker was lost before the replays ended (never stored: the rule is then `unknown`). */
  readonly lost?: boolean;
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
  rerun: () => Promise<Checked>,
  rule: RuleId,
  noteAdapter: (run: LockstepRun) => void,
): Promise<Replays> {
  let runs = 0;
  let departed = 0;
  for (let i = 0; i < REPLAYS; i++) {
    const run = await rerun();
    if (run === 'lost') return { runs, departed, lost: true };
    if (run === 'refused' || run.result.interrupted === true) break;
    noteAdapter(run);
    runs += 1;
    if (attribution(run)?.rule === rule) departed += 1;
  }
  return { runs, departed };
}

/** How shrink() tells a departure it found. */
interface ShrinkOptions {
  seed: number;
  maxCommands: number;
  budget: Budget | undefined;
  replayCommand: ProfileOptions['replayCommand'];
  replayPath?: string | undefined;
}

/** The departure of candidate `c`, told by `run` (its shrunk run, or itself), with the command that replays it. Pure. */
function departureOf(
  c: Candidate,
  o: ShrinkOptions,
  run: LockstepRun,
  seed: number | undefined,
  path: string | undefined,
  unshrunk: number,
  divergence: Departure['divergence'],
): Departure {
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
}

/**
 * Shrinks one departure with fast-check, keeping only runs that depart on the same rule; a
 * fixture's is told as it is. Returns the departure and a way to run its story again.
 */
async function shrink(
  c: Candidate,
  settings: Pick<ProfileRun, 'checked' | 'ignoreFields' | 'watch'>,
  target: ProfileTarget,
  o: ShrinkOptions,
): Promise<{ departure: Departure; rerun: () => Promise<Checked> }> {
  if (c.campaign === undefined)
    return {
      departure: departureOf(c, o, c.run, undefined, undefined, c.run.result.steps.length, c.divergence),
      rerun: c.rerun,
    };
  const rule = c.rule;
  const seed = campaignSeed(o.seed, c.campaign);
  const arb = targetedScenarioArb(c.campaign, o.maxCommands);
  let last: { run: LockstepRun; divergence: Departure['divergence']; rerun: () => Promise<Checked> } = {
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
      lockstepOptions(settings, o.budget, scenario),
      settings.watch,
    );
    // Neither a run the time limit cut short, nor one the loss of the broker did, nor one the model cannot restart is a departure.
    if (run === 'refused' || run === 'lost' || run.result.interrupted === true) return true;
    const a = attribution(run);
    if (a === null || a.rule !== rule) return true;
    last = {
      run,
      divergence: a.divergence,
      rerun: () =>
        runChecked(
          scenario.config,
          scenario.commands,
          target.factory,
          lockstepOptions(settings, o.budget, scenario),
          settings.watch,
        ),
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
  return {
    departure: departureOf(c, o, last.run, seed, path, c.run.result.steps.length, last.divergence),
    rerun: last.rerun,
  };
}
