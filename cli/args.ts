/**
 * Argument parsing for every subcommand: node's util.parseArgs in strict mode, its errors turned
 * into a one-line UsageError (exit code 2), and numeric flags checked with zod at the boundary.
 */
import { parseArgs } from 'node:util';
import type { ParseArgsConfig } from 'node:util';
import { z } from 'zod';
import { UsageError } from './errors.ts';

// The errors live in errors.ts so that cli.ts can catch them without loading zod (see there).
export { SetupError, UsageError } from './errors.ts';

/** Where a command writes; the process's streams by default, buffers in tests. */
export interface CliIO {
  readonly stdout: { write(text: string): unknown };
  readonly stderr: { write(text: string): unknown };
  /** Whether stderr is a terminal (progress lines are drawn only then). */
  readonly isTTY: boolean;
  /** Whether stdout is a terminal (the verdict is coloured only then, unless NO_COLOR/FORCE_COLOR say otherwise); false when absent. */
  readonly stdoutIsTTY?: boolean;
  /** Needed by `demo --predict`. */
  readonly stdin?: NodeJS.ReadableStream;
}

type Options = NonNullable<ParseArgsConfig['options']>;
/** What parseArgs gives for `options`, spelled out so that the declaration file can name it. */
type Parsed<O extends Options> = ReturnType<
  typeof parseArgs<{ args: string[]; options: O; strict: true; allowPositionals: boolean }>
>;

/** Parses `argv` strictly against `options`; every parse error becomes a UsageError naming `command`. */
export function parseCommandArgs<O extends Options>(
  command: string,
  argv: readonly string[],
  options: O,
  positionals: boolean,
): Parsed<O> {
  try {
    return parseArgs({ args: [...argv], options, strict: true, allowPositionals: positionals });
  } catch (error) {
    const e = error as { code?: string; message: string };
    const first = e.message.split('. ')[0] ?? e.message;
    throw new UsageError(`${command}: ${first.replace(/'/g, '')} (see jobcheck ${command} --help)`);
  }
}

const wholeNumber = (min: number, max: number) =>
  z
    .string()
    .regex(/^\d+$/, 'must be a whole number')
    .transform(Number)
    .pipe(
      z
        .int(`must be at most ${Number.MAX_SAFE_INTEGER}`)
        .min(min, `must be at least ${min}`)
        .max(max, `must be at most ${max}`),
    );
const signedNumber = z
  .string()
  .regex(/^-?\d+$/, 'must be an integer')
  .transform(Number)
  .pipe(
    z
      .int('must be a 32-bit integer')
      .min(-(2 ** 31), 'must be a 32-bit integer')
      .max(2 ** 31 - 1, 'must be a 32-bit integer'),
  );

/** Reads an integer flag (`--runs 500`), or `fallback` when absent; throws UsageError naming the flag and value. */
export function intFlag(
  command: string,
  flag: string,
  value: string | undefined,
  fallback: number,
  min = 0,
  max = Number.MAX_SAFE_INTEGER,
): number {
  if (value === undefined) return fallback;
  const schema = flag === 'seed' ? signedNumber : wholeNumber(min, max);
  const result = schema.safeParse(value);
  if (!result.success)
    throw new UsageError(
      `${command}: --${flag} ${result.error.issues[0]?.message ?? 'is invalid'} (got ${JSON.stringify(value)})`,
    );
  return result.data;
}

/**
 * Reads a flag that takes one of a few words (`--concurrent first`), or undefined when absent;
 * throws UsageError naming the flag, the value and the words it accepts.
 */
export function choiceFlag<const T extends string>(
  command: string,
  flag: string,
  value: string | undefined,
  choices: readonly T[],
): T | undefined {
  if (value === undefined) return undefined;
  const result = z.enum(choices as readonly [T, ...T[]]).safeParse(value);
  if (!result.success)
    throw new UsageError(
      `${command}: --${flag} must be ${choices.slice(0, -1).join(', ')} or ${choices.at(-1)} (got ${JSON.stringify(value.slice(0, 60))})`,
    );
  return result.data;
}

/**
 * Reads a duration flag in seconds (`--time-limit 90`, also `90s`, `500ms`, `10m`, `1h`), or
 * `fallbackMs` when absent; returns milliseconds within [minMs, maxMs]. Throws UsageError naming
 * the flag and value.
 */
export function durationFlag(
  command: string,
  flag: string,
  value: string | undefined,
  fallbackMs: number,
  minMs: number,
  maxMs: number,
): number {
  if (value === undefined) return fallbackMs;
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(value.trim());
  const unit = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[(match?.[2] ?? 's') as 'ms' | 's' | 'm' | 'h'];
  const ms = match === null ? Number.NaN : Math.round(Number(match[1]) * unit);
  if (!Number.isFinite(ms))
    throw new UsageError(
      `${command}: --${flag} must be a number of seconds, or end in ms, s, m or h (got ${JSON.stringify(value)})`,
    );
  if (ms < minMs || ms > maxMs)
    throw new UsageError(
      `${command}: --${flag} must be between ${minMs / 1000} s and ${maxMs / 1000} s (got ${JSON.stringify(value)})`,
    );
  return ms;
}
