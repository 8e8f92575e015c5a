/**
 * `run.json`, what a run folder says about its run: the jobcheck version, when it started, the
 * command line as it was typed, the target, the seed, the verdict (`interrupted` for a run ended
 * from outside before it had one, with what ended it) and how long it took. It is
 * written by the run itself and read back by `jobcheck report --list`, possibly from an older or
 * hand-edited folder, so reading validates it with zod and a bad file is a RunRecordError with a
 * stable code that names the file and the field, never a crash of the list.
 */
import { closeSync, constants, fstatSync, ftruncateSync, openSync, writeSync } from 'node:fs';
import { z } from 'zod';
import { CodedError } from '../../contract/CodedError.ts';
import { InputFileError, readInputFile } from '../../conformance/outside/inputFile.ts';
import { writeOutputFile } from '../../conformance/outside/outputFile.ts';
import { jsonText } from '../../conformance/outside/outsideText.ts';
import { shellWord } from '../output/reproduce.ts';
import { messageOf } from '../../contract/index.ts';

/** The version tag of run.json. */
export const RUN_RECORD_FORMAT = 'jobcheck.run/1' as const;
/** The name of the file in a run folder. */
export const RUN_RECORD_FILE = 'run.json';
/** Largest run.json read back: a record is a few hundred bytes, the command line included. */
export const MAX_RUN_RECORD_BYTES = 256 * 1024;

/** The schema of run.json. Unknown fields are allowed (a newer jobcheck may add some) and dropped. */
export const runRecordSchema = z.object({
  format: z.literal(RUN_RECORD_FORMAT),
  version: z.string().min(1).max(100),
  time: z.iso.datetime().describe('when the run started, ISO 8601 in UTC'),
  argv: z.array(z.string()).describe('the arguments after `jobcheck`'),
  command: z.string().describe('the command line, quoted so that a shell reads it back as argv'),
  target: z.string().describe('the implementation checked, paths relative to the working directory'),
  seed: z.int(),
  verdict: z.enum(['agree', 'diverge', 'incomplete', 'error', 'interrupted']),
  exitCode: z.int().min(0).max(255),
  durationMs: z.number().min(0),
  error: z.string().optional().describe('why a run with verdict error could not run'),
  stoppedBy: z
    .string()
    .optional()
    .describe('what ended a run with verdict interrupted: `stopped by SIGINT`, a parent gone'),
});

/** The contents of run.json. */
export type RunRecord = z.infer<typeof runRecordSchema>;

/** Why a run.json could not be read: missing, too large or unreadable, not JSON, or a field that is wrong. */
export type RunRecordErrorCode =
  | 'run_record_missing'
  | 'run_record_unreadable'
  | 'run_record_not_json'
  | 'run_record_invalid';

/** A run.json that cannot be used; `file` names it and `field` the first wrong field (`(root)` for the whole). */
export class RunRecordError extends CodedError<RunRecordErrorCode> {
  override name = 'RunRecordError' as const;
  constructor(
    code: RunRecordErrorCode,
    readonly file: string,
    readonly field: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(code, message, options);
  }
}

/** The command line `jobcheck <argv...>`, each word quoted for a POSIX shell where it needs it. Pure. */
export const quotedCommand = (argv: readonly string[]): string => ['jobcheck', ...argv].map(shellWord).join(' ');

/** Writes `record` as run.json at `file` (validated first, so that what is written reads back; never through a link). */
export async function writeRunRecord(file: string, record: RunRecord): Promise<void> {
  await writeOutputFile(file, `${jsonText(runRecordSchema.parse(record), 2)}\n`);
}

/**
 * Writes `text` to `file` in a run's folder synchronously, as writeOutputFile does asynchronously:
 * never through a link, never blocking on a FIFO, only into a regular file (checked with fstat
 * before a byte is written). For a run ended from outside, whose process exits right after.
 */
export function writeRunFileSync(file: string, text: string): void {
  const flags =
    constants.O_WRONLY | constants.O_CREAT | (constants.O_NOFOLLOW ?? 0) | constants.O_NONBLOCK | constants.O_NOCTTY;
  const fd = openSync(file, flags, 0o666);
  try {
    if (!fstatSync(fd).isFile()) throw new Error(`${file} is not a regular file: nothing written`);
    ftruncateSync(fd, 0);
    const bytes = Buffer.from(text);
    for (let at = 0; at < bytes.length; ) at += writeSync(fd, bytes, at);
  } finally {
    closeSync(fd);
  }
}

/** writeRunRecord, synchronously: for a run ended from outside, whose process exits right after. */
export function writeRunRecordSync(file: string, record: RunRecord): void {
  writeRunFileSync(file, `${JSON.stringify(runRecordSchema.parse(record), null, 2)}\n`);
}

/** Reads and validates run.json at `file`; throws RunRecordError naming the file and the field. */
export async function readRunRecord(file: string): Promise<RunRecord> {
  return (await readRunRecordSized(file)).record;
}

/**
 * readRunRecord, with the file's size: the file is read within MAX_RUN_RECORD_BYTES (one byte
 * past it at most), never a FIFO or a device. Throws RunRecordError naming the file and the field.
 */
export async function readRunRecordSized(file: string): Promise<{ record: RunRecord; size: number }> {
  let text: string;
  try {
    text = await readInputFile(file, MAX_RUN_RECORD_BYTES);
  } catch (error) {
    const missing = error instanceof InputFileError && error.code === 'not_found';
    throw new RunRecordError(
      missing ? 'run_record_missing' : 'run_record_unreadable',
      file,
      '(root)',
      missing ? `${file} does not exist (a run that did not finish)` : `cannot read ${file}: ${messageOf(error)}`,
      { cause: error },
    );
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new RunRecordError('run_record_not_json', file, '(root)', `${file} is not JSON: ${messageOf(error)}`, {
      cause: error,
    });
  }
  const r = runRecordSchema.safeParse(data);
  if (!r.success) {
    const issue = r.error.issues[0];
    const field = issue?.path.map(String).join('.') || '(root)';
    throw new RunRecordError('run_record_invalid', file, field, `${file}: ${field}: ${issue?.message ?? 'invalid'}`);
  }
  return { record: r.data, size: Buffer.byteLength(text) };
}
