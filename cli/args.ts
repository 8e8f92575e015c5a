/**
 * Argument parsing for every subcommand: node's util.parseArgs in strict mode, its errors turned
 * into a one-line UsageError (exit code 2); then, in readFlags, the values and the relations
 * between them checked with a zod schema at the boundary, built from the flag schemas here.
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

/** What readFlags read: the flags, or a request for the usage text. */
export type ReadFlags<T> =
  | { readonly help: true }
  | { readonly help: false; readonly flags: T; readonly positionals: string[] };

/**
 * Reads a command's flags, the one way every command reads them: `argv` parsed strictly against
 * `options` (parseCommandArgs); then, unless `--help` asks for the usage text, the values checked
 * and converted by the zod `schema`, whose first issue becomes the UsageError
 * `<command>: <message><hint>`. Each message names its flag and, for a bad value, the value (the
 * schemas below do both). Pure.
 */
export function readFlags<O extends Options, S extends z.ZodType>(
  command: string,
  argv: readonly string[],
  options: O,
  schema: S,
  how: { readonly positionals?: boolean; readonly hint?: string } = {},
): ReadFlags<z.output<S>> {
  const { values, positionals } = parseCommandArgs(command, argv, options, how.positionals === true);
  if ((values as { help?: unknown }).help === true) return { help: true };
  const read = schema.safeParse(values);
  if (!read.success)
    throw new UsageError(`${command}: ${read.error.issues[0]?.message ?? 'bad flags'}${how.hint ?? ''}`);
  return { help: false, flags: read.data, positionals };
}

/** A relation between a command's flags: the message that refuses them, or undefined when they keep it. */
export type FlagRule<T> = (flags: T) => string | undefined;

/** `schema` with `rules` between its flags, checked in order once every value reads: the first that refuses them is the issue. */
export function withRules<S extends z.ZodType>(schema: S, rules: readonly FlagRule<z.output<S>>[]) {
  return schema.superRefine((flags, ctx) => {
    for (const rule of rules) {
      const message = rule(flags);
      if (message === undefined) continue;
      ctx.addIssue({ code: 'custom', message });
      return;
    }
  });
}

/**
 * The flag `--<flag>` read by `schema`, whose first issue is told as `--<flag> <issue> (got "<value>")`,
 * the value clipped to `clip` characters. Pure.
 */
export function flagValue<T>(flag: string, schema: z.ZodType<T, string>, clip = Number.POSITIVE_INFINITY) {
  return z.string().transform((value, ctx): T => {
    const read = schema.safeParse(value);
    if (read.success) return read.data;
    const issue = read.error.issues[0]?.message ?? 'is invalid';
    ctx.addIssue({ code: 'custom', message: `--${flag} ${issue} (got ${JSON.stringify(value.slice(0, clip))})` });
    return z.NEVER;
  });
}

/** An integer flag (`--runs 500`) from `min` to `max`. */
export const intFlag = (flag: string, min = 0, max = Number.MAX_SAFE_INTEGER) =>
  flagValue(
    flag,
    z
      .string()
      .regex(/^\d+$/, 'must be a whole number')
      .transform(Number)
      .pipe(
        z
          .int(`must be at most ${Number.MAX_SAFE_INTEGER}`)
          .min(min, `must be at least ${min}`)
          .max(max, `must be at most ${max}`),
      ),
  );

/** The `--seed` flag: a 32-bit integer, negative ones too. */
export const seedFlag = flagValue(
  'seed',
  z
    .string()
    .regex(/^-?\d+$/, 'must be an integer')
    .transform(Number)
    .pipe(
      z
        .int('must be a 32-bit integer')
        .min(-(2 ** 31), 'must be a 32-bit integer')
        .max(2 ** 31 - 1, 'must be a 32-bit integer'),
    ),
);

/** A flag that takes one of a few words (`--concurrent first`); the message lists them. */
export const choiceFlag = <const T extends string>(flag: string, choices: readonly T[]) =>
  flagValue<T>(
    flag,
    z.enum(choices as readonly [T, ...T[]], {
      error: `must be ${choices.slice(0, -1).join(', ')} or ${choices.at(-1)}`,
    }),
    60,
  );

/**
 * A duration flag in seconds (`--time-limit 90`, also `90s`, `500ms`, `10m`, `1h`), read as
 * milliseconds from `minMs` to `maxMs`.
 */
export const durationFlag = (flag: string, minMs: number, maxMs: number) =>
  flagValue(
    flag,
    z.string().transform((value, ctx): number => {
      const match = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(value.trim());
      const unit = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[(match?.[2] ?? 's') as 'ms' | 's' | 'm' | 'h'];
      const ms = match === null ? Number.NaN : Math.round(Number(match[1]) * unit);
      if (Number.isFinite(ms) && ms >= minMs && ms <= maxMs) return ms;
      const message = Number.isFinite(ms)
        ? `must be between ${minMs / 1000} s and ${maxMs / 1000} s`
        : 'must be a number of seconds, or end in ms, s, m or h';
      ctx.addIssue({ code: 'custom', message });
      return z.NEVER;
    }),
  );

/** A fast-check path flag (`--path 3:0:1`), its shape only; the value shown clipped to `clip` characters. */
export const pathFlag = (flag: string, clip?: number) =>
  flagValue(flag, z.string().regex(/^\d+(:\d+)*$/, 'must look like 3:0:1'), clip);
