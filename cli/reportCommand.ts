/**
 * `jobcheck report --list`: the runs kept in a report directory (each `jobcheck check` writes a
 * folder `runs/<time>-<verdict>/` there, see cli/report/runHistory.ts), newest first, with when
 * each ran, its verdict, the command line, the target, the seed and its folder. A folder whose
 * run.json is missing or bad is listed as unreadable, with the file and the field, and the list
 * goes on; a `runs` that is no folder, or a latest.txt that is no regular file, is an error naming
 * it (exit 2). Reads only, each file within a limit; writes nothing.
 */
import { join } from 'node:path';
import { jsonText, outsideText } from '../conformance/outside/outsideText.ts';
import type { CliIO } from './args.ts';
import { SetupError, UsageError, parseCommandArgs } from './args.ts';
import { InputFileError } from '../conformance/outside/inputFile.ts';
import { WalkError } from '../conformance/outside/folderWalk.ts';
import { durationText } from './report/page.ts';
import { DEFAULT_REPORT_DIR, PAGE_FILE, latestRun, listRuns } from './report/runHistory.ts';
import type { ListedRun } from './report/runHistory.ts';
import type { RunRecord } from './report/runRecord.ts';

/** The version tag of `jobcheck report --list --json`. */
export const REPORT_LIST_FORMAT = 'jobcheck.report-list/1' as const;

/** Usage text of `jobcheck report`. */
export const REPORT_USAGE = `Usage: jobcheck report --list [--report <dir>] [--json]

Lists the runs kept in a report directory, newest first: when each started, its verdict, how long
it took, the target, the seed, the command line and its folder, which holds the run's page
(index.html), run.json and the implementation's stderr (stderr.txt). jobcheck check writes a
folder per run (it keeps the newest 20 unless --keep-runs says otherwise).
  --list           list the runs
  --report <dir>   the report directory (default ${DEFAULT_REPORT_DIR})
  --json           print the list as JSON (format ${REPORT_LIST_FORMAT})
  -h, --help       show this text
`;

/** A run as `--json` lists it: its record and folder, or why its run.json could not be read. */
export type ReportListEntry =
  | ({ readonly folder: string; readonly page: string; readonly latest: boolean } & RunRecord)
  | {
      readonly folder: string;
      readonly latest: boolean;
      readonly unreadable: {
        readonly code: string;
        readonly file: string;
        readonly field: string;
        readonly message: string;
      };
    };

/** What `jobcheck report --list --json` prints. */
export interface ReportListJson {
  readonly format: typeof REPORT_LIST_FORMAT;
  readonly dir: string;
  readonly runs: readonly ReportListEntry[];
}

/** The JSON entry of a listed run. Pure. */
export function listEntry(run: ListedRun, latest: string | undefined): ReportListEntry {
  const isLatest = latest !== undefined && run.folder.endsWith(latest);
  if ('record' in run)
    return { folder: run.folder, page: join(run.folder, PAGE_FILE), latest: isLatest, ...run.record };
  const e = run.error;
  return {
    folder: run.folder,
    latest: isLatest,
    unreadable: { code: e.code, file: e.file, field: e.field, message: e.message },
  };
}

/** `2026-12-02 05:30:12 UTC`. Pure. */
const when = (iso: string): string => iso.replace('T', ' ').replace(/\.\d+Z$|Z$/, ' UTC');

/** The text listing: two lines a run (what and where, then the command line). Pure. */
export function listText(dir: string, entries: readonly ReportListEntry[]): string {
  if (entries.length === 0)
    return `no runs in ${outsideText(dir)} (jobcheck check writes one folder a run under ${join(dir, 'runs')})\n`;
  const lines = [`${entries.length} run${entries.length === 1 ? '' : 's'} in ${outsideText(dir)}, newest first:`];
  for (const e of entries) {
    const mark = e.latest ? ' (latest)' : '';
    if ('unreadable' in e) {
      lines.push(`  unreadable  ${outsideText(e.folder)}${mark}`);
      lines.push(`    ${e.unreadable.code}: ${outsideText(e.unreadable.message)}`);
      continue;
    }
    lines.push(
      `  ${when(e.time)}  ${e.verdict.toUpperCase().padEnd(10)}  ${durationText(e.durationMs).padStart(9)}  ${outsideText(e.target)}  seed ${e.seed}  ${outsideText(e.folder)}${mark}`,
    );
    lines.push(`    ${outsideText(e.command)}`);
  }
  return `${lines.join('\n')}\n`;
}

/** Runs `jobcheck report`; returns the exit code. Throws UsageError for exit code 2. */
export async function reportCommand(argv: readonly string[], io: CliIO): Promise<number> {
  const { values } = parseCommandArgs(
    'report',
    argv,
    {
      list: { type: 'boolean' },
      report: { type: 'string' },
      json: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
    false,
  );
  if (values.help === true) {
    io.stdout.write(REPORT_USAGE);
    return 0;
  }
  if (values.list !== true) throw new UsageError('report: say what to show: --list (see jobcheck report --help)');
  const dir = values.report ?? DEFAULT_REPORT_DIR;
  // A runs/ that is no folder, a latest.txt that is a FIFO or a device: one line naming it, exit 2.
  const cannot = (error: unknown): never => {
    if (error instanceof InputFileError) throw new SetupError(`report: cannot read ${error.path}: ${error.message}`);
    if (error instanceof WalkError) throw new SetupError(`report: cannot list ${error.path}: ${error.message}`);
    throw error;
  };
  const latest = await latestRun(dir).catch(cannot);
  const entries = (await listRuns(dir).catch(cannot)).map((run) => listEntry(run, latest));
  if (values.json === true) {
    const result: ReportListJson = { format: REPORT_LIST_FORMAT, dir, runs: entries };
    io.stdout.write(`${jsonText(result, 2)}\n`);
  } else io.stdout.write(listText(dir, entries));
  return 0;
}
