/**
 * The colour policy of the terminal summary, and what it colours: the verdict word, and in the
 * failure story the diverging step, the model's lines against the implementation's, and the `>>`
 * lines that name each difference. Colour is for a terminal only: NO_COLOR (any non-empty value)
 * turns it off, FORCE_COLOR turns it on for any output (FORCE_COLOR=0 or false turns it off, as
 * Node's own tty.getColorDepth and chalk read it), and otherwise only a stdout that is a TTY gets
 * colour. picocolors' own detection is not used as it stands: it also colours whenever CI is set,
 * into logs and pipes, and it takes FORCE_COLOR=0 as a request for colour.
 */
import pc from 'picocolors';
import type { CheckVerdict } from '../../conformance/check/index.ts';

/** The colours of the terminal summary: picocolors' functions, or functions that return their text unchanged. */
export type Colors = ReturnType<typeof pc.createColors>;

/**
 * Whether output to a stream gets colour: never with NO_COLOR (non-empty); with FORCE_COLOR `0` or
 * `false`, never either; with any other non-empty FORCE_COLOR, always; else only on a TTY whose
 * TERM is not `dumb`. Pure.
 */
export function colorEnabled(isTTY: boolean, env: Readonly<Record<string, string | undefined>>): boolean {
  if ((env['NO_COLOR'] ?? '') !== '') return false;
  const force = env['FORCE_COLOR'] ?? '';
  if (force === '0' || force === 'false') return false;
  if (force !== '') return true;
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

// A step of a story: `  3. submit id=b ...` (lockstep runs, fixture stories).
const STEP = /^ {0,4}\d+\. /;
const MODEL = /^(\s+)(model:|expect:)/;
const IMPL = /^(\s+)(impl: )/;
const DIFFERENCE = /^\s+>> /;

/**
 * A failure story with colour: the diverging step's line bold (the step whose block holds a `>>`
 * line or an `impl:` line other than `same`), in it the model's line green and the
 * implementation's red, every `>>` difference line yellow; the other steps' model and
 * implementation lines dim. Lines are matched as the engine writes them (conformance/lockstep/story.ts,
 * conformance/check/failureStory.ts); anything else is left as it is. Give it the story already
 * made safe for a terminal (terminalBlock): colour is added after the escaping. Pure.
 */
export function colourStory(story: string, colors: Colors): string {
  const lines = story.split('\n');
  const diverging = new Set<number>();
  let step = -1;
  lines.forEach((line, i) => {
    if (STEP.test(line)) step = i;
    else if (step >= 0 && (DIFFERENCE.test(line) || (IMPL.test(line) && !/impl: +same$/.test(line))))
      diverging.add(step);
  });
  let inDiverging = false;
  return lines
    .map((line, i) => {
      if (STEP.test(line)) {
        inDiverging = diverging.has(i);
        return inDiverging ? colors.bold(line) : line;
      }
      if (DIFFERENCE.test(line)) return colors.yellow(line);
      const model = MODEL.exec(line);
      if (model !== null) return inDiverging ? colors.green(line) : colors.dim(line);
      if (IMPL.test(line)) return inDiverging ? colors.red(line) : colors.dim(line);
      return line;
    })
    .join('\n');
}
