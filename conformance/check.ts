/**
 * The whole check in one call, as `jobcheck check` runs it: the path suite, then (if the paths
 * agree, or always when asked) a random campaign; coverage merged over both.
 */
import type { CampaignOptions, CampaignResult } from './campaign.ts';
import { checkCampaignPlan, runCampaign } from './campaign.ts';
import { mergeCoverage } from './coverage.ts';
import type { Coverage } from './coverage.ts';
import type { LifecyclePath } from './lifecyclePaths.ts';
import type { PathOutcome, PathSuiteResult } from './pathSuite.ts';
import { runPathSuite } from './pathSuite.ts';

/** Options of a full check: those of the campaign, plus whether to run the campaign after a failing path. */
export interface CheckOptions extends CampaignOptions {
  /** Run the campaign even when a path already diverged (default false: the path's story is shorter). */
  readonly campaignAfterPathFailure?: boolean;
  /** Called after each path of the suite. */
  readonly onPath?: (done: number, total: number, outcome: PathOutcome) => void;
  /** The factory of the campaign's stores, when it differs from `factory` (a durable process target: crash restarts). */
  readonly campaignFactory?: CampaignOptions['factory'];
  /** Paths of the path suite (default: all of lifecyclePaths(); none for a shard other than the first). */
  readonly paths?: readonly LifecyclePath[];
}

/** The outcome of a full check. */
export interface CheckResult {
  /** `incomplete`: the time limit stopped the check before it ran in full, and nothing diverged in what ran. */
  readonly verdict: 'agree' | 'diverge' | 'incomplete';
  readonly adapter: string;
  readonly pathSuite: PathSuiteResult;
  /** Milliseconds from the start of the check to the end of the path suite. */
  readonly pathsMs: number;
  /** Null when skipped because a path diverged. */
  readonly campaign: CampaignResult | null;
  /** Path suite and campaign coverage, merged. */
  readonly coverage: Coverage;
}

/** Runs the path suite and a random campaign against the implementation made by `options.factory`. */
export async function runCheck(options: CheckOptions): Promise<CheckResult> {
  const started = performance.now();
  // A campaign that would check nothing, or a path that names nothing, is refused before the path suite runs.
  const seed = options.seed ?? (Date.now() ^ (Math.random() * 0x100000000)) | 0;
  await checkCampaignPlan({ ...options, seed });
  const pathSuite = await runPathSuite({
    factory: options.factory,
    ...(options.onPath === undefined ? {} : { onProgress: options.onPath }),
    ...(options.budget === undefined ? {} : { budget: options.budget }),
    ...(options.parallel === undefined ? {} : { parallel: options.parallel }),
    ...(options.paths === undefined ? {} : { paths: options.paths }),
  });
  const pathsMs = performance.now() - started;
  const skip = pathSuite.verdict === 'diverge' && options.campaignAfterPathFailure !== true;
  const campaign = skip ? null : await runCampaign({ ...options, seed, factory: options.campaignFactory ?? options.factory });
  const verdicts = [pathSuite.verdict, campaign?.verdict ?? 'agree'];
  const verdict = verdicts.includes('diverge') ? 'diverge' : verdicts.includes('incomplete') ? 'incomplete' : 'agree';
  const coverage = campaign === null ? pathSuite.coverage : mergeCoverage(pathSuite.coverage, campaign.coverage);
  return { verdict, adapter: pathSuite.adapter, pathSuite, pathsMs, campaign, coverage };
}
