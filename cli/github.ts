/**
 * `jobcheck github --from <result.json>`: what the GitHub Action (action.yml) does after the
 * check, in code rather than in the YAML's shell, so that a test can run it. It reads the check's
 * `--json` result (or `jobcheck merge --json`'s, for a sharded workflow) and the JUnit file, and
 * - appends the job summary to `$GITHUB_STEP_SUMMARY`: the verdict, the story of a failure with
 *   the command that repeats it, the failing items, the coverage table;
 * - appends the step's outputs to `$GITHUB_OUTPUT`: `verdict`, `exit-code`, `report`, `junit`;
 * - prints one `::error` annotation per failure (each failing case of the JUnit file, or the
 *   shortest failure when there is no JUnit file), titled with what failed, its message naming
 *   the contract's rules the story cites and the command that repeats it, and placed on the
 *   implementation's file when the target names one that exists.
 *
 * It never fails the job (exit 0 unless misused): the Action's last step exits with the check's
 * code. Outside GitHub (no `$GITHUB_STEP_SUMMARY`), the summary goes to stdout. The result is
 * validated by its schema and its verdict worked out from its parts (cli/mergeJsonSchema.ts); the
 * GitHub files are checked before any work (cli/outputs.ts). The command that repeats a failure
 * comes from the result's own fields, never from a story's text, and only in the shape the check
 * writes it (a file may say anything: no `;`, no `$(...)`); every text of the files is written
 * through the doors of conformance/outside/outsideText.ts for Markdown and workflow commands.
 */
import { existsSync, statSync } from 'node:fs';
import { COVERAGE_CATEGORIES } from '../conformance/coverage/coverage.ts';
import { MAX_ARTIFACT_BYTES } from '../conformance/lockstep/artifact.ts';
import { readInputFile } from '../conformance/outside/inputFile.ts';
import {
  markdownBlock,
  markdownCode,
  markdownText,
  outsideText,
  workflowData,
  workflowProperty,
} from '../conformance/outside/outsideText.ts';
import { RULES } from '../contract/rules.ts';
import type { CliIO } from './args.ts';
import { SetupError, UsageError, parseCommandArgs } from './args.ts';
import { exitCodeOfVerdict } from './checkCommand.ts';
import { CHECK_JSON_FORMAT, checkResultSchema } from './checkJsonSchema.ts';
import type { CheckResultJson } from './checkJsonSchema.ts';
import { RESTART_RULES, initialState, rulesExercised, step } from '../model/index.ts';
import { listFixtures, loadFixture } from '../model/fixtures.ts';
import { MAX_JUNIT_BYTES, caseFailure, parseJunit } from './mergeJunit.ts';
import { MERGE_JSON_FORMAT, checkResultVerdict, mergeFileVerdict, mergeResultSchema } from './mergeJsonSchema.ts';
import type { MergeResultJson } from './mergeJsonSchema.ts';
import { outputError, writeOutput } from './outputs.ts';
import { flagWord } from './output/reproduce.ts';
import { checkOutputFile } from '../conformance/outside/outputFile.ts';
import { codeOf, messageOf } from '../contract/index.ts';

/** Usage text of `jobcheck github`. */
export const GITHUB_USAGE = `Usage: jobcheck github --from <result.json> [--junit <file>] [--exit-code <n>] [--report <dir>]

For a GitHub Actions step after jobcheck check (action.yml runs it): reads the check's --json
result (or jobcheck merge --json's) and the JUnit file; appends the job summary (verdict, story,
coverage table) to $GITHUB_STEP_SUMMARY, the outputs verdict, exit-code, report and junit to
$GITHUB_OUTPUT, and prints an ::error annotation for each failure. Exits 0: the job fails on the
check's own exit code.
  --from <file>      the --json result of jobcheck check or jobcheck merge
  --junit <file>     the JUnit file of the check (one annotation per failing case)
  --exit-code <n>    the exit code of the check (default: the one its verdict gives)
  --report <dir>     the report directory, given as the report output
  -h, --help         show this text
`;

/** What the step writes: the summary's Markdown, the outputs and the annotation lines. */
export interface GithubStep {
  readonly summary: string;
  readonly outputs: Readonly<Record<string, string>>;
  readonly annotations: readonly string[];
}

/**
 * One failure to annotate: its title, the text of its story (for its rules), a one-line message,
 * rules its story does not cite, and the command that repeats it (else the whole check again).
 */
interface Failed {
  readonly title: string;
  readonly message: string;
  readonly story: string;
  readonly rules?: readonly string[];
  readonly repeat?: string;
}

const VERDICT_LINE: Record<string, string> = {
  agree: 'AGREE: the implementation agrees with the model',
  diverge: 'DIVERGE: the implementation disagrees with the model',
  incomplete:
    'INCOMPLETE: the check did not run in full, or a phase exercised nothing; nothing diverged in what ran, which is not a pass',
  error: 'ERROR: the check could not run',
};

const RULE_IDS: ReadonlySet<string> = new Set(RULES.map((r) => r.id));

/**
 * The ids of the contract's rules a story cites, in order, once each: from the lines the story
 * itself begins with `rule <id> (docs/contract.md#rule-<id>)` (text from outside never begins a
 * line of a story), and only ids of the contract's rules. Pure.
 */
export function rulesOf(story: string): string[] {
  // Lines are the story's own, split at its newlines only (a regex's `^` would also start one at a CR or U+2028).
  const cited = story.split('\n').map((line) => /^ *rule ([a-z0-9-]+) \(docs\/contract\.md#rule-\1\)/.exec(line)?.[1]);
  return [...new Set(cited.filter((id): id is string => id !== undefined && RULE_IDS.has(id)))];
}

/**
 * The rules that decided step `n` (from 1) of the fixture story `name`, worked out on the model
 * (a fixture's story tells expectations, not rules); empty for an unknown story or step. Pure
 * (reads the fixture files).
 */
export function fixtureRules(name: string, n: number): string[] {
  if (!listFixtures().includes(name)) return [];
  const fixture = loadFixture(name);
  let state = initialState(fixture.config);
  for (const [i, s] of fixture.steps.entries()) {
    if (!('do' in s)) {
      if (i + 1 === n) return 'restart' in s ? [...RESTART_RULES] : [];
      continue;
    }
    const result = step(state, s.do);
    if (i + 1 === n) return [...rulesExercised(state, s.do, result)];
    state = result.state;
  }
  return [];
}

/** An implementation flag's value as flagWord writes it: plain, or double-quoted with `"\$` and backquotes escaped. */
const FLAG_WORD = '(?:[\\w./:=@-]+|"(?:[^"\\\\$`\\n\\r]|\\\\["\\\\$`])*")';
/**
 * A reproduce line as the check writes it (cli/output/reproduce.ts): the target's flags (captured,
 * with the flags that shape the runs), the seed (captured) and a path; nothing else, so that a
 * line read from a file can name no command but jobcheck's, and none after a `;`.
 */
const REPRODUCE = new RegExp(
  `^npx jobcheck check ((?:--builtin|--broken [\\w-]+|--(?:impl|module) ${FLAG_WORD})(?: --workers \\d+)?(?: --max-commands \\d+)?) --seed (-?\\d+) --(?:path|concurrent-path) \\d+(?::\\d+)*$`,
);

/**
 * The command that repeats a result's failure: its `failure.reproduce` field (a campaign's or
 * competing workers' shrunk run), when that is a line the check writes (REPRODUCE) for the
 * result's own seed; undefined otherwise. Never read from the story's text. Pure.
 */
export function reproduceOf(result: CheckResultJson): string | undefined {
  const command = result.failure?.reproduce;
  const m = command === undefined ? null : REPRODUCE.exec(command);
  return m !== null && Number(m[2]) === result.seed ? command : undefined;
}

/**
 * The flags that name the target, for a command that runs the whole check again: from the
 * campaign's reproduce line when there is one, else made from the target's name, quoted as the
 * check quotes it (flagWord). Pure.
 */
function targetFlags(result: CheckResultJson): string {
  const m = REPRODUCE.exec(reproduceOf(result) ?? '');
  if (m?.[1] !== undefined) return m[1];
  const t = result.target;
  const broken = /^broken\/([\w-]+)$/.exec(t);
  if (broken !== null) return `--broken ${broken[1]}`;
  if (t === 'impl/JobStore') return '--builtin';
  if (/\.(m?[jt]s)$/.test(t) && !t.includes(' ')) return `--module ${flagWord(t)}`;
  return `--impl ${flagWord(t)}`;
}

/** The command that runs the whole check again, with its seed and runs. Pure. */
const checkAgain = (r: CheckResultJson): string =>
  `npx jobcheck check ${targetFlags(r)} --seed ${r.seed} --runs ${r.runs}${r.shard === null ? '' : ` --shard ${r.shard.index}/${r.shard.count}`}`;

/**
 * The implementation's file a target names: the first word of the command (the script, not its
 * interpreter) that is a file, as `exists` says; undefined when none is. Pure, given `exists`.
 */
export function implementationFile(target: string, exists: (path: string) => boolean): string | undefined {
  const words = target.match(/"[^"]*"|'[^']*'|\S+/g) ?? [];
  return words.map((w) => w.replace(/^["']|["']$/g, '')).find((w) => /[./]/.test(w) && !w.startsWith('-') && exists(w));
}

const unescapeXml = (s: string): string =>
  s
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&amp;/g, '&');

/**
 * The command that repeats the campaign's or the competing workers' failing case: the reproduce
 * field of the result (of the shard the case's name gives, `random campaign (shard 2/3)`) whose
 * failure came from that phase; for a campaign whose failure is not the result's shortest, the
 * campaign suite's own properties (seed, max-commands, path) after the target's flags. Never a
 * line of the case's story. Pure.
 */
function caseRepeat(
  results: readonly CheckResultJson[],
  what: string,
  name: string,
  properties: ReadonlyArray<readonly [string, string]>,
): string | undefined {
  const source = what === 'campaign' ? 'campaign' : what === 'concurrent' ? 'concurrent' : undefined;
  if (source === undefined) return undefined;
  const shard = / \(shard (\d+)\/(\d+)\)$/.exec(name);
  const ofShard = (r: CheckResultJson): boolean =>
    shard === null || (r.shard?.index === Number(shard[1]) && r.shard.count === Number(shard[2]));
  const mine = results.find((r) => r.failure?.source === source && ofShard(r));
  const reproduce = mine === undefined ? undefined : reproduceOf(mine);
  if (reproduce !== undefined || source !== 'campaign') return reproduce;
  const property = (key: string): string | undefined => properties.find(([k]) => k === key)?.[1];
  const [seed, path, max] = [property('seed'), property('path'), property('max-commands')];
  const result = results.find(ofShard);
  if (result === undefined || !/^-?\d+$/.test(seed ?? '') || !/^\d+(:\d+)*$/.test(path ?? '')) return undefined;
  const maxCommands = max !== undefined && /^\d+$/.test(max) ? ` --max-commands ${max}` : '';
  return `npx jobcheck check ${targetFlags(result)}${maxCommands} --seed ${seed} --path ${path}`;
}

/** The failing cases of a JUnit file written by jobcheck: title, message, story, and the command that repeats it from `results`. Pure. */
function junitFailures(xml: string, results: readonly CheckResultJson[]): Failed[] {
  const out: Failed[] = [];
  for (const suite of parseJunit(xml).suites) {
    for (const c of suite.cases) {
      const failed = caseFailure(c);
      if (failed === undefined || failed.type === 'time_limit') continue;
      const name = unescapeXml(/\sname="([^"]*)"/.exec(c)?.[1] ?? '');
      const what = suite.name.replace(/^jobcheck\./, '');
      const fixtureStep = what === 'fixtures' ? /^fixture .* fails at step (\d+)/.exec(unescapeXml(failed.text)) : null;
      const repeat = caseRepeat(results, what, name, suite.properties);
      out.push({
        ...(repeat === undefined ? {} : { repeat }),
        ...(fixtureStep === null ? {} : { rules: fixtureRules(name, Number(fixtureStep[1])) }),
        title:
          failed.type === 'setup_error'
            ? 'jobcheck could not start the check'
            : what === 'restore'
              ? `jobcheck: ${name}: not as the contract says`
              : `jobcheck: ${what === 'fixtures' ? 'fixture story ' : what === 'paths' ? 'path ' : ''}${name} diverges`,
        message: unescapeXml(failed.message),
        story: unescapeXml(failed.text),
      });
    }
  }
  return out;
}

/** The failures of a check without its JUnit file: its shortest one. Pure. */
function resultFailures(results: readonly CheckResultJson[]): Failed[] {
  return results.flatMap((r) =>
    r.failure === null
      ? []
      : [
          {
            title: `jobcheck: ${r.failure.source === 'campaign' || r.failure.source === 'restore' ? '' : `${r.failure.source} `}${r.failure.name} diverges`,
            message: `diverges after ${r.failure.steps} steps`,
            story: r.failure.story,
            repeat: reproduceOf(r) ?? checkAgain(r),
          },
        ],
  );
}

/**
 * The annotation line of one failure: its three lines of message (what, the rules, the command
 * that repeats it) are the harness's own, each piece from the files escaped as one line. Pure.
 */
function annotation(f: Failed, file: string | undefined, fallback: string): string {
  const rules = [...new Set([...rulesOf(f.story), ...(f.rules ?? [])])];
  const ruleText =
    rules.length === 0
      ? 'the story names no rule of the contract'
      : `rule${rules.length === 1 ? '' : 's'} ${rules.join(', ')}`;
  const message = `${outsideText(f.message)}\n${ruleText} (docs/contract.md)\nrepeat: ${outsideText(f.repeat ?? fallback)}`;
  const props = [
    ...(file === undefined ? [] : [`file=${workflowProperty(file)}`]),
    `title=${workflowProperty(f.title)}`,
  ];
  return `::error ${props.join(',')}::${workflowData(message)}`;
}

const pct = (hit: number, total: number): string => (total === 0 ? '-' : `${Math.round((100 * hit) / total)}%`);

function coverageTable(coverage: CheckResultJson['coverage']): string[] {
  return [
    '| Coverage | Hit | Total | % |',
    '|---|---:|---:|---:|',
    ...COVERAGE_CATEGORIES.map(
      (c) => `| ${c} | ${coverage[c].hit} | ${coverage[c].total} | ${pct(coverage[c].hit, coverage[c].total)} |`,
    ),
  ];
}

/** What a check result says beyond its story: the phases that exercised nothing, the failing and not-run items. Pure. */
function itemsOf(r: CheckResultJson): string[] {
  const out: string[] = [];
  for (const n of r.notExercised ?? [])
    out.push(`- ${n.phase}: **not exercised** (not a pass): ${markdownText(n.reason)}`);
  const c = r.concurrent;
  if (c?.verdict === 'passed' && c.overlap !== undefined)
    out.push(
      `- competing workers: ${c.overlap.overlapping} of ${c.overlap.requests} requests in flight together with another (${c.overlap.pairs} overlapping pairs)`,
    );
  const restore = r.restore;
  if (restore != null && restore.verdict !== 'not_exercised')
    out.push(
      `- restore: ${restore.refused} of ${restore.offered} invalid snapshots refused as the contract says${restore.snapshots > restore.offered ? ` (${restore.snapshots - restore.offered} not offered)` : ''}`,
    );
  if (r.fixtures.failed.length > 0)
    out.push(`- fixture stories failing: ${r.fixtures.failed.map((f) => markdownCode(f.name)).join(', ')}`);
  if (r.paths.failed.length > 0) out.push(`- paths failing: ${r.paths.failed.map(markdownCode).join(', ')}`);
  const notRun = r.fixtures.notRun.length + r.paths.notRun.length;
  if (notRun > 0) out.push(`- fixture stories and paths not run: ${notRun}`);
  if (r.campaign.runs < r.campaign.runsPlanned)
    out.push(`- random runs: ${r.campaign.runs} of ${r.campaign.runsPlanned} planned`);
  return out;
}

/** The input of the step: a check's result, a merge's, or nothing (the check could not run). */
export type GithubInput =
  | { readonly kind: 'check'; readonly result: CheckResultJson }
  | { readonly kind: 'merge'; readonly result: MergeResultJson }
  | { readonly kind: 'none' };

/** Options of githubStep. */
export interface GithubStepOptions {
  /** The JUnit file's text, when there is one. */
  readonly junit?: string;
  readonly junitPath?: string;
  readonly exitCode?: number;
  readonly reportDir?: string;
  /** Whether a path names a file of the repository (for the annotations' `file=`). */
  readonly exists?: (path: string) => boolean;
}

/** The summary, outputs and annotations of the step, from what the check wrote. Pure, given `exists`. */
export function githubStep(input: GithubInput, options: GithubStepOptions = {}): GithubStep {
  const exists = options.exists ?? (() => false);
  // Worked out from what the result says happened, never taken from the file (mergeJsonSchema.ts).
  const verdict =
    input.kind === 'none'
      ? 'error'
      : input.kind === 'check'
        ? checkResultVerdict(input.result)
        : mergeFileVerdict(input.result);
  const exitCode = options.exitCode ?? (verdict === 'error' ? 2 : exitCodeOfVerdict(verdict)); // 2: the check could not start
  const results = input.kind === 'check' ? [input.result] : input.kind === 'merge' ? input.result.results : [];
  const target = input.kind === 'none' ? undefined : input.result.target;
  const file = target === undefined ? undefined : implementationFile(target, exists);
  const failures = options.junit !== undefined ? junitFailures(options.junit, results) : resultFailures(results);
  const first = results[0];
  const fallback = first === undefined ? 'npx jobcheck check --help' : checkAgain({ ...first, shard: null });

  const out: string[] = [`## jobcheck: ${VERDICT_LINE[verdict] ?? markdownText(verdict)}`, ''];
  if (input.kind === 'none') {
    out.push(`The check exited with code ${exitCode} and wrote no result.`);
    const setup = failures[0];
    if (setup !== undefined) out.push('', markdownBlock(setup.message));
    out.push('');
  } else {
    const r = input.result;
    const shard =
      input.kind === 'check' && input.result.shard !== null
        ? `, shard ${input.result.shard.index}/${input.result.shard.count}`
        : '';
    out.push(
      `Target ${markdownCode(r.target)}, seed ${r.seed}, ${r.runs} random runs planned${shard}; exit code ${exitCode}.`,
      '',
    );
    if (input.kind === 'merge') {
      out.push(
        '| Part | Verdict |',
        '|---|---|',
        ...input.result.parts.map((p, i) => {
          const part = input.result.results[i];
          return `| ${markdownText(p.label)} | ${part === undefined ? 'missing' : checkResultVerdict(part)} |`;
        }),
        '',
      );
    }
    const failing = results
      .filter((x) => x.failure !== null)
      .sort((a, b) => (a.failure?.steps ?? 0) - (b.failure?.steps ?? 0))[0];
    if (failing?.failure != null) {
      const f = failing.failure;
      const rules = rulesOf(f.story);
      out.push(
        `### The shortest story: ${markdownText(f.name)} (${markdownText(f.source)}, ${f.steps} steps)`,
        '',
        ...(rules.length === 0
          ? []
          : [`Rules: ${rules.map((x) => `[${x}](docs/contract.md#rule-${x})`).join(', ')}.`, '']),
        markdownBlock(f.story),
        '',
        `Repeat it: ${markdownCode(reproduceOf(failing) ?? checkAgain(failing))}`,
        '',
      );
    }
    const items = results.flatMap(itemsOf);
    if (items.length > 0) out.push(...items, '');
    out.push(...coverageTable(r.coverage), '');
  }
  const report =
    options.reportDir ??
    (input.kind === 'check' ? input.result.report?.dir : input.kind === 'merge' ? input.result.report.dir : undefined);
  const junit = options.junitPath ?? (input.kind === 'merge' ? input.result.report.junit : undefined);
  return {
    summary: `${out.join('\n')}\n`,
    outputs: {
      verdict,
      'exit-code': String(exitCode),
      ...(report === undefined ? {} : { report }),
      ...(junit === undefined ? {} : { junit }),
    },
    annotations: failures.map((f) => annotation(f, file, fallback)),
  };
}

/** The first issue of a failed parse as `field: message`, told safely. Pure. */
const firstIssue = (issues: ReadonlyArray<{ path: ReadonlyArray<PropertyKey>; message: string }>): string => {
  const issue = issues[0];
  return `${outsideText(issue?.path.map(String).join('.') || '(root)')}: ${outsideText(issue?.message ?? 'invalid')}`;
};

/**
 * Reads the --from file: a check's result, a merge's, or nothing when it is missing or empty (the
 * check did not run). Both are validated by their schemas; throws SetupError naming the field.
 */
async function readInput(file: string): Promise<GithubInput> {
  // Missing or an empty file: the check did not run. Anything but a regular file is refused when read.
  if (isEmpty(file)) return { kind: 'none' };
  let data: unknown;
  try {
    data = JSON.parse(await readInputFile(file, MAX_ARTIFACT_BYTES));
  } catch (error) {
    throw new SetupError(`github: cannot read ${file}: ${messageOf(error)}`);
  }
  const format = (data as { format?: unknown } | null)?.format;
  if (format === MERGE_JSON_FORMAT) {
    const m = mergeResultSchema.safeParse(data);
    if (!m.success) throw new SetupError(`github: ${file} is not a valid merge result: ${firstIssue(m.error.issues)}`);
    return { kind: 'merge', result: m.data };
  }
  if (format !== CHECK_JSON_FORMAT)
    throw new SetupError(`github: ${file} is not the --json result of jobcheck check or jobcheck merge`);
  const r = checkResultSchema.safeParse(data);
  if (!r.success) throw new SetupError(`github: ${file} is not a valid check result: ${firstIssue(r.error.issues)}`);
  return { kind: 'check', result: r.data };
}

/** Whether `file` is missing or an empty regular file (a check that wrote none). */
function isEmpty(file: string): boolean {
  try {
    const info = statSync(file);
    return info.isFile() && info.size === 0;
  } catch (error) {
    // Anything else (no permission) is left to the read, which says what it is.
    const code = codeOf(error);
    return code === 'ENOENT' || code === 'ENOTDIR';
  }
}

/** The GitHub file the variable `name` names, checked before anything is read or written; undefined when unset. */
async function githubFile(name: string): Promise<string | undefined> {
  const file = process.env[name];
  if (file === undefined || file === '') return undefined;
  await checkOutputFile(file).catch((error: unknown) => {
    throw outputError('github', `$${name}`, file, error);
  });
  return file;
}

/** Runs `jobcheck github`; returns 0 (2 for misuse, by UsageError or SetupError). */
export async function githubCommand(argv: readonly string[], io: CliIO): Promise<number> {
  const { values } = parseCommandArgs(
    'github',
    argv,
    {
      from: { type: 'string' },
      junit: { type: 'string' },
      'exit-code': { type: 'string' },
      report: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    false,
  );
  if (values.help === true) {
    io.stdout.write(GITHUB_USAGE);
    return 0;
  }
  if (values.from === undefined) throw new UsageError("github: give the check's result with --from <result.json>");
  const exitCode = values['exit-code'] === undefined ? undefined : Number(values['exit-code']);
  if (exitCode !== undefined && !(Number.isInteger(exitCode) && exitCode >= 0 && exitCode <= 255))
    throw new UsageError(`github: --exit-code must be 0 to 255 (got ${JSON.stringify(values['exit-code'])})`);
  // Both files are checked before any work: a FIFO, a folder or /dev/full is refused here, not written to.
  const summaryFile = await githubFile('GITHUB_STEP_SUMMARY');
  const outputFile = await githubFile('GITHUB_OUTPUT');
  const input = await readInput(values.from);
  const junitText =
    values.junit !== undefined && !isEmpty(values.junit)
      ? await readInputFile(values.junit, MAX_JUNIT_BYTES).catch((error: Error) => {
          throw new SetupError(`github: cannot read ${values.junit}: ${error.message}`);
        })
      : undefined;
  if (junitText !== undefined) {
    try {
      parseJunit(junitText);
    } catch (error) {
      throw new SetupError(`github: ${values.junit} is not a JUnit file of jobcheck check: ${messageOf(error)}`);
    }
  }
  const step = githubStep(input, {
    ...(junitText === undefined ? {} : { junit: junitText, junitPath: values.junit as string }),
    ...(exitCode === undefined ? {} : { exitCode }),
    ...(values.report === undefined ? {} : { reportDir: values.report }),
    exists: (path) => existsSync(path) && statSync(path).isFile(),
  });
  if (summaryFile !== undefined)
    await writeOutput('github', '$GITHUB_STEP_SUMMARY', summaryFile, step.summary, { append: true });
  else io.stdout.write(step.summary);
  const outputs = Object.entries(step.outputs).map(([k, v]) => `${k}=${outsideText(v)}\n`);
  if (outputFile !== undefined)
    await writeOutput('github', '$GITHUB_OUTPUT', outputFile, outputs.join(''), { append: true });
  for (const line of step.annotations) io.stdout.write(`${line}\n`);
  return 0;
}
