/**
 * `jobcheck demo [story] [--predict]`: tells a failure story as a step-by-step trace from the
 * reference model. Without a story it lists the stories. With `--predict` on a terminal it pauses
 * before each step and asks the reader to predict the focus job's status and token and the
 * account's balance, then shows the answer, answers a wrong guess with why (the guard that decided
 * the step and its values, model/explain.ts) and the contract rules that decided it, and keeps
 * score; when stdin is not a terminal it says so in one line and prints the trace without pausing,
 * so scripts and docs can run it. Colour on a terminal only, as cli/output/colour.ts decides.
 */
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { outsideText } from '../../conformance/outside/outsideText.ts';
import { terminalColors } from '../output/colour.ts';
import type { Colors } from '../output/colour.ts';
import { PREDICT_HINT, answerLines, parsePrediction, scorePrediction } from './predict.ts';
import {
  renderFinal,
  renderStepAfter,
  renderStepBefore,
  renderStoryHeader,
  renderStoryList,
  renderTrace,
} from './render.ts';
import { StoryError, findStory, listStories } from './story.ts';
import { traceStory } from './trace.ts';
import type { StoryTrace } from './trace.ts';
import { messageOf } from '../../contract/index.ts';

export { renderStory } from './render.ts';

/** Where the demo reads and writes; defaults to the process's own streams. */
export interface DemoIO {
  readonly stdin: NodeJS.ReadableStream;
  readonly stdout: { write(text: string): unknown };
  /** Error messages; stdout when absent. */
  readonly stderr?: { write(text: string): unknown };
  /** Whether stdin is an interactive terminal (only then does `--predict` pause). */
  readonly isTTY: boolean;
  /**
   * Whether stdout is a terminal: only then is the output coloured, unless NO_COLOR or FORCE_COLOR
   * say otherwise (cli/output/colour.ts); false when absent.
   */
  readonly stdoutIsTTY?: boolean;
}

/** The usage text of `jobcheck demo`. */
export const DEMO_USAGE = `Usage: jobcheck demo [story | story-file.json | --all] [--predict]

  (no story)   list the stories
  story        print the story as a step-by-step trace from the reference model
  --all        print every story as a trace, one after the other
  --predict    before each step, guess the job's status, token and the balance (needs a terminal)
  -h, --help   show this text
`;

/** The line printed when --predict cannot pause because stdin is not a terminal. */
export const NOT_INTERACTIVE = 'stdin is not a terminal: --predict shows the story without pausing.\n';

/** Asks before each step, reveals the answer, keeps the score. Ends early on `q` or end of input. */
async function playPredict(trace: StoryTrace, io: DemoIO, colors: Colors, fromFile: boolean): Promise<void> {
  const rl = createInterface({ input: io.stdin, terminal: false });
  const lines = rl[Symbol.asyncIterator]();
  const out = (text: string): void => void io.stdout.write(text);
  let points = 0;
  let asked = 0;
  let quit = false;
  try {
    out(`${renderStoryHeader(trace.story, colors, fromFile)}\n\nBefore each step, predict: ${PREDICT_HINT}\n`);
    for (const s of trace.steps) {
      out(`\n${renderStepBefore(s, trace.steps.length, colors)}\n`);
      if (!quit) {
        for (;;) {
          out(`  predict  > `);
          const next = await lines.next();
          if (next.done === true || next.value.trim().toLowerCase() === 'q') {
            quit = true;
            out('\n  (no more predictions: showing the rest of the story)\n');
            break;
          }
          if (next.value.trim() === '') break;
          const guess = parsePrediction(next.value);
          if ('error' in guess) {
            out(`  could not read that: ${guess.error}\n`);
            continue;
          }
          const { points: p, verdict } = scorePrediction(guess, s.focus, colors);
          points += p;
          asked += 3;
          out(`  verdict  ${verdict}\n`);
          // A wrong guess is answered with why: the deciding guards' values, then the rules.
          if (p < 3) out(`${answerLines(s, colors).join('\n')}\n`);
          break;
        }
      }
      out(`${renderStepAfter(s, trace.story, colors)}\n`);
      if (asked > 0 && !quit) out(`  score    ${colors.bold(`${points}/${asked}`)}\n`);
    }
    out(`\n${renderFinal(trace, colors)}\n\n${colors.bold(`Score: ${points} of ${asked} predictions right.`)}\n`);
  } finally {
    rl.close();
  }
}

/**
 * Runs `jobcheck demo` with the arguments after `demo`. Returns the exit code: 0 when the story
 * ran as told, 1 when the model disagreed with the story's expectations, 2 for a usage error or an
 * unknown or invalid story.
 */
export async function runDemo(argv: string[], io?: DemoIO): Promise<number> {
  const streams: DemoIO = io ?? {
    stdin: process.stdin,
    stdout: process.stdout,
    stderr: process.stderr,
    isTTY: process.stdin.isTTY === true,
    stdoutIsTTY: process.stdout.isTTY === true,
  };
  const colors = terminalColors(streams.stdoutIsTTY === true);
  const err = (text: string): void => void (streams.stderr ?? streams.stdout).write(text);
  const options = {
    predict: { type: 'boolean', default: false },
    all: { type: 'boolean', default: false },
    help: { type: 'boolean', short: 'h', default: false },
  } as const;
  let parsed: ReturnType<typeof parseArgs<{ args: string[]; allowPositionals: true; options: typeof options }>>;
  try {
    parsed = parseArgs({ args: [...argv], allowPositionals: true, options });
  } catch (e) {
    err(`jobcheck demo: ${outsideText(messageOf(e))}\n\n${DEMO_USAGE}`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (values.help) {
    streams.stdout.write(DEMO_USAGE);
    return 0;
  }
  if (positionals.length > 1) {
    err(
      `jobcheck demo: expected at most one story, got ${positionals.length}: ${outsideText(positionals.join(' '))}\n\n${DEMO_USAGE}`,
    );
    return 2;
  }
  if (values.all && (positionals.length > 0 || values.predict)) {
    err(`jobcheck demo: --all tells every story and takes no story name or --predict\n\n${DEMO_USAGE}`);
    return 2;
  }
  try {
    const name = positionals[0];
    if (values.all) {
      let faithful = true;
      for (const story of listStories()) {
        const trace = traceStory(findStory(story.name));
        streams.stdout.write(`${renderTrace(trace, colors)}\n`);
        faithful &&= trace.steps.every((s) => s.mismatches.length === 0) && trace.finalMismatches.length === 0;
      }
      return faithful ? 0 : 1;
    }
    if (name === undefined) {
      streams.stdout.write(renderStoryList(listStories()));
      return 0;
    }
    const trace = traceStory(findStory(name));
    // A story file (a path ending in .json, as findStory reads it) is text from outside.
    const fromFile = name.endsWith('.json');
    if (values.predict && streams.isTTY) await playPredict(trace, streams, colors, fromFile);
    else {
      if (values.predict) streams.stdout.write(NOT_INTERACTIVE);
      streams.stdout.write(renderTrace(trace, colors, fromFile));
    }
    const faithful = trace.steps.every((s) => s.mismatches.length === 0) && trace.finalMismatches.length === 0;
    return faithful ? 0 : 1;
  } catch (e) {
    if (e instanceof StoryError) {
      err(`jobcheck demo: ${outsideText(e.message)}\n`);
      return 2;
    }
    throw e;
  }
}
