/**
 * The middle of a check: the path suite, then a random campaign, with their coverage merged. The
 * campaign runs even after a failing path: its shrunk story is often the shortest.
 */
import type { AdapterFactory } from '../adapter.ts';
import type { Budget } from '../budget.ts';
import type { CampaignProgress, CampaignResult, CampaignShard } from '../random/campaign.ts';
import { runCampaign } from '../random/campaign.ts';
import { mergeCoverage } from '../coverage/coverage.ts';
import type { Coverage } from '../coverage/coverage.ts';
import type { LifecyclePath } from '../paths/lifecyclePaths.ts';
import type { PathOutcome, PathSuiteResult } from '../paths/pathSuite.ts';
import { runPathSuite } from '../paths/pathSuite.ts';

/** Options of the path suite and the campaign. */
export interface PathsAndCampaignOptions {
  /** Stores of the path suite. */
  readonly pathFactory: AdapterFactory;
  /** Stores of the campaign. */
  readonly campaignFactory: AdapterFactory;
  readonly seed: number;
  readonly runs?: number | undefined;
  readonly maxCommands?: number | undefined;
  readonly path?: string | undefined;
  readonly budget?: Budget | undefined;
  readonly parallel: number;
  readonly shard?: CampaignShard | undefined;
  /** Paths of the path suite (default: all of lifecyclePaths()). */
  readonly paths?: readonly LifecyclePath[] | undefined;
  /** Called after each path of the suite. */
  readonly onPath?: (done: number, total: number, outcome: PathOutcome) => void;
  readonly onCampaign?: (progress: CampaignProgress) => void;
  /** Called when the path suite has ended (with what it found and its milliseconds) and the campaign starts. */
  readonly onCampaignStart?: (paths: PathSuiteResult, pathsMs: number) => void;
  /** The campaign's result when it is left out (`concurrent.when: 'only'`): it is not run. */
  readonly campaign?: CampaignResult | undefined;
}

/** What the path suite and the campaign found. */
export interface PathsAndCampaign {
  readonly pathSuite: PathSuiteResult;
  /** Milliseconds from the start of the path suite to its end. */
  readonly pathsMs: number;
  readonly campaign: CampaignResult;
  /** Path suite and campaign coverage, merged. */
  readonly coverage: Coverage;
}

const given = <K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } =>
  (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };

/** Runs the path suite, then the campaign. Divergences are data; never throws for them. */
export async function runPathsAndCampaign(options: PathsAndCampaignOptions): Promise<PathsAndCampaign> {
  const started = performance.now();
  const pathSuite = await runPathSuite({
    factory: options.pathFactory,
    parallel: options.parallel,
    ...given('onProgress', options.onPath),
    ...given('budget', options.budget),
    ...given('paths', options.paths),
  });
  const pathsMs = performance.now() - started;
  options.onCampaignStart?.(pathSuite, pathsMs);
  const campaign =
    options.campaign ??
    (await runCampaign({
      factory: options.campaignFactory,
      seed: options.seed,
      parallel: options.parallel,
      ...given('runs', options.runs),
      ...given('maxCommands', options.maxCommands),
      ...given('path', options.path),
      ...given('budget', options.budget),
      ...given('shard', options.shard),
      ...given('onProgress', options.onCampaign),
    }));
  return { pathSuite, pathsMs, campaign, coverage: mergeCoverage(pathSuite.coverage, campaign.coverage) };
}
