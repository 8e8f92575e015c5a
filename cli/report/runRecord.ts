/**
 * `run.json`, what a run folder says about its run: the jobcheck version, when it started, the
 * command line as it was typed, the target, the seed, the verdict (`interrupted` for a run ended
 * from outside before it had one, with what ended it) and how long it took. It is
 * written by the run itself and read back by `jobcheck report --list`, possibly from an older or
 * hand-edited folder, so reading validates it with zod and a bad file is a RunRecordError with a
 * stable code that names the file and the field, never a crash of the list.
 */
import { writeFileSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { z } from 'zod';
import { CodedError } from '../../contract/CodedError.ts';

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

const shellWord = (word: string): string => (/^[\w./:=@%+,-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`);

/** The command line `jobcheck <argv...>`, each word quoted for a POSIX shell where it needs it. Pure. */
export const quotedCommand = (argv: readonly string[]): string => ['jobcheck', ...argv].map(shellWord).join(' ');

/** Writes `record` as run.json at `file` (validated first, so that what is written reads back). */
export async function writeRunRecord(file: string, record: RunRecord): Promise<void> {
  await writeFile(file, `${JSON.stringify(runRecordSchema.parse(record), null, 2)}\n`);
}

/** writeRunRecord, synchronously: for a run ended from outside, whose process exits right after. */
export function writeRunRecordSync(file: string, record: RunRecord): void {
  writeFileSync(file, `${JSON.stringify(runRecordSchema.parse(record), null, 2)}\n`);
}

/** Reads and validates run.json at `file`; throws RunRecordError naming the file and the field. */
export async function readRunRecord(file: string): Promise<RunRecord> {
  let text: string;
  try {
    const bytes = await readFile(file);
    if (bytes.length > MAX_RUN_RECORD_BYTES)
      throw new RunRecordError(
        'run_record_unreadable',
        file,
        '(root)',
        `${file}: ${bytes.length} bytes, more than a run record's ${MAX_RUN_RECORD_BYTES}`,
      );
    text = bytes.toString('utf8');
  } catch (error) {
    if (error instanceof RunRecordError) throw error;
    const missing = (error as { code?: string }).code === 'ENOENT';
    throw new RunRecordError(
      missing ? 'run_record_missing' : 'run_record_unreadable',
      file,
      '(root)',
      missing
        ? `${file} does not exist (a run that did not finish)`
        : `cannot read ${file}: ${(error as Error).message}`,
      { cause: error },
    );
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new RunRecordError(
      'run_record_not_json',
      file,
      '(root)',
      `${file} is not JSON: ${(error as Error).message}`,
      {
        cause: error,
      },
    );
  }
  const r = runRecordSchema.safeParse(data);
  if (!r.success) {
    const issue = r.error.issues[0];
    const field = issue?.path.map(String).join('.') || '(root)';
    throw new RunRecordError('run_record_invalid', file, field, `${file}: ${field}: ${issue?.message ?? 'invalid'}`);
  }
  return r.data;
}
