/**
 * `jobcheck profile`: an implementation checked rule by rule (conformance/profile/). Prints a
 * table rule → result (or the profile as JSON), writes the Markdown page on request. Exit code 0
 * when every checked rule conforms or is declared, 1 on a departure, 2 on bad input or setup, 3
 * when the time limit stopped a rule's campaign with nothing departing (not a pass). With
 * `--workers N`, competing workers run against the queue too (runConcurrentProfile): a history no
 * order of the model explains is a departure, a flaky or undecided one leaves the profile incomplete.
 */
import { MAX_MODULE_BYTES, inputFileProblem } from '../conformance/outside/inputFile.ts';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { RULE_IDS } from '../contract/rules.ts';
import type { RuleId } from '../contract/rules.ts';
import { Budget } from '../conformance/budget.ts';
import { MAX_PARALLEL } from '../conformance/parallel.ts';
import {
  DEFAULT_CONCURRENT_PROFILE_RUNS,
  ProfileError,
  describeConcurrentVerdict,
  describeRaceVerdict,
  describeStaleAckVerdict,
  renderProfileMarkdown,
  renderProfileText,
  runConcurrentProfile,
  runRaceSearch,
  runProfile,
  runStaleAck,
  withConcurrent,
} from '../conformance/profile/index.ts';
import type { ConcurrentSection, ProfileTarget, RaceSection, StaleAckSection } from '../conformance/profile/index.ts';
import { PATH_CONFIG } from '../conformance/paths/lifecyclePaths.ts';
import type { CliIO } from './args.ts';
import { SetupError, UsageError, durationFlag, intFlag, parseCommandArgs } from './args.ts';
import { MAX_RUNS, MAX_SHRINK_STEP } from '../conformance/random/campaign.ts';
import { prepareOutputFile, writeOutput } from './outputs.ts';
import { TARGET_OPTIONS, TARGET_USAGE, preflight, replyTimeoutFlag, resolveTarget } from './target.ts';
import type { Target, TargetFlags } from './target.ts';
import { EXIT_INCOMPLETE, MAX_TIME_LIMIT_MS, MAX_WORKERS } from './checkCommand.ts';
import { jsonText, terminalBlock } from '../conformance/outside/outsideText.ts';

/** Default targeted runs per rule. */
export const DEFAULT_PROFILE_RUNS = 30;
/** Default seed: profiles are meant to be repeated, so the seed is fixed unless given. */
export const DEFAULT_PROFILE_SEED = 1;
/** Default most commands per run. */
export const DEFAULT_PROFILE_MAX_COMMANDS = 30;
/** Default time limit of a profile, in ms (ten minutes). */
export const DEFAULT_PROFILE_TIME_LIMIT_MS = 600_000;

/** Usage text of `jobcheck profile`. */
export const PROFILE_USAGE = `Usage: jobcheck profile (--impl "<command>" | --module <path> | --builtin [--variant <name>]) [options]

Checks an implementation rule by rule against the model: for each rule of the contract, the fixture
stories that exercise it and a targeted random campaign whose runs exercise it. Prints a table
rule -> conforms (with the number of commands that exercised it) / departs (with its shortest
story) / unsupported (as declared) / not reached. A module may export a ProfileTarget (as
\`profileTarget\`, the default export, or any exported value with \`queue\`, \`factory\` and
\`declarations\`): its rules declared unsupported are left out, and its declared variants of the
model checked in place of their rules.
With --workers, competing workers also run against it (the target's concurrent factory: lanes
are separate connections), each history checked for linearizability against the model with the
declared variants, in scenarios that avoid the rules declared unsupported (the profile says how);
then the stale-acknowledgement scenario (w1's ack after its job was delivered again to w2), and a
search for races: the same campaign, letting pass every history whose requests, sent again one at
a time to a fresh instance, depart as well, so that what it finds needs the lanes.
Exit code: 0 every checked rule conforms or is declared, 1 a departure (or a history of competing
workers no order explains), 2 usage or setup error, 3 the time limit stopped a campaign with nothing
departing so far, or the competing workers' verdict is flaky or unknown (not a pass).

${TARGET_USAGE}
  --variant <name>     with --builtin: the catalogue's broken variant of that name (same as --broken)
Options:
  --runs <n>           targeted runs per rule that exercise it (default ${DEFAULT_PROFILE_RUNS})
  --seed <n>           seed of the profile (default ${DEFAULT_PROFILE_SEED}: profiles are repeatable)
  --max-commands <n>   most commands per run (default ${DEFAULT_PROFILE_MAX_COMMANDS})
  --rule <id>          only this rule's campaign (the fixtures still run)
  --path <path>        with --rule: replay that campaign's run at this fast-check path (a departure's replay line)
  --time-limit <s>     time limit of the whole profile (default ${DEFAULT_PROFILE_TIME_LIMIT_MS / 60_000}m)
  --parallel <n>       rules' campaigns in flight at once (default: the target's)
  --workers <n>        also run competing workers: scenarios of up to n worker lanes, 2 to ${MAX_WORKERS}
  --concurrent-runs <n>  with --workers: scenarios of competing workers (default ${DEFAULT_CONCURRENT_PROFILE_RUNS})
  --concurrent-path <path>  with --workers (and the --seed it was found with): replay only that
                       run of competing workers (the replay line of its story), no rule's campaign
  --race-path <path>   with --workers (and the --seed it was found with): replay only that run of
                       the search for races (sequential histories, and those that depart
                       one request at a time too, pass)
  --stale-ack          with --workers: run only the stale-acknowledgement scenario (its replay line)
  --markdown <file>    also write the profile as Markdown (what docs/profiles/ holds)
  --json               print the profile as JSON (format jobcheck.profile/2) instead of text
  -h, --help           show this text
`;

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null;
const isProfileTarget = (v: unknown): v is ProfileTarget =>
  isRecord(v) && typeof v['factory'] === 'function' && isRecord(v['declarations']) && typeof v['queue'] === 'string';

/** The ProfileTarget a module exports, if it exports one (`profileTarget`, the default export, or any exported value that is one). */
async function moduleProfileTarget(file: string): Promise<ProfileTarget | undefined> {
  let mod: Record<string, unknown>;
  try {
    mod = (await import(pathToFileURL(resolve(file)).href)) as Record<string, unknown>;
  } catch {
    return undefined; // resolveTarget loads it again and says why it cannot
  }
  const candidate = mod['profileTarget'] ?? mod['default'];
  return isProfileTarget(candidate) ? candidate : Object.values(mod).find(isProfileTarget);
}

/** A replayed run of the search for races, as `jobcheck profile --race-path` prints it. Pure. */
function raceText(r: RaceSection): string {
  const lines = [`races: ${describeRaceVerdict(r)}`];
  if (r.story !== undefined) lines.push('', r.story);
  return `${lines.join('\n')}\n`;
}

/** The stale-acknowledgement scenario, as `jobcheck profile --stale-ack` prints it. Pure. */
function staleAckText(a: StaleAckSection): string {
  const lines = [`stale acknowledgement: ${describeStaleAckVerdict(a)}`];
  if (a.story !== undefined) lines.push('', a.story);
  return `${lines.join('\n')}\n`;
}

/** A replayed run of competing workers, as `jobcheck profile --concurrent-path` prints it. Pure. */
function concurrentText(c: ConcurrentSection): string {
  const lines = [`competing workers: ${describeConcurrentVerdict(c)}`];
  if (c.story !== undefined) lines.push('', c.story);
  return `${lines.join('\n')}\n`;
}

const quote = (s: string): string => (/^[\w./:=@-]+$/.test(s) ? s : `"${s.replace(/(["\\$`])/g, '\\$1')}"`);

/** Runs `jobcheck profile`; returns the exit code. Throws UsageError or SetupError for exit code 2. */
export async function profileCommand(argv: readonly string[], io: CliIO): Promise<number> {
  const { values } = parseCommandArgs(
    'profile',
    argv,
    {
      ...TARGET_OPTIONS,
      variant: { type: 'string' },
      runs: { type: 'string' },
      seed: { type: 'string' },
      'max-commands': { type: 'string' },
      rule: { type: 'string' },
      path: { type: 'string' },
      'time-limit': { type: 'string' },
      parallel: { type: 'string' },
      workers: { type: 'string' },
      'concurrent-runs': { type: 'string' },
      'concurrent-path': { type: 'string' },
      'race-path': { type: 'string' },
      'stale-ack': { type: 'boolean' },
      markdown: { type: 'string' },
      json: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
    false,
  );
  if (values.help === true) {
    io.stdout.write(PROFILE_USAGE);
    return 0;
  }
  const runs = intFlag('profile', 'runs', values.runs, DEFAULT_PROFILE_RUNS, 1, 100_000);
  const seed = intFlag('profile', 'seed', values.seed, DEFAULT_PROFILE_SEED);
  const maxCommands = intFlag('profile', 'max-commands', values['max-commands'], DEFAULT_PROFILE_MAX_COMMANDS, 1, 1000);
  const timeLimitMs = durationFlag(
    'profile',
    'time-limit',
    values['time-limit'],
    DEFAULT_PROFILE_TIME_LIMIT_MS,
    1000,
    MAX_TIME_LIMIT_MS,
  );
  const parallel =
    values.parallel === undefined ? undefined : intFlag('profile', 'parallel', values.parallel, 1, 1, MAX_PARALLEL);
  const rule = values.rule;
  if (rule !== undefined && !(RULE_IDS as readonly string[]).includes(rule)) {
    throw new UsageError(
      `profile: --rule ${JSON.stringify(rule)} is not a rule of the contract (see docs/contract.md; e.g. account-head-only)`,
    );
  }
  if (values.path !== undefined && rule === undefined)
    throw new UsageError("profile: --path replays one run of a rule's campaign: give its --rule too");
  if (values.path !== undefined && !/^\d+(:\d+)*$/.test(values.path))
    throw new UsageError(`profile: --path must look like 3:0:1 (got ${JSON.stringify(values.path)})`);
  // A huge run index would make fast-check skip that many values synchronously, deaf to the time limit.
  const huge = (n: string, i: number): boolean => n.length > 15 || Number(n) >= (i === 0 ? MAX_RUNS : MAX_SHRINK_STEP);
  if (values.path?.split(':').some(huge)) {
    const bounds = `a run past ${MAX_RUNS} or a shrink step past ${MAX_SHRINK_STEP}`;
    throw new UsageError(`profile: --path ${JSON.stringify(values.path.slice(0, 60))} names ${bounds} (invalid_path)`);
  }
  const workers =
    values.workers === undefined ? undefined : intFlag('profile', 'workers', values.workers, 2, 2, MAX_WORKERS);
  if (workers === undefined && values['concurrent-runs'] !== undefined)
    throw new UsageError('profile: --concurrent-runs needs --workers 2 or more');
  if (workers === undefined && values['concurrent-path'] !== undefined)
    throw new UsageError('profile: --concurrent-path needs the --workers (and --seed) it was found with');
  const concurrentRuns = intFlag(
    'profile',
    'concurrent-runs',
    values['concurrent-runs'],
    DEFAULT_CONCURRENT_PROFILE_RUNS,
    1,
    MAX_RUNS,
  );
  const concurrentPath = values['concurrent-path'];
  if (concurrentPath !== undefined && !/^\d+(:\d+)*$/.test(concurrentPath))
    throw new UsageError(`profile: --concurrent-path must look like 3:0:1 (got ${JSON.stringify(concurrentPath)})`);
  if (concurrentPath?.split(':').some(huge)) {
    const bounds = `a run past ${MAX_RUNS} or a shrink step past ${MAX_SHRINK_STEP}`;
    throw new UsageError(
      `profile: --concurrent-path ${JSON.stringify(concurrentPath.slice(0, 60))} names ${bounds} (invalid_path)`,
    );
  }
  if (concurrentPath !== undefined && (rule !== undefined || values.path !== undefined))
    throw new UsageError(
      'profile: --concurrent-path replays a run of competing workers only: leave out --rule and --path',
    );
  const racePath = values['race-path'];
  if (workers === undefined && racePath !== undefined)
    throw new UsageError('profile: --race-path needs the --workers (and --seed) it was found with');
  if (racePath !== undefined && !/^\d+(:\d+)*$/.test(racePath))
    throw new UsageError(`profile: --race-path must look like 3:0:1 (got ${JSON.stringify(racePath)})`);
  if (racePath?.split(':').some(huge)) {
    const bounds = `a run past ${MAX_RUNS} or a shrink step past ${MAX_SHRINK_STEP}`;
    throw new UsageError(
      `profile: --race-path ${JSON.stringify(racePath.slice(0, 60))} names ${bounds} (invalid_path)`,
    );
  }
  if (racePath !== undefined && (rule !== undefined || values.path !== undefined || concurrentPath !== undefined))
    throw new UsageError(
      'profile: --race-path replays a run of the search for races only: leave out --rule, --path and --concurrent-path',
    );
  const staleAckOnly = values['stale-ack'] === true;
  if (staleAckOnly && workers === undefined) throw new UsageError('profile: --stale-ack needs --workers 2 or more');
  if (
    staleAckOnly &&
    (rule !== undefined || values.path !== undefined || concurrentPath !== undefined || racePath !== undefined)
  )
    throw new UsageError(
      'profile: --stale-ack runs the stale-acknowledgement scenario only: leave out --rule, --path, --concurrent-path and --race-path',
    );
  if (values.variant !== undefined && values.builtin !== true)
    throw new UsageError('profile: --variant names a broken variant of the built-in store: use it with --builtin');
  if (values.variant !== undefined && values.broken !== undefined)
    throw new UsageError('profile: give --variant or --broken, not both');
  if (values.markdown !== undefined) await prepareOutputFile('profile', 'the Markdown file', values.markdown);
  const moduleProblem =
    values.module === undefined ? undefined : inputFileProblem(resolve(values.module), MAX_MODULE_BYTES);
  if (moduleProblem !== undefined) throw new UsageError(`profile: --module ${values.module}: ${moduleProblem}`);

  const budget = new Budget(timeLimitMs);
  const timeout = replyTimeoutFlag('profile', values.timeout);
  const flags: TargetFlags = {
    impl: values.impl,
    module: values.module,
    builtin: values.variant === undefined ? values.builtin : undefined,
    broken: values.variant ?? values.broken,
    timeout,
    fresh: values.fresh,
    'normal-scheduling': values['normal-scheduling'],
    verbose: values.verbose,
    budget,
    ...(parallel === undefined ? {} : { parallel }),
  };
  let target: Target | undefined;
  let declared: ProfileTarget | undefined;
  try {
    declared = values.module === undefined ? undefined : await moduleProfileTarget(values.module);
    if (declared === undefined) target = await resolveTarget('profile', flags, io);
    const profileTarget: ProfileTarget = declared ?? {
      queue: target?.name ?? '(unknown)',
      version: 'unversioned',
      factory: (target as Target).factory,
      concurrentFactory: (target as Target).concurrentFactory,
      declarations: {},
    };
    const shown =
      values.variant === undefined
        ? (target?.flags ?? `--module ${quote(values.module ?? '')}`)
        : `--builtin --variant ${quote(values.variant)}`;
    if (target !== undefined) await preflight(target, PATH_CONFIG);
    const replayFlags = `${shown}${seed === DEFAULT_PROFILE_SEED ? '' : ` --seed ${seed}`}${maxCommands === DEFAULT_PROFILE_MAX_COMMANDS ? '' : ` --max-commands ${maxCommands}`}`;
    const setupError = (error: unknown): never => {
      if (error instanceof ProfileError) throw new SetupError(`profile: ${error.message}`);
      throw error;
    };
    const concurrentFlags = (w: number, path: string): string =>
      `npx jobcheck profile ${shown} --workers ${w} --seed ${seed} --concurrent-path ${path}`;
    const staleAckFlags = (w: number): string => `npx jobcheck profile ${shown} --workers ${w} --stale-ack`;
    const raceFlags = (w: number, path: string): string =>
      `npx jobcheck profile ${shown} --workers ${w} --seed ${seed} --race-path ${path}`;
    const concurrent = (w: number): Promise<ConcurrentSection> =>
      runConcurrentProfile(profileTarget, {
        workers: w,
        runs: concurrentRuns,
        seed,
        budget,
        ...(concurrentPath === undefined ? {} : { path: concurrentPath }),
        ...(timeout === undefined ? {} : { timeoutMs: timeout }),
        replayCommand: (path) => concurrentFlags(w, path),
        races: true,
        raceReplayCommand: (path) => raceFlags(w, path),
        staleAck: true,
        staleAckReplayCommand: staleAckFlags(w),
      }).catch(setupError);
    if (workers !== undefined && staleAckOnly) {
      // The stale-acknowledgement scenario alone: no rule's campaign, no fixture.
      const stale = await runStaleAck(profileTarget, {
        workers,
        seed,
        budget,
        ...(timeout === undefined ? {} : { timeoutMs: timeout }),
        staleAckReplayCommand: staleAckFlags(workers),
      }).catch(setupError);
      if (stale === undefined) {
        io.stdout.write(
          'stale acknowledgement: not run: the target has no concurrent factory, or a declared variant the checker cannot follow\n',
        );
        return 0;
      }
      io.stdout.write(values.json === true ? `${jsonText(stale, 2)}\n` : terminalBlock(staleAckText(stale)));
      return stale.verdict === 'kept' ? 0 : stale.verdict === 'departs' ? 1 : EXIT_INCOMPLETE;
    }
    if (workers !== undefined && racePath !== undefined) {
      // A replay of one run of the search for races: no rule's campaign, no fixture.
      const races = await runRaceSearch(profileTarget, {
        workers,
        seed,
        budget,
        racePath,
        ...(timeout === undefined ? {} : { timeoutMs: timeout }),
        raceReplayCommand: (path) => raceFlags(workers, path),
      }).catch(setupError);
      if (races === undefined) {
        io.stdout.write(
          'races: not run: the target has no concurrent factory, or a declared variant the checker cannot follow\n',
        );
        return 0;
      }
      io.stdout.write(values.json === true ? `${jsonText(races, 2)}\n` : terminalBlock(raceText(races)));
      return races.verdict === 'none_found' ? 0 : races.verdict === 'race' ? 1 : EXIT_INCOMPLETE;
    }
    if (workers !== undefined && concurrentPath !== undefined) {
      // A replay of one run of competing workers: no rule's campaign, no fixture.
      const section = await concurrent(workers);
      io.stdout.write(values.json === true ? `${jsonText(section, 2)}\n` : terminalBlock(concurrentText(section)));
      return section.verdict === 'linearizable' || section.verdict === 'not_run'
        ? 0
        : section.verdict === 'not_linearizable'
          ? 1
          : EXIT_INCOMPLETE;
    }
    const sequential = await runProfile(profileTarget, {
      runs,
      seed,
      maxCommands,
      budget,
      parallel: parallel ?? target?.parallel ?? 1,
      ...(rule === undefined ? {} : { rules: [rule as RuleId] }),
      ...(rule !== undefined && values.path !== undefined
        ? { replay: { rule: rule as RuleId, path: values.path } }
        : {}),
      replayCommand: (departing, campaign, path) =>
        campaign === undefined || path === undefined
          ? `npx jobcheck profile ${replayFlags} --rule ${departing}`
          : `npx jobcheck profile ${replayFlags} --rule ${campaign} --path ${path}`,
    }).catch(setupError);
    const profile = workers === undefined ? sequential : withConcurrent(sequential, await concurrent(workers));
    if (values.markdown !== undefined) {
      await writeOutput('profile', 'the Markdown file', values.markdown, renderProfileMarkdown(profile));
    }
    io.stdout.write(values.json === true ? `${jsonText(profile, 2)}\n` : renderProfileText(profile));
    return profile.verdict === 'conforms' ? 0 : profile.verdict === 'departs' ? 1 : EXIT_INCOMPLETE;
  } finally {
    budget.dispose();
    await target?.close();
    await declared?.close?.();
  }
}
