/**
 * The colour policy of the terminal summary. The verdict is coloured (picocolors) only for a
 * terminal: NO_COLOR turns colour off, FORCE_COLOR turns it on for any output, and otherwise only a
 * stdout that is a TTY gets colour. picocolors' own detection is not used as it stands: it also
 * colours whenever CI is set, into logs and pipes.
 */
import pc from 'picocolors';
import type { CheckVerdict } from '../../conformance/check/index.ts';

/** The colours of the terminal summary: picocolors' functions, or functions that return their text unchanged. */
export type Colors = ReturnType<typeof pc.createColors>;

/**
 * Whether output to a stream gets colour: never with NO_COLOR (non-empty), always with
 * FORCE_COLOR (non-empty, whatever its value, as picocolors and force-color.org read it), else
 * only on a TTY whose TERM is not `dumb`. Pure.
 */
export function colorEnabled(isTTY: boolean, env: Readonly<Record<string, string | undefined>>): boolean {
  if ((env['NO_COLOR'] ?? '') !== '') return false;
  if ((env['FORCE_COLOR'] ?? '') !== '') return true;
  return isTTY && env['TERM'] !== 'dumb';
}

/** The colours for an output stream (default: this process's stdout and environment). */
export function terminalColors(
  isTTY: boolean = process.stdout.isTTY === true,
  env: Readonly<Record<string, string | undefined>> = process.env,
): Colors {
  return pc.createColors(colorEnabled(isTTY, env));
}

/** The verdict word, coloured: AGREE green, DIVERGE red, INCOMPLETE yellow, each bold. Pure. */
export function verdictWord(verdict: CheckVerdict, colors: Colors): string {
  if (verdict === 'agree') return colors.bold(colors.green('AGREE'));
  if (verdict === 'diverge') return colors.bold(colors.red('DIVERGE'));
  return colors.bold(colors.yellow('INCOMPLETE'));
}
