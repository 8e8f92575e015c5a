/**
 * `jobcheck audit <file>...`: a recorded history of a real queue (`jobcheck-history/1`, or a
 * Jepsen history jobcheck exported) judged against the contract (conformance/audit/). Files are
 * read as streams, each checked as a regular file first; prints each finding (a violation as a
 * story with the lines that prove it), what was checked, and the verdict; writes a run folder with
 * the page, as `check` does. Exit codes as `check`: 0 pass, 1 a violation, 2 a usage error or a
 * file that is no history (its typed error names the line), 3 inconclusive (a verdict that hangs
 * on the declared clock uncertainty, a gap, a truncated file, a budget that ran out).
 */
import { createReadStream } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { z } from 'zod';
import type { AuditResult, Finding, ReadEvent } from '../conformance/audit/index.ts';
import {
  DEFAULT_MAX_HELD,
  HistoryFileError,
  auditHistory,
  readHistory,
  readJepsen,
  readOtlp,
} from '../conformance/audit/index.ts';
import { InputFileError, checkInputFile } from '../conformance/outside/inputFile.ts';
import { htmlText, outsideText } from '../conformance/outside/outsideText.ts';
import type { CliIO } from './args.ts';
import { UsageError, choiceFlag, flagValue, intFlag, readFlags, withRules } from './args.ts';
import { RunFolder } from './report/runFolder.ts';
import { DEFAULT_KEEP_RUNS, DEFAULT_REPORT_DIR } from './report/runHistory.ts';
import type { PageSection } from './report/section.ts';
import { JOBCHECK_VERSION } from './report/version.ts';

/** Largest history file read (it is streamed: the limit is a guard against a device, not memory). */
const MAX_HISTORY_BYTES = 2 ** 40;
/** Most files one audit reads. */
const MAX_FILES = 256;

/** Usage text of `jobcheck audit`. */
export const AUDIT_USAGE = `Usage: jobcheck audit <file>... [options]

Checks a recorded history of a real queue against the contract: each job's operations for
linearizability against the job lifecycle (a stale holder's acknowledgement, a double delivery, a
run past its lease or deadline), then capacity, account order and the effect ledger over the
accounts. Files are jobcheck-history/1 (docs/history-format.md), or Jepsen histories that
jobcheck exported (.edn, or --format jepsen), or OpenTelemetry OTLP JSON traces of BullMQ or of
the messaging conventions (.otlp.json[l], or --format otlp: what spans lack is named, and the
checks it rules out are not established); several files are merged by time. Exit code 0: every
job checked in full and nothing broken; 1: a violation (told as a story with the lines that prove
it); 2: a usage error or a file that is no history; 3: inconclusive (a verdict that hangs on the
clock uncertainty, an operation the history lacks, a truncated file).
  --format <f>                jsonl, jepsen, otlp or auto (default auto: .edn Jepsen, .otlp.json[l] OTLP)
  --clock-uncertainty <ms>    how far apart the hosts' and the broker's clocks may be (default 0)
  --window <ms>               how far the history moves past a job's last line before it is
                              checked; a later line of it is named (default 600000)
  --capacity <n>              the queue's capacity (default the header's; unknown: not checked)
  --account-order <on|off>    whether each account's jobs go in submission order (default the header's, on)
  --max-held <n>              most operations, summaries and effects held at once; past it the audit
                              stops, INCONCLUSIVE, naming the budget (default ${DEFAULT_MAX_HELD})
  --report <dir>              where the run's folder and page go (default ${DEFAULT_REPORT_DIR})
  --help                      this text
`;

const OPTIONS = {
  format: { type: 'string' },
  'clock-uncertainty': { type: 'string' },
  window: { type: 'string' },
  capacity: { type: 'string' },
  'account-order': { type: 'string' },
  'max-held': { type: 'string' },
  report: { type: 'string' },
  help: { type: 'boolean' },
} as const;

const msFlag = (flag: string) =>
  flagValue(
    flag,
    z
      .string()
      .regex(/^\d+(\.\d+)?$/, 'must be a number of milliseconds >= 0')
      .transform(Number)
      .pipe(z.number().max(Number.MAX_SAFE_INTEGER, 'must be a safe number')),
    60,
  );

const FLAGS = withRules(
  z.object({
    format: choiceFlag('format', ['jsonl', 'jepsen', 'otlp', 'auto'] as const).default('auto'),
    'clock-uncertainty': msFlag('clock-uncertainty').default(0),
    window: msFlag('window').optional(),
    capacity: intFlag('capacity', 1).optional(),
    'account-order': choiceFlag('account-order', ['on', 'off'] as const).optional(),
    'max-held': intFlag('max-held', 1).optional(),
    report: z.string().min(1, '--report must name a folder').default(DEFAULT_REPORT_DIR),
  }),
  [],
);

const VERDICT = { pass: 'PASS', fail: 'FAIL', inconclusive: 'INCONCLUSIVE' } as const;
const EXIT = { pass: 0, fail: 1, inconclusive: 3 } as const;

/** The events of one file, read as its format says. */
function eventsOf(file: string, format: 'jsonl' | 'jepsen' | 'otlp' | 'auto'): AsyncIterable<ReadEvent> {
  const stream = createReadStream(file);
  const jepsen = format === 'jepsen' || (format === 'auto' && file.toLowerCase().endsWith('.edn'));
  const otlp = format === 'otlp' || (format === 'auto' && /\.otlp\.jsonl?$/i.test(file));
  return jepsen ? readJepsen(stream, file) : otlp ? readOtlp(stream, file) : readHistory(stream, file);
}

/** A finding as terminal lines. Pure. */
function findingText(f: Finding): string {
  switch (f.kind) {
    case 'violation':
      return `VIOLATION ${f.rule}: ${outsideText(f.summary)}\n${f.story}\n`;
    case 'inconclusive':
      return `INCONCLUSIVE ${f.rule}: ${outsideText(f.summary)}\n${f.story}\n`;
    case 'gap':
      return `GAP ${f.gap}: ${outsideText(f.summary)}\n`;
  }
}

/** The findings as a section of the run's page. Pure. */
function findingsSection(result: AuditResult): PageSection {
  const items = result.findings
    .map((f) => {
      const head = f.kind === 'gap' ? `GAP ${f.gap}` : `${f.kind.toUpperCase()} ${f.rule}`;
      const story = f.kind === 'gap' ? '' : `<pre>${htmlText(f.story).replace(/&#10;|\n/g, '\n')}</pre>`;
      return `<li><strong>${htmlText(head)}</strong>: ${htmlText(f.summary)}${story}</li>`;
    })
    .join('\n');
  return {
    id: 'audit',
    title: 'What the audit found',
    html: `<section id="audit"><h2>What the audit found</h2><p>${htmlText(result.checked.join('; '))}.</p><ol>${items === '' ? '<li>nothing</li>' : items}</ol></section>`,
    css: '#audit pre { overflow-x: auto; font-size: 0.8rem; }',
    script: '',
  };
}

/** Runs `jobcheck audit`; returns the exit code. */
export async function auditCommand(argv: readonly string[], io: CliIO): Promise<number> {
  const given = readFlags('audit', argv, OPTIONS, FLAGS, { positionals: true, hint: ' (see jobcheck audit --help)' });
  if (given.help) {
    io.stdout.write(AUDIT_USAGE);
    return 0;
  }
  const { flags, positionals: files } = given;
  if (files.length === 0) throw new UsageError('audit: name at least one history file (see jobcheck audit --help)');
  if (files.length > MAX_FILES) throw new UsageError(`audit: at most ${MAX_FILES} files (got ${files.length})`);
  for (const file of files) {
    try {
      checkInputFile(file, MAX_HISTORY_BYTES);
    } catch (error) {
      if (error instanceof InputFileError) {
        io.stderr.write(`jobcheck audit: ${outsideText(`${file}: ${error.message}`)}\n`);
        return 2;
      }
      throw error;
    }
  }
  const startedAt = new Date();
  let result: AuditResult;
  try {
    result = await auditHistory(
      files.map((f) => eventsOf(f, flags.format)),
      {
        clockUncertainty: flags['clock-uncertainty'],
        ...(flags.window === undefined ? {} : { windowMs: flags.window }),
        ...(flags.capacity === undefined ? {} : { capacity: flags.capacity }),
        ...(flags['account-order'] === undefined ? {} : { accountOrder: flags['account-order'] === 'on' }),
        ...(flags['max-held'] === undefined ? {} : { maxHeld: flags['max-held'] }),
      },
    );
  } catch (error) {
    if (error instanceof HistoryFileError) {
      io.stderr.write(`jobcheck audit: ${error.code}: ${outsideText(error.message)}\n`);
      return 2;
    }
    if ((error as { code?: string }).code === 'EACCES' || (error as { code?: string }).code === 'EISDIR') {
      io.stderr.write(`jobcheck audit: unreadable: ${outsideText(String((error as Error).message))}\n`);
      return 2;
    }
    throw error;
  }
  for (const f of result.findings) io.stdout.write(`${findingText(f)}\n`);
  const counts = (kind: Finding['kind']): number => result.findings.filter((f) => f.kind === kind).length;
  io.stdout.write(
    `checked: ${result.operations} operation(s) of ${result.jobs} job(s); ${result.checked.join('; ')}\n`,
  );
  const exitCode = EXIT[result.verdict];
  const headline = `${VERDICT[result.verdict]}: ${counts('violation')} violation(s), ${counts('inconclusive')} inconclusive, ${counts('gap')} gap(s)`;
  const page = await writePage(flags.report, argv, files, result, headline, exitCode, startedAt);
  io.stdout.write(`${headline}${page === undefined ? '' : `\nreport: ${outsideText(page)}`}\n`);
  return exitCode;
}

/** Writes the run's folder and page; returns the page's path (undefined when the folder cannot be made). */
async function writePage(
  root: string,
  argv: readonly string[],
  files: readonly string[],
  result: AuditResult,
  headline: string,
  exitCode: number,
  startedAt: Date,
): Promise<string | undefined> {
  await mkdir(root, { recursive: true });
  const run = await RunFolder.start(root, startedAt);
  const finished = await run.finish(
    {
      verdict: result.verdict === 'pass' ? 'agree' : result.verdict === 'fail' ? 'diverge' : 'incomplete',
      exitCode,
      headline,
      durationMs: Date.now() - startedAt.getTime(),
      argv: ['audit', ...argv],
      target: files.join(' '),
      seed: 0,
      version: JOBCHECK_VERSION,
      failure: null,
      copies: [],
      sections: [findingsSection(result)],
    },
    DEFAULT_KEEP_RUNS,
  );
  return finished.page;
}
