/**
 * `jobcheck merge <file-or-dir>...`: joins what the shards of one check wrote (each shard's
 * `--json` result, its coverage.json and its JUnit file, as CI jobs upload them) into one verdict,
 * one coverage report and one JUnit file.
 *
 * The merged verdict is never kinder than a part: a red shard makes it red (exit 1), a shard the
 * time limit stopped makes it incomplete (exit 3), never green; a shard that is missing (shard
 * 2 of 3 has no result, no coverage or no JUnit file among the files) is an error naming it
 * (exit 2), since a merge without it would call a part of the campaign checked that was not. The
 * merged reports name what they were merged from.
 *
 * Directories are searched for the files (a CI system downloads each shard's files into a folder
 * of its own); a file is known by its content, not its name: a check result
 * (`"format": "jobcheck.check/1"`), coverage (`"format": "jobcheck.coverage/1"`), a JUnit file
 * (`<testsuites`). Other files (failure.json, the HTML page) are passed over.
 */
import { readdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { COVERAGE_CATEGORIES, categorySummary, mergeCoverage } from '../conformance/coverage/coverage.ts';
import type { Coverage } from '../conformance/coverage/coverage.ts';
import { parseCoverage, writeCoverageReport } from '../conformance/coverage/coverageFiles.ts';
import { MAX_ARTIFACT_BYTES } from '../conformance/lockstep/artifact.ts';
import { readInputFile } from '../conformance/outside/inputFile.ts';
import { outsideText } from '../conformance/outside/outsideText.ts';
import type { CliIO } from './args.ts';
import { SetupError, UsageError, parseCommandArgs } from './args.ts';
import { exitCodeOfVerdict } from './checkCommand.ts';
import { CHECK_JSON_FORMAT, checkResultSchema } from './checkJsonSchema.ts';
import type { CheckResultJson } from './checkJsonSchema.ts';
import { junitShard, mergeJunit, parseJunit } from './mergeJunit.ts';
import type { JunitFile } from './mergeJunit.ts';
import { prepareOutputDir, prepareOutputFile } from './outputs.ts';

/** Default output directory of `jobcheck merge`. */
export const DEFAULT_MERGE_DIR = '.jobcheck/merged';
/** The version tag of `jobcheck merge --json`. */
export const MERGE_JSON_FORMAT = 'jobcheck.merge/1' as const;
/** Most files a merge reads from its directories. */
const MAX_FILES = 10_000;

/** Usage text of `jobcheck merge`. */
export const MERGE_USAGE = `Usage: jobcheck merge <file-or-dir>... [--report <dir>] [--junit <file>] [--shards <n>] [--json]

Joins the parts of one check run with --shard i/n (each part's --json result, coverage.json and
JUnit file; directories are searched for them) into one verdict: a part that diverged makes it
DIVERGE (exit 1), a part the time limit stopped makes it INCOMPLETE (exit 3), never AGREE; a
missing part is an error naming it (exit 2). Writes the merged coverage.json, coverage.md (which
opens with the verdict) and coverage.html into the report directory, and with --junit one JUnit file.
  --report <dir>   output directory (default ${DEFAULT_MERGE_DIR})
  --junit <file>   write the merged JUnit file (every part must have one)
  --shards <n>     the number of parts expected (default: the n of their --shard i/n)
  --json           print the merged result as JSON (format ${MERGE_JSON_FORMAT})
  -h, --help       show this text
`;

/** The verdict of a check. */
export type Verdict = CheckResultJson['verdict'];

/** The merged verdict of the parts of one check: diverge if any diverged, else incomplete if any was, else agree. Pure. */
export function mergeVerdicts(verdicts: readonly Verdict[]): Verdict {
  if (verdicts.includes('diverge')) return 'diverge';
  if (verdicts.length === 0 || verdicts.includes('incomplete')) return 'incomplete';
  return 'agree';
}

/** A part of the merged check: its label, its result and the files it came from. */
export interface MergedPart {
  /** `shard 2/3`, or the result's file for a check that was not sharded. */
  readonly label: string;
  readonly file: string;
  readonly result: CheckResultJson;
}

/** What `jobcheck merge --json` prints. */
export interface MergeResultJson {
  readonly format: typeof MERGE_JSON_FORMAT;
  readonly verdict: Verdict;
  readonly target: string;
  readonly seed: number;
  readonly runs: number;
  readonly parts: ReadonlyArray<{
    readonly label: string;
    readonly file: string;
    readonly verdict: Verdict;
    readonly stoppedByTimeLimit: boolean;
    /** Why the part is incomplete when the time limit is not the reason (a phase that exercised nothing), or null. */
    readonly notAPass: string | null;
  }>;
  /** The merged coverage: per category, items hit and items in all. */
  readonly coverage: CheckResultJson['coverage'];
  /** The parts' results in full, in shard order (their failures, stories and reproduce lines). */
  readonly results: readonly CheckResultJson[];
  readonly report: { readonly dir: string; readonly coverageMd: string; readonly junit?: string };
}

/** The files of the arguments: each file as it is, each directory searched (bounded). */
async function filesOf(args: readonly string[]): Promise<string[]> {
  const files: string[] = [];
  for (const arg of args) {
    const info = await stat(arg).catch((error: Error) => {
      throw new SetupError(`merge: cannot read ${arg}: ${error.message}`);
    });
    if (!info.isDirectory()) {
      files.push(arg);
      continue;
    }
    const inside = (await readdir(arg, { recursive: true })).filter((f) => /\.(json|xml)$/.test(f)).sort();
    files.push(...inside.map((f) => join(arg, f)));
    if (files.length > MAX_FILES) throw new SetupError(`merge: more than ${MAX_FILES} files under ${arg}`);
  }
  return files;
}

/** What a file holds, known by its content. */
type Known =
  | { readonly kind: 'result'; readonly file: string; readonly result: CheckResultJson }
  | { readonly kind: 'coverage'; readonly file: string; readonly coverage: Coverage }
  | { readonly kind: 'junit'; readonly file: string; readonly junit: JunitFile }
  | { readonly kind: 'other'; readonly file: string };

async function readKnown(file: string): Promise<Known> {
  const text = await readInputFile(file, MAX_ARTIFACT_BYTES).catch((error: Error) => {
    throw new SetupError(`merge: cannot read ${file}: ${error.message}`);
  });
  const problem = (what: string, message: string): SetupError =>
    new SetupError(`merge: ${file} looks like ${what} but is not one: ${message}`);
  if (file.endsWith('.xml')) {
    if (!text.includes('<testsuites')) return { kind: 'other', file };
    try {
      return { kind: 'junit', file, junit: parseJunit(text) };
    } catch (error) {
      throw problem('a JUnit file', (error as Error).message);
    }
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return { kind: 'other', file };
  }
  const format = (data as { format?: unknown } | null)?.format;
  if (format === CHECK_JSON_FORMAT) {
    const r = checkResultSchema.safeParse(data);
    if (!r.success) throw problem('a check result', `${r.error.issues[0]?.path.join('.') ?? ''} is invalid`);
    return { kind: 'result', file, result: r.data };
  }
  if (format === 'jobcheck.coverage/1') {
    try {
      return { kind: 'coverage', file, coverage: parseCoverage(data) };
    } catch (error) {
      throw problem('coverage', (error as Error).message);
    }
  }
  return { kind: 'other', file };
}

const shardLabel = (s: { index: number; count: number }): string => `shard ${s.index}/${s.count}`;

/**
 * The shard a coverage file counts, from its sources (`campaign seed=1 shard=2/3`), or undefined
 * for a check that was not sharded. Pure.
 */
export function coverageShard(cov: Coverage): string | undefined {
  for (const s of cov.sources) {
    const m = /^campaign seed=-?\d+ shard=(\d+\/\d+)$/.exec(s);
    if (m !== null) return m[1];
  }
  return undefined;
}

/**
 * Orders the results as the parts of one check and refuses a set that is not one: parts of
 * different checks (seed, runs, target), a part twice, a part missing. Throws SetupError naming
 * the part. Pure.
 */
export function partsOf(
  results: ReadonlyArray<{ file: string; result: CheckResultJson }>,
  expected?: number,
): MergedPart[] {
  if (results.length === 0)
    throw new SetupError(
      'merge: no check result among the files (the output of jobcheck check --json): there is no verdict to merge',
    );
  const first = results[0] as { file: string; result: CheckResultJson };
  for (const { file, result } of results) {
    for (const key of ['seed', 'runs', 'target'] as const)
      if (result[key] !== first.result[key])
        throw new SetupError(
          `merge: ${file} is not a part of the same check as ${first.file}: ${key} ${JSON.stringify(result[key])}, not ${JSON.stringify(first.result[key])}`,
        );
  }
  const sharded = results.filter((r) => r.result.shard !== null);
  if (sharded.length === 0) {
    if (results.length > 1)
      throw new SetupError(
        `merge: ${results.length} results of a check that was not split (${results.map((r) => r.file).join(', ')}): merge the parts of one check run with --shard`,
      );
    return [{ label: first.file, file: first.file, result: first.result }];
  }
  if (sharded.length < results.length) {
    const whole = results.find((r) => r.result.shard === null);
    throw new SetupError(`merge: ${whole?.file ?? ''} is a whole check, the other results are shards`);
  }
  const count = expected ?? (first.result.shard?.count as number);
  const byIndex = new Map<number, { file: string; result: CheckResultJson }>();
  for (const r of sharded) {
    const s = r.result.shard as { index: number; count: number };
    if (s.count !== count)
      throw new SetupError(`merge: ${r.file} is ${shardLabel(s)}, a part of a check split in ${s.count}, not ${count}`);
    const twice = byIndex.get(s.index);
    if (twice !== undefined)
      throw new SetupError(`merge: ${shardLabel(s)} is there twice: ${twice.file} and ${r.file}`);
    byIndex.set(s.index, r);
  }
  const missing = Array.from({ length: count }, (_, i) => i + 1).filter((i) => !byIndex.has(i));
  if (missing.length > 0)
    throw new SetupError(
      `merge: ${missing.map((i) => shardLabel({ index: i, count })).join(', ')} ${missing.length === 1 ? 'is' : 'are'} missing: no check result of ${missing.length === 1 ? 'it' : 'them'} among the files`,
    );
  return Array.from({ length: count }, (_, i) => {
    const r = byIndex.get(i + 1) as { file: string; result: CheckResultJson };
    return { label: shardLabel({ index: i + 1, count }), file: r.file, result: r.result };
  });
}

/** For each part, the one item of `items` whose shard is the part's; throws SetupError naming a missing or doubled one. Pure. */
function onePerPart<T extends { file: string }>(
  parts: readonly MergedPart[],
  items: readonly T[],
  shardOf: (item: T) => string | undefined,
  what: string,
): T[] {
  return parts.map((p) => {
    const s = p.result.shard;
    const mine = items.filter((item) => shardOf(item) === (s === null ? undefined : `${s.index}/${s.count}`));
    if (mine.length === 0) throw new SetupError(`merge: ${p.label} is missing: no ${what} of it among the files`);
    if (mine.length > 1)
      throw new SetupError(`merge: ${p.label} has ${mine.length} ${what}s: ${mine.map((m) => m.file).join(', ')}`);
    return mine[0] as T;
  });
}

/** The shortest failure story among the parts (fewest steps), with its part. Pure. */
export function shortestStory(parts: readonly MergedPart[]): { part: MergedPart; story: string } | null {
  const failing = parts.filter((p) => p.result.failure !== null);
  failing.sort((a, b) => (a.result.failure?.steps ?? 0) - (b.result.failure?.steps ?? 0));
  const best = failing[0];
  return best?.result.failure == null ? null : { part: best, story: best.result.failure.story };
}

/** Runs `jobcheck merge`; returns the exit code (0 agree, 1 diverge, 3 incomplete). Throws UsageError or SetupError for exit code 2. */
export async function mergeCommand(argv: readonly string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseCommandArgs(
    'merge',
    argv,
    {
      report: { type: 'string' },
      junit: { type: 'string' },
      shards: { type: 'string' },
      json: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
    true,
  );
  if (values.help === true) {
    io.stdout.write(MERGE_USAGE);
    return 0;
  }
  if (positionals.length === 0)
    throw new UsageError('merge: give the files or directories of the parts (see jobcheck merge --help)');
  const expected = values.shards === undefined ? undefined : Number(values.shards);
  if (expected !== undefined && !(Number.isInteger(expected) && expected >= 1 && expected <= 1000))
    throw new UsageError(
      `merge: --shards must be a whole number from 1 to 1000 (got ${JSON.stringify(values.shards)})`,
    );
  const dir = values.report ?? DEFAULT_MERGE_DIR;
  await prepareOutputDir('merge', 'the report directory', dir);
  if (values.junit !== undefined) await prepareOutputFile('merge', 'the JUnit file', values.junit);

  const known = await Promise.all((await filesOf(positionals)).map(readKnown));
  const pick = <K extends Known['kind']>(kind: K) =>
    known.filter((k): k is Extract<Known, { kind: K }> => k.kind === kind);
  const parts = partsOf(pick('result'), expected);
  const coverages = onePerPart(parts, pick('coverage'), (c) => coverageShard(c.coverage), 'coverage file');
  const verdict = mergeVerdicts(parts.map((p) => p.result.verdict));
  let merged: Coverage;
  try {
    merged = mergeCoverage(...coverages.map((c) => c.coverage));
  } catch (error) {
    throw new SetupError(`merge: ${(error as Error).message}`);
  }
  const story = shortestStory(parts);
  const target = parts[0]?.result.target ?? '';
  const names = parts.map((p, i) => `${p.label} (${coverages[i]?.file ?? p.file})`);
  const files = await writeCoverageReport(dir, merged, {
    title: `Conformance coverage of ${target}: ${parts.length} part${parts.length === 1 ? '' : 's'} merged (seed ${parts[0]?.result.seed}, ${parts[0]?.result.runs} runs planned)`,
    context: {
      kind: 'merged',
      files: coverages.length,
      mergedVerdict: verdict,
      merged: names,
      ...(story === null ? {} : { mergedStory: `${story.part.label}: ${story.story}` }),
    },
  });
  if (values.junit !== undefined) {
    const junits = onePerPart(parts, pick('junit'), (j) => junitShard(j.junit), 'JUnit file');
    const timestamp = `${new Date().toISOString().slice(0, 19)}Z`;
    const xml = mergeJunit(
      parts.map((p, i) => ({ label: p.label, file: (junits[i] as { junit: JunitFile }).junit })),
      timestamp,
    );
    await writeFile(values.junit, xml).catch((error: Error) => {
      throw new SetupError(`merge: cannot write the JUnit file ${values.junit}: ${error.message}`);
    });
  }
  const result: MergeResultJson = {
    format: MERGE_JSON_FORMAT,
    verdict,
    target,
    seed: parts[0]?.result.seed ?? 0,
    runs: parts[0]?.result.runs ?? 0,
    parts: parts.map((p) => ({
      label: p.label,
      file: p.file,
      verdict: p.result.verdict,
      stoppedByTimeLimit: p.result.stoppedByTimeLimit,
      notAPass: p.result.notAPass ?? null,
    })),
    coverage: Object.fromEntries(
      COVERAGE_CATEGORIES.map((c) => [c, categorySummary(merged, c)]),
    ) as CheckResultJson['coverage'],
    results: parts.map((p) => p.result),
    report: { dir, coverageMd: files.markdown, ...(values.junit === undefined ? {} : { junit: values.junit }) },
  };
  if (values.json === true) io.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  else
    io.stdout.write(
      [
        `verdict: ${verdict.toUpperCase()} (${parts.length} part${parts.length === 1 ? '' : 's'} merged: ${parts.map((p) => `${p.label} ${p.result.verdict}`).join(', ')})`,
        // A part that is incomplete without the time limit says why: a phase of it exercised nothing.
        ...parts.flatMap((p) =>
          p.result.notAPass == null ? [] : [`${p.label}: ${outsideText(p.result.notAPass)}; not a pass`],
        ),
        ...(story === null ? [] : ['', `the shortest story, from ${story.part.label}:`, story.story, '']),
        `report: ${dir} (coverage.json, coverage.md, coverage.html)${values.junit === undefined ? '' : `; JUnit: ${values.junit}`}`,
        '',
      ].join('\n'),
    );
  return exitCodeOfVerdict(verdict);
}
