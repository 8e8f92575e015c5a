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
 * of its own), links never followed, the count bounded as they are read; a file is known by its
 * content, not its name: a check result (`"format": "jobcheck.check/1"`), coverage
 * (`"format": "jobcheck.coverage/1"`), a JUnit file (`<testsuites`, read only for `--junit`).
 * Other files (failure.json, the HTML page) are passed over. Files are read one at a time, each
 * within its limit and checked as it comes; a part's verdict is worked out from its result.
 */
import { stat } from 'node:fs/promises';
import { COVERAGE_CATEGORIES, categorySummary, mergeCoverage } from '../conformance/coverage/coverage.ts';
import type { Coverage } from '../conformance/coverage/coverage.ts';
import { parseCoverage, writeCoverageReport } from '../conformance/coverage/coverageFiles.ts';
import { walkFolder } from '../conformance/outside/folderWalk.ts';
import { readInputFile } from '../conformance/outside/inputFile.ts';
import { jsonText, outsideText, quotedLines } from '../conformance/outside/outsideText.ts';
import type { CliIO } from './args.ts';
import { z } from 'zod';
import { SetupError, UsageError, flagValue, readFlags } from './args.ts';
import { exitCodeOfVerdict } from './checkCommand.ts';
import { CHECK_JSON_FORMAT, checkResultSchema } from './checkJsonSchema.ts';
import type { CheckResultJson } from './checkJsonSchema.ts';
import { MAX_MERGE_PARTS, MERGE_JSON_FORMAT, checkResultVerdict, mergeVerdicts } from './mergeJsonSchema.ts';
import type { MergeResultJson } from './mergeJsonSchema.ts';
import { MAX_JUNIT_BYTES, junitShard, mergeJunit, parseJunit } from './mergeJunit.ts';
import type { JunitFile } from './mergeJunit.ts';
import { outputError, prepareCoverageDir, prepareOutputFile, writeOutput } from './outputs.ts';
import { messageOf } from '../contract/index.ts';

export type { MergeResultJson, Verdict } from './mergeJsonSchema.ts';
export { MERGE_JSON_FORMAT, mergeVerdicts } from './mergeJsonSchema.ts';

/** Default output directory of `jobcheck merge`. */
export const DEFAULT_MERGE_DIR = '.jobcheck/merged';
/** Most entries (files, folders, links) a merge reads under each directory, counted as they are read. */
export const MAX_MERGE_ENTRIES = 10_000;
/** Largest check result or coverage file a merge reads (a result is a few KiB, its story included). */
export const MAX_MERGE_FILE_BYTES = 16 * 1024 * 1024;
/** Most bytes a merge reads from all its files together. */
export const MAX_MERGE_BYTES = 256 * 1024 * 1024;

/** Usage text of `jobcheck merge`. */
export const MERGE_USAGE = `Usage: jobcheck merge <file-or-dir>... [--report <dir>] [--junit <file>] [--shards <n>] [--json]

Joins the parts of one check run with --shard i/n (each part's --json result, coverage.json and
JUnit file; directories are searched for them, links in them not followed) into one verdict: a
part that diverged makes it DIVERGE (exit 1), a part the time limit stopped makes it INCOMPLETE
(exit 3), never AGREE; a missing part is an error naming it (exit 2). Writes the merged
coverage.json, coverage.md (which opens with the verdict) and coverage.html into the report
directory, and with --junit one JUnit file (only then are .xml files read).
  --report <dir>   output directory (default ${DEFAULT_MERGE_DIR})
  --junit <file>   write the merged JUnit file (every part must have one)
  --shards <n>     the number of parts expected (default: the n of their --shard i/n)
  --json           print the merged result as JSON (format ${MERGE_JSON_FORMAT})
  -h, --help       show this text
`;

/** A part of the merged check: its label, its result and the files it came from. */
export interface MergedPart {
  /** `shard 2/3`, or the result's file for a check that was not sharded. */
  readonly label: string;
  readonly file: string;
  readonly result: CheckResultJson;
}

/**
 * The files of the arguments to read: each file as it is, each directory walked (links not
 * followed, at most MAX_MERGE_ENTRIES entries, counted as they are read). `.xml` files only when
 * a JUnit file is asked for.
 */
async function* filesOf(args: readonly string[], junit: boolean): AsyncGenerator<string> {
  const wanted = (name: string): boolean => name.endsWith('.json') || (junit && name.endsWith('.xml'));
  for (const arg of args) {
    const info = await stat(arg).catch((error: Error) => {
      throw new SetupError(`merge: cannot read ${arg}: ${error.message}`);
    });
    if (!info.isDirectory()) {
      if (junit || !arg.endsWith('.xml')) yield arg;
      continue;
    }
    try {
      for await (const entry of walkFolder(arg, { maxEntries: MAX_MERGE_ENTRIES, recursive: true }))
        if (entry.kind !== 'link' && entry.kind !== 'folder' && wanted(entry.name)) yield entry.path;
    } catch (error) {
      if (error instanceof SetupError) throw error;
      throw new SetupError(`merge: cannot read ${arg}: ${messageOf(error)}`, { cause: error });
    }
  }
}

/** What a file holds, known by its content. */
type Known =
  | { readonly kind: 'result'; readonly file: string; readonly result: CheckResultJson }
  | { readonly kind: 'coverage'; readonly file: string; readonly coverage: Coverage }
  | { readonly kind: 'junit'; readonly file: string; readonly junit: JunitFile }
  | { readonly kind: 'other'; readonly file: string };
type Of<K extends Known['kind']> = Extract<Known, { kind: K }>;

/** Reads `file` (bounded) and knows it by its content; throws SetupError for a file that looks like one of ours and is not. */
async function readKnown(file: string): Promise<{ known: Known; bytes: number }> {
  const xml = file.endsWith('.xml');
  const text = await readInputFile(file, xml ? MAX_JUNIT_BYTES : MAX_MERGE_FILE_BYTES).catch((error: Error) => {
    throw new SetupError(`merge: cannot read ${file}: ${error.message}`);
  });
  const bytes = Buffer.byteLength(text);
  const problem = (what: string, message: string): SetupError =>
    new SetupError(`merge: ${file} looks like ${what} but is not one: ${message}`);
  if (xml) {
    if (!text.includes('<testsuites')) return { known: { kind: 'other', file }, bytes };
    try {
      return { known: { kind: 'junit', file, junit: parseJunit(text) }, bytes };
    } catch (error) {
      throw problem('a JUnit file', messageOf(error));
    }
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return { known: { kind: 'other', file }, bytes };
  }
  const format = (data as { format?: unknown } | null)?.format;
  if (format === CHECK_JSON_FORMAT) {
    const r = checkResultSchema.safeParse(data);
    if (!r.success) {
      const issue = r.error.issues[0];
      const field = outsideText(issue?.path.map(String).join('.') || '(root)');
      throw problem('a check result', `${field}: ${outsideText(issue?.message ?? 'invalid')}`);
    }
    return { known: { kind: 'result', file, result: r.data }, bytes };
  }
  if (format === 'jobcheck.coverage/1') {
    try {
      return { known: { kind: 'coverage', file, coverage: parseCoverage(data) }, bytes };
    } catch (error) {
      throw problem('coverage', messageOf(error));
    }
  }
  return { known: { kind: 'other', file }, bytes };
}

/**
 * Reads every file of the arguments, one at a time, each checked as it is read: a result is
 * refused at once when it is not a part of the same check as the first, or a part seen already,
 * and a coverage or JUnit file when its part has one already; so a folder of copies of one file
 * costs one file, not all of them. Throws SetupError.
 */
async function readAll(
  args: readonly string[],
  junit: boolean,
  expected: number | undefined,
): Promise<{ results: Array<Of<'result'>>; coverages: Array<Of<'coverage'>>; junits: Array<Of<'junit'>> }> {
  const results: Array<Of<'result'>> = [];
  const coverages: Array<Of<'coverage'>> = [];
  const junits: Array<Of<'junit'>> = [];
  const coverageOf = new Map<string, string>();
  const junitOf = new Map<string, string>();
  const once = (seen: Map<string, string>, shard: string | undefined, file: string, what: string): void => {
    const key = shard ?? 'whole';
    const before = seen.get(key);
    const label = shard === undefined ? 'the check' : `shard ${shard}`;
    if (before !== undefined) throw new SetupError(`merge: ${label} has 2 ${what}s: ${before}, ${file}`);
    seen.set(key, file);
  };
  let total = 0;
  for await (const file of filesOf(args, junit)) {
    const { known, bytes } = await readKnown(file);
    total += bytes;
    if (total > MAX_MERGE_BYTES)
      throw new SetupError(`merge: the files hold more than ${MAX_MERGE_BYTES} bytes in all (at ${file})`);
    if (known.kind === 'result') {
      joinsParts(results, known, expected);
      results.push(known);
    } else if (known.kind === 'coverage') {
      once(coverageOf, coverageShard(known.coverage), file, 'coverage file');
      coverages.push(known);
    } else if (known.kind === 'junit') {
      once(junitOf, junitShard(known.junit), file, 'JUnit file');
      junits.push(known);
    }
  }
  return { results, coverages, junits };
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

type ResultFile = { readonly file: string; readonly result: CheckResultJson };

/**
 * Refuses `next` when it cannot join the results `seen` as a part of the same check: another
 * check (seed, runs, target), a whole check beside shards or beside another whole one, a shard of
 * a check split otherwise, or a shard seen already. Throws SetupError naming the files. Pure.
 */
export function joinsParts(seen: readonly ResultFile[], next: ResultFile, expected?: number): void {
  const first = seen[0];
  if (first === undefined) {
    const s = next.result.shard;
    const count = expected ?? s?.count;
    if (s !== null && (s.count > MAX_MERGE_PARTS || (count ?? 0) > MAX_MERGE_PARTS))
      throw new SetupError(
        `merge: ${next.file} is ${shardLabel(s)}, not a part of a check split in at most ${MAX_MERGE_PARTS}`,
      );
    if (s !== null && s.index > s.count)
      throw new SetupError(`merge: ${next.file} is ${shardLabel(s)}, a part past the last`);
    if (s !== null && count !== undefined && s.count !== count)
      throw new SetupError(
        `merge: ${next.file} is ${shardLabel(s)}, a part of a check split in ${s.count}, not ${count}`,
      );
    return;
  }
  for (const key of ['seed', 'runs', 'target'] as const)
    if (next.result[key] !== first.result[key])
      throw new SetupError(
        `merge: ${next.file} is not a part of the same check as ${first.file}: ${key} ${JSON.stringify(next.result[key])}, not ${JSON.stringify(first.result[key])}`,
      );
  const s = next.result.shard;
  if (s === null || first.result.shard === null) {
    const whole = s === null ? next : first;
    if (s === null && first.result.shard === null)
      throw new SetupError(
        `merge: ${seen.length + 1} results of a check that was not split (${[...seen, next].map((r) => r.file).join(', ')}): merge the parts of one check run with --shard`,
      );
    throw new SetupError(`merge: ${whole.file} is a whole check, the other results are shards`);
  }
  const count = expected ?? first.result.shard.count;
  if (s.index > s.count) throw new SetupError(`merge: ${next.file} is ${shardLabel(s)}, a part past the last`);
  if (s.count !== count)
    throw new SetupError(
      `merge: ${next.file} is ${shardLabel(s)}, a part of a check split in ${s.count}, not ${count}`,
    );
  const twice = seen.find((r) => r.result.shard?.index === s.index);
  if (twice !== undefined)
    throw new SetupError(`merge: ${shardLabel(s)} is there twice: ${twice.file} and ${next.file}`);
}

/**
 * Orders the results as the parts of one check and refuses a set that is not one: parts of
 * different checks (seed, runs, target), a part twice, a part missing. Throws SetupError naming
 * the part. Pure.
 */
export function partsOf(results: readonly ResultFile[], expected?: number): MergedPart[] {
  if (results.length === 0)
    throw new SetupError(
      'merge: no check result among the files (the output of jobcheck check --json): there is no verdict to merge',
    );
  for (const [i, r] of results.entries()) joinsParts(results.slice(0, i), r, expected);
  const first = results[0] as ResultFile;
  if (first.result.shard === null) return [{ label: first.file, file: first.file, result: first.result }];
  const count = expected ?? first.result.shard.count;
  const byIndex = new Map(results.map((r) => [r.result.shard?.index ?? 0, r]));
  const missing = Array.from({ length: count }, (_, i) => i + 1).filter((i) => !byIndex.has(i));
  if (missing.length > 0)
    throw new SetupError(
      `merge: ${missing.map((i) => shardLabel({ index: i, count })).join(', ')} ${missing.length === 1 ? 'is' : 'are'} missing: no check result of ${missing.length === 1 ? 'it' : 'them'} among the files`,
    );
  return Array.from({ length: count }, (_, i) => {
    const r = byIndex.get(i + 1) as ResultFile;
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

/**
 * The text `jobcheck merge` prints: the merged verdict with each part's, the shortest story, and
 * the files written. The parts' labels may be file names and their stories were read from files:
 * each is text from outside, and the story is quoted line by line after `  | `, so that none of
 * its lines can pass for one of the merge's own. Pure.
 */
export function mergeText(
  result: MergeResultJson,
  story: { part: Pick<MergedPart, 'label'>; story: string } | null,
  junit: string | undefined,
): string {
  const parts = result.parts;
  return [
    `verdict: ${result.verdict.toUpperCase()} (${parts.length} part${parts.length === 1 ? '' : 's'} merged: ${parts.map((p) => `${outsideText(p.label)} ${p.verdict}`).join(', ')})`,
    // A part that is incomplete without the time limit says why: a phase of it exercised nothing.
    ...parts.flatMap((p) =>
      p.notAPass == null ? [] : [`${outsideText(p.label)}: ${outsideText(p.notAPass)}; not a pass`],
    ),
    ...(story === null
      ? []
      : ['', `the shortest story, from ${outsideText(story.part.label)}:`, quotedLines(story.story, '  | '), '']),
    `report: ${outsideText(result.report.dir)} (coverage.json, coverage.md, coverage.html)${junit === undefined ? '' : `; JUnit: ${outsideText(junit)}`}`,
    '',
  ].join('\n');
}

/** The option table of `jobcheck merge`. */
const MERGE_OPTIONS = {
  report: { type: 'string' },
  junit: { type: 'string' },
  shards: { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** The flags of `jobcheck merge`, read. */
const MERGE_FLAGS = z.object({
  report: z.string().optional(),
  junit: z.string().optional(),
  shards: flagValue(
    'shards',
    z
      .string()
      .transform(Number)
      .pipe(
        z
          .int('must be a whole number from 1 to 1000')
          .min(1, 'must be a whole number from 1 to 1000')
          .max(1000, 'must be a whole number from 1 to 1000'),
      ),
  ).optional(),
  json: z.boolean().optional(),
  help: z.boolean().optional(),
});

/** Runs `jobcheck merge`; returns the exit code (0 agree, 1 diverge, 3 incomplete). Throws UsageError or SetupError for exit code 2. */
export async function mergeCommand(argv: readonly string[], io: CliIO): Promise<number> {
  const given = readFlags('merge', argv, MERGE_OPTIONS, MERGE_FLAGS, { positionals: true });
  if (given.help) {
    io.stdout.write(MERGE_USAGE);
    return 0;
  }
  const { flags: values, positionals } = given;
  if (positionals.length === 0)
    throw new UsageError('merge: give the files or directories of the parts (see jobcheck merge --help)');
  const expected = values.shards;
  const dir = values.report ?? DEFAULT_MERGE_DIR;
  await prepareCoverageDir('merge', dir);
  if (values.junit !== undefined) await prepareOutputFile('merge', 'the JUnit file', values.junit);

  const read = await readAll(positionals, values.junit !== undefined, expected);
  const parts = partsOf(read.results, expected);
  const coverages = onePerPart(parts, read.coverages, (c) => coverageShard(c.coverage), 'coverage file');
  // Each part's verdict as its result's fields show it, never kinder than the one it states.
  const verdictOf = parts.map((p) => checkResultVerdict(p.result));
  const verdict = mergeVerdicts(verdictOf);
  let merged: Coverage;
  try {
    merged = mergeCoverage(...coverages.map((c) => c.coverage));
  } catch (error) {
    throw new SetupError(`merge: ${messageOf(error)}`);
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
  }).catch((error: unknown) => {
    throw outputError('merge', 'the report', dir, error);
  });
  if (values.junit !== undefined) {
    const junits = onePerPart(parts, read.junits, (j) => junitShard(j.junit), 'JUnit file');
    const timestamp = `${new Date().toISOString().slice(0, 19)}Z`;
    const xml = mergeJunit(
      parts.map((p, i) => ({ label: p.label, file: (junits[i] as { junit: JunitFile }).junit })),
      timestamp,
    );
    await writeOutput('merge', 'the JUnit file', values.junit, xml);
  }
  const result: MergeResultJson = {
    format: MERGE_JSON_FORMAT,
    verdict,
    target,
    seed: parts[0]?.result.seed ?? 0,
    runs: parts[0]?.result.runs ?? 0,
    parts: parts.map((p, i) => ({
      label: p.label,
      file: p.file,
      verdict: verdictOf[i] ?? 'incomplete',
      stoppedByTimeLimit: p.result.stoppedByTimeLimit,
      notAPass: p.result.notAPass ?? null,
    })),
    coverage: Object.fromEntries(
      COVERAGE_CATEGORIES.map((c) => [c, categorySummary(merged, c)]),
    ) as CheckResultJson['coverage'],
    results: parts.map((p) => p.result),
    report: { dir, coverageMd: files.markdown, ...(values.junit === undefined ? {} : { junit: values.junit }) },
  };
  io.stdout.write(values.json === true ? `${jsonText(result, 2)}\n` : mergeText(result, story, values.junit));
  return exitCodeOfVerdict(verdict);
}
