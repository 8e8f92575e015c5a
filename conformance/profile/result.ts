/**
 * What a profile reports, as data, with its zod schema (`jobcheck.profile/1`) so that a stored
 * profile can be read back and checked. One entry per rule of the contract, in RULE_IDS order.
 */
import { z } from 'zod';
import { RULE_IDS } from '../../contract/rules.ts';
import type { RuleId } from '../../contract/rules.ts';

/** Version tag of the profile format. */
export const PROFILE_FORMAT = 'jobcheck.profile/1' as const;

/**
 * A rule's result. `conforms`: no departure, and at least one command exercised the rule
 * (`commands`); `variant`: the same, checked against the declared variant of the model;
 * `departs`: a shrunk story departs on the rule; `unsupported`: declared, not checked;
 * `not_reached`: no command exercised it, so nothing is known; `budget_exhausted`: the time limit
 * stopped its campaign first, so nothing is known either.
 */
export type RuleStatus = 'conforms' | 'variant' | 'departs' | 'unsupported' | 'not_reached' | 'budget_exhausted';

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
  /** Commands (generated or of fixtures) that exercised the rule and agreed. */
  readonly commands: number;
  /** Runs of its targeted campaign that exercised it. */
  readonly runs: number;
  /** Fixtures whose model run exercises it. */
  readonly fixtures: readonly string[];
  readonly departure?: Departure;
  /** Upstream report of the same behaviour (from the target). */
  readonly upstream?: string;
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

/** A whole profile. */
export interface Profile {
  readonly format: typeof PROFILE_FORMAT;
  readonly queue: string;
  readonly version: string;
  /** The adapter's own name. */
  readonly adapter: string;
  readonly seed: number;
  /** Runs of each rule's targeted campaign. */
  readonly runs: number;
  readonly maxCommands: number;
  /** `departs` when any rule departs or a divergence is unattributed; `incomplete` when a budget ran out; else `conforms`. */
  readonly verdict: 'conforms' | 'departs' | 'incomplete';
  readonly rules: readonly RuleResult[];
  readonly unattributed: readonly Unattributed[];
}

const ruleId = z.enum(RULE_IDS);
const divergenceSchema = z.strictObject({
  step: z.int(),
  kind: z.string(),
  field: z.string(),
  model: z.string(),
  impl: z.string(),
});

/** Schema of a profile (`jobcheck.profile/1`). */
export const profileSchema = z.strictObject({
  format: z.literal(PROFILE_FORMAT),
  queue: z.string(),
  version: z.string(),
  adapter: z.string(),
  seed: z.int(),
  runs: z.int().min(0),
  maxCommands: z.int().min(1),
  verdict: z.enum(['conforms', 'departs', 'incomplete']),
  rules: z.array(
    z.strictObject({
      rule: ruleId,
      title: z.string(),
      status: z.enum(['conforms', 'variant', 'departs', 'unsupported', 'not_reached', 'budget_exhausted']),
      variant: z.string().optional(),
      why: z.string().optional(),
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
      upstream: z.string().optional(),
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
});

/** The rule results that hold a verdict against the implementation (conforms, variant, departs). */
export const isChecked = (r: RuleResult): boolean =>
  r.status === 'conforms' || r.status === 'variant' || r.status === 'departs';
