/**
 * `jobcheck profile`: an implementation checked rule by rule (conformance/profile/). Prints a
 * table rule → result (or the profile as JSON), writes the Markdown page on request. Exit code 0
 * when every checked rule conforms or is declared, 1 on a departure, 2 on bad input or setup, 3
 * when the time limit stopped a rule's campaign with nothing departing (not a pass). With
 * `--workers N`, competing workers run against the queue too (runConcurrentProfile): a history no
 * order of the model explains is a departure, a flaky or undecided one leaves the profile incomplete.
 * A module's ProfileTarget opens one store first: a broker it cannot reach is a setup error. One
 * BrokerWatch serves the whole profile: a broker lost mid-run leaves it incomplete (exit 3), the
 * rules it had not judged `unknown`, and nothing is asked of it again.
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
import { BrokerWatch } from '../conformance/profile/brokerWatch.ts';
import { DEFAULT_REPLY_TIMEOUT_MS } from '../conformance/adapter.ts';
import { MODULE_START_ALLOWANCE_MS } from '../conformance/isolated/moduleTarget.ts';
import type { ConcurrentSection, ProfileTarget, RaceSection, StaleAckSection } from '../conformance/profile/index.ts';
import { PATH_CONFIG } from '../conformance/paths/lifecyclePaths.ts';
import type { CliIO } from './args.ts';
import { z } from 'zod';
import type { FlagRule } from './args.ts';
import { SetupError, UsageError, durationFlag, intFlag, pathFlag, readFlags, seedFlag, withRules } from './args.ts';
import { MAX_RUNS, MAX_SHRINK_STEP } from '../conformance/random/campaign.ts';
import { prepareOutputFile, writeOutput } from './outputs.ts';
import { TARGET_FLAGS, TARGET_OPTIONS, TARGET_USAGE, preflight, resolveTarget } from './target.ts';
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
workers no order explains), 2 usage or setup error (a broker that cannot be reached at the start),
3 the time limit stopped a campaign with nothing departing so far, the broker was lost mid-run (the
rules it left are unknown), or the competing workers' verdict is flaky or unknown (not a pass).

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
  --json               print the profile as JSON (format jobcheck.profile/3) instead of text
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

/** The option table of `jobcheck profile`. */
const PROFILE_OPTIONS = {
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
} as const;

/** A replay path flag: its shape, then no run index or shrink step so large that fast-check would skip that many values synchronously, deaf to the time limit. */
const replayPath = (flag: string) =>
  pathFlag(flag).superRefine((value, ctx) => {
    const huge = (n: string, i: number): boolean =>
      n.length > 15 || Number(n) >= (i === 0 ? MAX_RUNS : MAX_SHRINK_STEP);
    if (!value.split(':').some(huge)) return;
    const bounds = `a run past ${MAX_RUNS} or a shrink step past ${MAX_SHRINK_STEP}`;
    ctx.addIssue({
      code: 'custom',
      message: `--${flag} ${JSON.stringify(value.slice(0, 60))} names ${bounds} (invalid_path)`,
    });
  });

/** `--rule`: a rule of the contract. */
const ruleFlag = z.string().transform((rule, ctx): RuleId => {
  const id = RULE_IDS.find((r) => r === rule);
  if (id !== undefined) return id;
  ctx.addIssue({
    code: 'custom',
    message: `--rule ${JSON.stringify(rule)} is not a rule of the contract (see docs/contract.md; e.g. account-head-only)`,
  });
  return z.NEVER;
});

/** The values of the flags of `jobcheck profile`. */
const PROFILE_FLAG_VALUES = z.object({
  ...TARGET_FLAGS,
  variant: z.string().optional(),
  runs: intFlag('runs', 1, 100_000).default(DEFAULT_PROFILE_RUNS),
  seed: seedFlag.default(DEFAULT_PROFILE_SEED),
  'max-commands': intFlag('max-commands', 1, 1000).default(DEFAULT_PROFILE_MAX_COMMANDS),
  'time-limit': durationFlag('time-limit', 1000, MAX_TIME_LIMIT_MS).default(DEFAULT_PROFILE_TIME_LIMIT_MS),
  parallel: intFlag('parallel', 1, MAX_PARALLEL).optional(),
  rule: ruleFlag.optional(),
  path: replayPath('path').optional(),
  workers: intFlag('workers', 2, MAX_WORKERS).optional(),
  'concurrent-runs': intFlag('concurrent-runs', 1, MAX_RUNS).optional(),
  'concurrent-path': replayPath('concurrent-path').optional(),
  'race-path': replayPath('race-path').optional(),
  'stale-ack': z.boolean().optional(),
  markdown: z.string().optional(),
  json: z.boolean().optional(),
  help: z.boolean().optional(),
});

/** The relations between the flags of `jobcheck profile`, in the order they are told. */
const PROFILE_FLAG_RULES: readonly FlagRule<z.output<typeof PROFILE_FLAG_VALUES>>[] = [
  (f) =>
    f.path !== undefined && f.rule === undefined
      ? "--path replays one run of a rule's campaign: give its --rule too"
      : undefined,
  (f) =>
    f.workers === undefined && f['concurrent-runs'] !== undefined
      ? '--concurrent-runs needs --workers 2 or more'
      : undefined,
  (f) =>
    f.workers === undefined && f['concurrent-path'] !== undefined
      ? '--concurrent-path needs the --workers (and --seed) it was found with'
      : undefined,
  (f) =>
    f['concurrent-path'] !== undefined && (f.rule !== undefined || f.path !== undefined)
      ? '--concurrent-path replays a run of competing workers only: leave out --rule and --path'
      : undefined,
  (f) =>
    f.workers === undefined && f['race-path'] !== undefined
      ? '--race-path needs the --workers (and --seed) it was found with'
      : undefined,
  (f) =>
    f['race-path'] !== undefined && (f.rule !== undefined || f.path !== undefined || f['concurrent-path'] !== undefined)
      ? '--race-path replays a run of the search for races only: leave out --rule, --path and --concurrent-path'
      : undefined,
  (f) => (f['stale-ack'] === true && f.workers === undefined ? '--stale-ack needs --workers 2 or more' : undefined),
  (f) =>
    f['stale-ack'] === true &&
    (f.rule !== undefined || f.path !== undefined || f['concurrent-path'] !== undefined || f['race-path'] !== undefined)
      ? '--stale-ack runs the stale-acknowledgement scenario only: leave out --rule, --path, --concurrent-path and --race-path'
      : undefined,
  (f) =>
    f.variant !== undefined && f.builtin !== true
      ? '--variant names a broken variant of the built-in store: use it with --builtin'
      : undefined,
  (f) => (f.variant !== undefined && f.broken !== undefined ? 'give --variant or --broken, not both' : undefined),
];

/** The flags of `jobcheck profile`, read. */
const PROFILE_FLAGS = withRules(PROFILE_FLAG_VALUES, PROFILE_FLAG_RULES);
type ProfileFlags = z.output<typeof PROFILE_FLAGS>;

/** Runs `jobcheck profile`; returns the exit code. Throws UsageError or SetupError for exit code 2. */
export async function profileCommand(argv: readonly string[], io: CliIO): Promise<number> {
  const read = readFlags('profile', argv, PROFILE_OPTIONS, PROFILE_FLAGS);
  if (read.help) {
    io.stdout.write(PROFILE_USAGE);
    return 0;
  }
  const flags = read.flags;
  if (flags.markdown !== undefined) await prepareOutputFile('profile', 'the Markdown file', flags.markdown);
  const moduleProblem =
    flags.module === undefined ? undefined : inputFileProblem(resolve(flags.module), MAX_MODULE_BYTES);
  if (moduleProblem !== undefined) throw new UsageError(`profile: --module ${flags.module}: ${moduleProblem}`);
  const budget = new Budget(flags['time-limit']);
  let opened: OpenedTarget | undefined;
  try {
    opened = await openProfileTarget(flags, io, budget);
    const run: ProfileRun = {
      flags,
      io,
      budget,
      watch: new BrokerWatch(budget),
      target: opened.profileTarget,
      replay: replayCommands(flags, opened.shown),
    };
    const workers = flags.workers;
    if (workers !== undefined && flags['stale-ack'] === true) return await staleAckOnly(run, workers);
    if (workers !== undefined && flags['race-path'] !== undefined)
      return await racePathOnly(run, workers, flags['race-path']);
    if (workers !== undefined && flags['concurrent-path'] !== undefined) return await concurrentPathOnly(run, workers);
    return await wholeProfile(run, opened.target?.parallel ?? 1);
  } finally {
    budget.dispose();
    await opened?.target?.close();
    // A client may wait forever to close on a broker that is gone.
    await boundedClose(opened?.declared?.close?.());
  }
}

/** Longest wait for a module's ProfileTarget to close. */
const TARGET_CLOSE_MS = 10_000;

/** Waits for `closing` at most TARGET_CLOSE_MS; what it throws is dropped (the profile is told already). */
async function boundedClose(closing: Promise<void> | undefined): Promise<void> {
  if (closing === undefined) return;
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    closing.catch(() => undefined),
    new Promise<void>((resolve) => {
      timer = setTimeout(resolve, TARGET_CLOSE_MS);
    }),
  ]);
  clearTimeout(timer);
}

/** The target a profile checks: what a module declares, or the implementation the flags choose, preflighted. */
interface OpenedTarget {
  readonly profileTarget: ProfileTarget;
  /** The implementation the flags chose, when the module declares no ProfileTarget. */
  readonly target: Target | undefined;
  /** The ProfileTarget the module declares, if it does. */
  readonly declared: ProfileTarget | undefined;
  /** The flags that choose it again, for replay lines. */
  readonly shown: string;
}

/** Opens the target of the flags. Throws UsageError or SetupError when it cannot. */
async function openProfileTarget(flags: ProfileFlags, io: CliIO, budget: Budget): Promise<OpenedTarget> {
  const declared = flags.module === undefined ? undefined : await moduleProfileTarget(flags.module);
  const targetFlags: TargetFlags = {
    ...flags,
    builtin: flags.variant === undefined ? flags.builtin : undefined,
    broken: flags.variant ?? flags.broken,
    budget,
  };
  const target = declared === undefined ? await resolveTarget('profile', targetFlags, io) : undefined;
  const opened = { target, declared };
  try {
    const profileTarget: ProfileTarget = declared ?? {
      queue: target?.name ?? '(unknown)',
      version: 'unversioned',
      factory: (target as Target).factory,
      concurrentFactory: (target as Target).concurrentFactory,
      declarations: {},
    };
    const shown =
      flags.variant === undefined
        ? (target?.flags ?? `--module ${quote(flags.module ?? '')}`)
        : `--builtin --variant ${quote(flags.variant)}`;
    if (target !== undefined) await preflight(target, PATH_CONFIG);
    // A module's own target is not isolated: its first store, within what a module's start gets.
    const bound = 2 * (flags.timeout ?? DEFAULT_REPLY_TIMEOUT_MS) + MODULE_START_ALLOWANCE_MS;
    if (declared !== undefined)
      await preflight({ name: flags.module ?? '', factory: declared.factory }, PATH_CONFIG, bound);
    return { ...opened, profileTarget, shown };
  } catch (error) {
    await target?.close();
    throw error;
  }
}

/** A profile under way: its flags, where it writes, its budget, its target and its replay lines. */
interface ProfileRun {
  readonly flags: ProfileFlags;
  readonly io: CliIO;
  readonly budget: Budget;
  /** The watch on the broker, shared by every part of the profile. */
  readonly watch: BrokerWatch;
  readonly target: ProfileTarget;
  readonly replay: ReplayCommands;
}

/** The commands that replay what a profile finds. */
interface ReplayCommands {
  concurrent(workers: number, path: string): string;
  staleAck(workers: number): string;
  race(workers: number, path: string): string;
  rule(departing: string, campaign: string | undefined, path: string | undefined): string;
}

/** The replay lines of a profile of the target `shown` selects. Pure. */
function replayCommands(flags: ProfileFlags, shown: string): ReplayCommands {
  const seed = flags.seed;
  const maxCommands = flags['max-commands'];
  const replayFlags = `${shown}${seed === DEFAULT_PROFILE_SEED ? '' : ` --seed ${seed}`}${maxCommands === DEFAULT_PROFILE_MAX_COMMANDS ? '' : ` --max-commands ${maxCommands}`}`;
  return {
    concurrent: (w, path) => `npx jobcheck profile ${shown} --workers ${w} --seed ${seed} --concurrent-path ${path}`,
    staleAck: (w) => `npx jobcheck profile ${shown} --workers ${w} --stale-ack`,
    race: (w, path) => `npx jobcheck profile ${shown} --workers ${w} --seed ${seed} --race-path ${path}`,
    rule: (departing, campaign, path) =>
      campaign === undefined || path === undefined
        ? `npx jobcheck profile ${replayFlags} --rule ${departing}`
        : `npx jobcheck profile ${replayFlags} --rule ${campaign} --path ${path}`,
  };
}

/** A ProfileError of the engine told as a setup error (exit code 2); any other error unchanged. */
const setupError = (error: unknown): never => {
  if (error instanceof ProfileError) throw new SetupError(`profile: ${error.message}`);
  throw error;
};

/** The reply timeout of the flags, as the engine's options take it. */
const timeoutOf = (flags: ProfileFlags): { timeoutMs?: number } =>
  flags.timeout === undefined ? {} : { timeoutMs: flags.timeout };

/** Competing workers against the target, with the stale-acknowledgement scenario and the search for races. */
function concurrentSection(run: ProfileRun, workers: number): Promise<ConcurrentSection> {
  const { flags, replay } = run;
  const path = flags['concurrent-path'];
  return runConcurrentProfile(run.target, {
    workers,
    runs: flags['concurrent-runs'] ?? DEFAULT_CONCURRENT_PROFILE_RUNS,
    seed: flags.seed,
    budget: run.budget,
    watch: run.watch,
    ...(path === undefined ? {} : { path }),
    ...timeoutOf(flags),
    replayCommand: (p) => replay.concurrent(workers, p),
    races: true,
    raceReplayCommand: (p) => replay.race(workers, p),
    staleAck: true,
    staleAckReplayCommand: replay.staleAck(workers),
  }).catch(setupError);
}

/** The stale-acknowledgement scenario alone: no rule's campaign, no fixture. */
async function staleAckOnly(run: ProfileRun, workers: number): Promise<number> {
  const { flags, io } = run;
  const stale = await runStaleAck(run.target, {
    workers,
    seed: flags.seed,
    budget: run.budget,
    watch: run.watch,
    ...timeoutOf(flags),
    staleAckReplayCommand: run.replay.staleAck(workers),
  }).catch(setupError);
  if (stale === undefined) {
    io.stdout.write(
      'stale acknowledgement: not run: the target has no concurrent factory, or a declared variant the checker cannot follow\n',
    );
    return 0;
  }
  io.stdout.write(flags.json === true ? `${jsonText(stale, 2)}\n` : terminalBlock(staleAckText(stale)));
  return stale.verdict === 'kept' ? 0 : stale.verdict === 'departs' ? 1 : EXIT_INCOMPLETE;
}

/** A replay of one run of the search for races: no rule's campaign, no fixture. */
async function racePathOnly(run: ProfileRun, workers: number, racePath: string): Promise<number> {
  const { flags, io } = run;
  const races = await runRaceSearch(run.target, {
    workers,
    seed: flags.seed,
    budget: run.budget,
    watch: run.watch,
    racePath,
    ...timeoutOf(flags),
    raceReplayCommand: (path) => run.replay.race(workers, path),
  }).catch(setupError);
  if (races === undefined) {
    io.stdout.write(
      'races: not run: the target has no concurrent factory, or a declared variant the checker cannot follow\n',
    );
    return 0;
  }
  io.stdout.write(flags.json === true ? `${jsonText(races, 2)}\n` : terminalBlock(raceText(races)));
  return races.verdict === 'none_found' ? 0 : races.verdict === 'race' ? 1 : EXIT_INCOMPLETE;
}

/** A replay of one run of competing workers: no rule's campaign, no fixture. */
async function concurrentPathOnly(run: ProfileRun, workers: number): Promise<number> {
  const section = await concurrentSection(run, workers);
  run.io.stdout.write(run.flags.json === true ? `${jsonText(section, 2)}\n` : terminalBlock(concurrentText(section)));
  if (section.verdict === 'linearizable' || section.verdict === 'not_run') return 0;
  return section.verdict === 'not_linearizable' ? 1 : EXIT_INCOMPLETE;
}

/** The whole profile: every rule's fixtures and campaign, then competing workers when asked; prints it and writes its page. */
async function wholeProfile(run: ProfileRun, targetParallel: number): Promise<number> {
  const { flags, io } = run;
  const rule = flags.rule;
  const sequential = await runProfile(run.target, {
    runs: flags.runs,
    seed: flags.seed,
    maxCommands: flags['max-commands'],
    budget: run.budget,
    watch: run.watch,
    parallel: flags.parallel ?? targetParallel,
    ...(rule === undefined ? {} : { rules: [rule] }),
    ...(rule !== undefined && flags.path !== undefined ? { replay: { rule, path: flags.path } } : {}),
    replayCommand: run.replay.rule,
  }).catch(setupError);
  const workers = flags.workers;
  const whole = workers === undefined ? sequential : withConcurrent(sequential, await concurrentSection(run, workers));
  // Lost during competing workers, after the rules: the profile is cut short all the same.
  const lost = run.watch.reason;
  const profile =
    lost === undefined || whole.lost !== undefined ? whole : { ...whole, lost, verdict: 'incomplete' as const };
  if (flags.markdown !== undefined)
    await writeOutput('profile', 'the Markdown file', flags.markdown, renderProfileMarkdown(profile));
  io.stdout.write(flags.json === true ? `${jsonText(profile, 2)}\n` : renderProfileText(profile));
  return profile.verdict === 'conforms' ? 0 : profile.verdict === 'departs' ? 1 : EXIT_INCOMPLETE;
}
