/**
 * What a profile reports, as data, with its zod schema (`jobcheck.profile/3`) so that a stored
 * profile can be read back and checked. One entry per rule of the contract, in RULE_IDS order.
 * Version 2 added the clock the queue ran on, the `flaky` status with its replay count, and each
 * rule's declared tolerance; version 3 the `unknown` status (the broker was lost) with its reason,
 * and the loss itself (`lost`). A version-2 profile holds neither and reads as it is; a version-1
 * one is not read back. The section of competing workers (`concurrent`) is optional.
 */
import { z } from 'zod';
import { RULE_IDS } from '../../contract/rules.ts';
import type { RuleId } from '../../contract/rules.ts';
import type { ProfileClock, UpstreamReport } from './target.ts';

/** Version tag of the profile format. */
export const PROFILE_FORMAT = 'jobcheck.profile/3' as const;
/** The format tags a stored profile may carry and still be read: this version's, and version 2 (a subset of it). */
export const PROFILE_FORMATS = ['jobcheck.profile/2', PROFILE_FORMAT] as const;

/**
 * A rule's result. `conforms`: no departure, and at least one command exercised the rule
 * (`commands`); `variant`: the same, checked against the declared variant of the model;
 * `departs`: a shrunk story departs on the rule; `unsupported`: declared, not checked;
 * `not_reached`: no command exercised it, so nothing is known; `budget_exhausted`: the time limit
 * stopped its campaign first, so nothing is known either; `flaky` (wall-clock targets only): a
 * shrunk story departed on the rule but departed again on fewer than 2 of its 3 replays, so it is
 * neither a departure nor a pass; `unknown`: the broker was lost while the rule was being asked,
 * or before, so nothing is known (`reason` says so): never a departure, never a pass.
 */
export type RuleStatus =
  | 'conforms'
  | 'variant'
  | 'departs'
  | 'flaky'
  | 'unsupported'
  | 'not_reached'
  | 'budget_exhausted'
  | 'unknown';

const RULE_STATUSES = [
  'conforms',
  'variant',
  'departs',
  'flaky',
  'unsupported',
  'not_reached',
  'budget_exhausted',
  'unknown',
] as const satisfies readonly RuleStatus[];

/** A departure: the shortest story found that departs on one rule, and how to repeat it. */
export interface Departure {
  /** Where it was found: a rule's targeted campaign, or a fixture story. */
  readonly source: 'campaign' | 'fixture';
  /** The rule whose campaign generated it (source `campaign`). */
  readonly campaign?: RuleId;
  /** The fixture (source `fixture`). */
  readonly fixture?: string;
  /** fast-check seed of that campaign, and the path of the shrunk run (source `campaign`). */
  readonly seed?: number;
  readonly path?: string;
  /** Steps of the story, and of the run before shrinking. */
  readonly steps: number;
  readonly unshrunkSteps: number;
  /** The diverging step and first differing field. */
  readonly divergence: {
    readonly step: number;
    readonly kind: string;
    readonly field: string;
    readonly model: string;
    readonly impl: string;
  };
  /** The story, told step by step (conformance/lockstep/story.ts). */
  readonly story: string;
  /** The command that repeats it. */
  readonly replay: string;
}

/** One rule's line of the profile. */
export interface RuleResult {
  readonly rule: RuleId;
  readonly title: string;
  readonly status: RuleStatus;
  /** The declared variant it was checked against, if any. */
  readonly variant?: string;
  /** The declaration's reason (unsupported or variant). */
  readonly why?: string;
  /** Why the result is `unknown`, in a sentence. */
  readonly reason?: string;
  /** Commands (generated or of fixtures) that exercised the rule and agreed. */
  readonly commands: number;
  /** Runs of its targeted campaign that exercised it. */
  readonly runs: number;
  /** Fixtures whose model run exercises it. */
  readonly fixtures: readonly string[];
  /**
   * The departure (status departs), the story that did not replay enough (status flaky), or one
   * whose replays the time limit stopped before they decided (status budget_exhausted).
   */
  readonly departure?: Departure;
  /** Wall-clock targets: of the fresh replays of the shrunk story that ran to their end, how many departed again. */
  readonly replays?: { readonly runs: number; readonly departed: number };
  /** How far the queue's timers may stray on this rule, as its adapter declares (wall-clock targets). */
  readonly tolerance?: string;
  /** Upstream report of the same behaviour (from the target): the thread and what it says. */
  readonly upstream?: UpstreamReport;
}

/** A divergence no exercised rule decides (an implementation error, say): reported, never dropped. */
export interface Unattributed {
  readonly source: 'campaign' | 'fixture';
  readonly campaign?: RuleId;
  readonly fixture?: string;
  readonly seed?: number;
  readonly path?: string;
  readonly divergence: Departure['divergence'];
  readonly story: string;
}

/**
 * The verdict of competing workers against the queue: `linearizable` (every run's history is
 * explained by an order of the model with the declared variants), `not_linearizable` (a shrunk
 * story no order explains), `flaky` (wall-clock queues: such a story failed again on fewer than 2
 * of its 3 replays), `unknown` (the checker's budget ran out on a history, or the adapter failed:
 * nothing is known), `budget_exhausted` (the time limit stopped the campaign: never a pass),
 * `not_run` (the target has no concurrent factory, or its declarations cannot be checked this way).
 */
export type ConcurrentVerdict =
  | 'linearizable'
  | 'not_linearizable'
  | 'flaky'
  | 'unknown'
  | 'budget_exhausted'
  | 'not_run';

const CONCURRENT_VERDICTS = [
  'linearizable',
  'not_linearizable',
  'flaky',
  'unknown',
  'budget_exhausted',
  'not_run',
] as const satisfies readonly ConcurrentVerdict[];

/** A profile's section of competing workers (`jobcheck profile --workers N`). */
export interface ConcurrentSection {
  readonly verdict: ConcurrentVerdict;
  /** Most worker lanes of a scenario. */
  readonly workers: number;
  /** Scenarios planned, and run to the end. */
  readonly runs: number;
  readonly runsDone: number;
  readonly seed: number;
  /** For each rule declared unsupported, what the scenarios avoided and why. */
  readonly avoided: readonly { readonly rule: RuleId; readonly why: string }[];
  /** Why the verdict is `not_run` or `unknown`, in a sentence. */
  readonly reason?: string;
  /** The adapter's own name. */
  readonly adapter?: string;
  /** The story of the shrunk failure (not_linearizable, flaky, or an adapter failure), its fast-check path, and the command that replays it. */
  readonly story?: string;
  readonly path?: string;
  readonly replay?: string;
  /** Wall-clock targets: how many fresh replays of the failure failed again. */
  readonly replays?: { readonly runs: number; readonly departed: number };
  /** The stale-acknowledgement scenario (conformance/concurrent/staleAck.ts), when it ran. */
  readonly staleAck?: StaleAckSection;
  /** The search for races (oneAtATime.ts), when it ran. */
  readonly races?: RaceSection;
}

/**
 * The verdict of the stale-acknowledgement scenario: `kept` (the history agrees with the model:
 * the old holder's ack after the redelivery is refused), `departs` (a story no order of the model
 * explains; on a wall clock, departed again on enough replays), `flaky`, `unknown` and
 * `budget_exhausted` as for ConcurrentVerdict.
 */
export type StaleAckVerdict = 'kept' | 'departs' | 'flaky' | 'unknown' | 'budget_exhausted';

const STALE_ACK_VERDICTS = [
  'kept',
  'departs',
  'flaky',
  'unknown',
  'budget_exhausted',
] as const satisfies readonly StaleAckVerdict[];

/** Competing workers asked the stale-acknowledgement question: an ack from the old holder after a redelivery. */
export interface StaleAckSection {
  readonly verdict: StaleAckVerdict;
  /** Why the verdict is `unknown`, in a sentence. */
  readonly reason?: string;
  /** The lanes story and the command that runs the scenario again (departs, flaky, or an adapter failure). */
  readonly story?: string;
  readonly replay?: string;
  /** Wall-clock targets: how many fresh replays departed again. */
  readonly replays?: { readonly runs: number; readonly departed: number };
}

/**
 * The verdict of a search for races: `none_found` (every history no order explains departed just
 * the same with its requests sent one at a time, or none did), `race` (a shrunk story that departs
 * with its requests in flight together and agrees with the model sent one at a time), `flaky`,
 * `unknown` and `budget_exhausted` as for ConcurrentVerdict.
 */
export type RaceVerdict = 'none_found' | 'race' | 'flaky' | 'unknown' | 'budget_exhausted';

const RACE_VERDICTS = [
  'none_found',
  'race',
  'flaky',
  'unknown',
  'budget_exhausted',
] as const satisfies readonly RaceVerdict[];

/**
 * Competing workers' search for races: the same campaign, in which a history no order explains is
 * let pass when its requests, sent again one at a time in the order they were sent or in the checker's
 * closest order, depart as well (the
 * rules above show those departures), so that what remains needs the lanes.
 */
export interface RaceSection {
  readonly verdict: RaceVerdict;
  /** Scenarios planned, and run to the end. */
  readonly runs: number;
  readonly runsDone: number;
  /** Histories no order explains that were let pass: their requests never overlapped, or departed one at a time too. */
  readonly oneAtATime: number;
  /** Why the verdict is `unknown`, in a sentence. */
  readonly reason?: string;
  /** The shrunk race's story, its fast-check path and the command that replays it. */
  readonly story?: string;
  readonly path?: string;
  readonly replay?: string;
  /** Wall-clock targets: how many fresh replays of the race departed again (and agreed one at a time). */
  readonly replays?: { readonly runs: number; readonly departed: number };
}

/** A whole profile. */
export interface Profile {
  readonly format: (typeof PROFILE_FORMATS)[number];
  readonly queue: string;
  readonly version: string;
  /** The adapter's own name. */
  readonly adapter: string;
  /** The clock the queue ran on. */
  readonly clock: ProfileClock;
  readonly seed: number;
  /** Runs of each rule's targeted campaign. */
  readonly runs: number;
  readonly maxCommands: number;
  /**
   * `incomplete` when the broker was lost (`lost`): the profile was cut short, whatever it found
   * before; else `departs` when any rule departs or a divergence is unattributed; `incomplete` when
   * a budget ran out or a rule is flaky; else `conforms`.
   */
  readonly verdict: 'conforms' | 'departs' | 'incomplete';
  /** Why the profile is cut short when its broker was lost, in a sentence (the rules it left are `unknown`). */
  readonly lost?: string;
  readonly rules: readonly RuleResult[];
  readonly unattributed: readonly Unattributed[];
  /** Competing workers against the queue, when asked for (`--workers`). */
  readonly concurrent?: ConcurrentSection;
  /** The queue under faults (conformance/faults/, `npm run profiles:faults`); it leaves `verdict` alone. */
  readonly faults?: FaultsSection;
}

/** The faults a fault campaign runs: SIGKILL and restart, SIGSTOP for a while, one worker cut off (hold). */
export const FAULT_NAMES = ['kill', 'pause', 'partition-hold'] as const;
/** `holds` (checked, nothing departed), `departs` (replayed), `unknown` (with the reason): never a pass not established. */
export const FAULT_VERDICTS = ['holds', 'departs', 'unknown'] as const;

/** What one fault's run counted, read from its history and its final snapshot. */
export interface FaultFigures {
  /** Submits the queue acknowledged (ok, not a duplicate). */
  readonly acknowledgedSubmits: number;
  /** Of those, jobs missing from the snapshot after recovery, or never handed out though a later claim found none. */
  readonly submitsLost: number;
  /** Commits the queue acknowledged as applied. */
  readonly committedEffects: number;
  /** Of those, effects missing from the snapshot's ledger after recovery. */
  readonly effectsLost: number;
  /** Effects acknowledged as applied more than once (the same account and key). */
  readonly effectsDoubled: number;
  /** Jobs handed out again by a claim sent after their ack was acknowledged (a lost acknowledgement). */
  readonly acknowledgedRedelivered: number;
  /** Requests whose reply the fault swallowed (indefinite in the history). */
  readonly indefinite: number;
}

/** One fault against one durability configuration. */
export interface FaultResult {
  readonly fault: (typeof FAULT_NAMES)[number];
  readonly configuration: string;
  readonly verdict: (typeof FAULT_VERDICTS)[number];
  readonly reason?: string;
  readonly story?: string;
  readonly replay?: string;
  readonly replays?: { readonly runs: number; readonly departed: number };
  readonly figures?: FaultFigures;
  /** Real milliseconds the fault's runs took. */
  readonly wallMs: number;
}

/** The queue under faults: the configurations run, what this machine cannot do, and a result per fault and configuration. */
export interface FaultsSection {
  readonly limits: string;
  readonly configurations: readonly { readonly name: string; readonly description: string; readonly promise: string }[];
  readonly results: readonly FaultResult[];
}

const faultFiguresSchema = z.strictObject({
  acknowledgedSubmits: z.int().min(0),
  submitsLost: z.int().min(0),
  committedEffects: z.int().min(0),
  effectsLost: z.int().min(0),
  effectsDoubled: z.int().min(0),
  acknowledgedRedelivered: z.int().min(0),
  indefinite: z.int().min(0),
});

/** Zod schema of a FaultsSection. */
export const faultsSectionSchema = z.strictObject({
  limits: z.string(),
  configurations: z.array(z.strictObject({ name: z.string(), description: z.string(), promise: z.string() })),
  results: z.array(
    z.strictObject({
      fault: z.enum(FAULT_NAMES),
      configuration: z.string(),
      verdict: z.enum(FAULT_VERDICTS),
      reason: z.string().optional(),
      story: z.string().optional(),
      replay: z.string().optional(),
      replays: z.strictObject({ runs: z.int().min(1), departed: z.int().min(0) }).optional(),
      figures: faultFiguresSchema.optional(),
      wallMs: z.number().min(0),
    }),
  ),
});

const ruleId = z.enum(RULE_IDS);
const divergenceSchema = z.strictObject({
  step: z.int(),
  kind: z.string(),
  field: z.string(),
  model: z.string(),
  impl: z.string(),
});

/** Schema of a profile (`jobcheck.profile/3`, and version 2, which it extends). */
export const profileSchema = z.strictObject({
  format: z.enum(PROFILE_FORMATS),
  queue: z.string(),
  version: z.string(),
  adapter: z.string(),
  clock: z.discriminatedUnion('kind', [
    z.strictObject({ kind: z.literal('logical') }),
    z.strictObject({ kind: z.literal('wall'), tickMs: z.number().positive(), settings: z.string().optional() }),
  ]),
  seed: z.int(),
  runs: z.int().min(0),
  maxCommands: z.int().min(1),
  verdict: z.enum(['conforms', 'departs', 'incomplete']),
  lost: z.string().optional(),
  concurrent: z
    .strictObject({
      verdict: z.enum(CONCURRENT_VERDICTS),
      workers: z.int().min(1),
      runs: z.int().min(0),
      runsDone: z.int().min(0),
      seed: z.int(),
      avoided: z.array(z.strictObject({ rule: ruleId, why: z.string() })),
      reason: z.string().optional(),
      adapter: z.string().optional(),
      story: z.string().optional(),
      path: z.string().optional(),
      replay: z.string().optional(),
      replays: z.strictObject({ runs: z.int().min(1), departed: z.int().min(0) }).optional(),
      staleAck: z
        .strictObject({
          verdict: z.enum(STALE_ACK_VERDICTS),
          reason: z.string().optional(),
          story: z.string().optional(),
          replay: z.string().optional(),
          replays: z.strictObject({ runs: z.int().min(1), departed: z.int().min(0) }).optional(),
        })
        .optional(),
      races: z
        .strictObject({
          verdict: z.enum(RACE_VERDICTS),
          runs: z.int().min(0),
          runsDone: z.int().min(0),
          oneAtATime: z.int().min(0),
          reason: z.string().optional(),
          story: z.string().optional(),
          path: z.string().optional(),
          replay: z.string().optional(),
          replays: z.strictObject({ runs: z.int().min(1), departed: z.int().min(0) }).optional(),
        })
        .optional(),
    })
    .optional(),
  rules: z.array(
    z.strictObject({
      rule: ruleId,
      title: z.string(),
      status: z.enum(RULE_STATUSES),
      variant: z.string().optional(),
      why: z.string().optional(),
      reason: z.string().optional(),
      commands: z.int().min(0),
      runs: z.int().min(0),
      fixtures: z.array(z.string()),
      departure: z
        .strictObject({
          source: z.enum(['campaign', 'fixture']),
          campaign: ruleId.optional(),
          fixture: z.string().optional(),
          seed: z.int().optional(),
          path: z.string().optional(),
          steps: z.int(),
          unshrunkSteps: z.int(),
          divergence: divergenceSchema,
          story: z.string(),
          replay: z.string(),
        })
        .optional(),
      replays: z.strictObject({ runs: z.int().min(1), departed: z.int().min(0) }).optional(),
      tolerance: z.string().optional(),
      upstream: z.strictObject({ url: z.string(), says: z.string() }).optional(),
    }),
  ),
  unattributed: z.array(
    z.strictObject({
      source: z.enum(['campaign', 'fixture']),
      campaign: ruleId.optional(),
      fixture: z.string().optional(),
      seed: z.int().optional(),
      path: z.string().optional(),
      divergence: divergenceSchema,
      story: z.string(),
    }),
  ),
  faults: faultsSectionSchema.optional(),
});

/** The rule results that hold a verdict against the implementation (conforms, variant, departs). */
export const isChecked = (r: RuleResult): boolean =>
  r.status === 'conforms' || r.status === 'variant' || r.status === 'departs';

/**
 * The profile with its section of competing workers, and the verdict that follows: `incomplete`
 * when the broker was lost (`lost`), else `departs` when
 * the workers' histories are not linearizable, `incomplete` when their verdict is flaky, unknown or
 * cut short (never a pass); `not_run` leaves the verdict as it was. Pure.
 */
export function withConcurrent(profile: Profile, concurrent: ConcurrentSection): Profile {
  const v = concurrent.verdict;
  const r = concurrent.races?.verdict;
  const a = concurrent.staleAck?.verdict;
  const undecided = (x: string | undefined): boolean => x === 'flaky' || x === 'unknown' || x === 'budget_exhausted';
  const verdict =
    profile.lost !== undefined
      ? 'incomplete'
      : profile.verdict === 'departs' || v === 'not_linearizable' || r === 'race' || a === 'departs'
        ? 'departs'
        : profile.verdict === 'incomplete' || undecided(v) || undecided(r) || undecided(a)
          ? 'incomplete'
          : profile.verdict;
  return { ...profile, verdict, concurrent };
}
