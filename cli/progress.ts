/**
 * What a check shows while it runs. On a terminal, a progress line on stderr, drawn with
 * cli-progress; every line ends with the time since the check began. Without one (a CI log, a
 * pipe), a PhaseLog instead: the summary's header at once, and each phase's line of the summary as
 * soon as the phase has ended, so that a log never stays silent for the length of the check. Phases with a known total (fixtures, paths, random
 * runs) draw a bar; shrinking and exploration do not know how far they have to go, so they show a
 * counter instead of a bar that would always look full.
 *
 * While it draws, cli-progress hides the cursor and turns line wrap off; it gives both back when
 * the bar stops, which a check ended by Ctrl-C (cli/main.ts exits on SIGINT, SIGTERM and SIGHUP)
 * never reaches. So a line that draws also gives them back when the process exits, whatever way.
 */
import cliProgress from 'cli-progress';
import type { CheckPhaseEnd, CheckProgress } from '../conformance/check/index.ts';
import { PHASE_LABELS, SUMMARY_ORDER, phaseEndText } from './output/phaseText.ts';

/** Receives check progress; `stop()` clears the line. */
export interface ProgressLine {
  update(progress: CheckProgress): void;
  stop(): void;
}

const LABELS: Record<CheckProgress['phase'], string> = {
  fixtures: 'fixture stories',
  restore: 'restore        ',
  paths: 'path suite     ',
  campaign: 'random runs    ',
  shrink: 'shrinking      ',
  explore: 'exploration    ',
  concurrent: 'competing runs ',
};

/** What a counter phase counts: shrinking tries smaller runs, exploration visits states. */
const COUNTED: Partial<Record<CheckProgress['phase'], string>> = {
  shrink: 'smaller runs tried',
  explore: 'states explored',
};

const BAR_SIZE = 30;

/** The sequence that shows the cursor again (cli-progress hides it while it draws). */
export const SHOW_CURSOR = '\x1b[?25h';
/** The sequence that turns line wrap back on (cli-progress turns it off while it draws). */
export const WRAP_ON = '\x1b[?7h';

/**
 * Gives a terminal back the cursor and line wrap. Synchronous on a terminal, so that it can run in
 * an `exit` handler; never throws (the terminal may be gone).
 */
export function restoreTerminal(stream: NodeJS.WritableStream): void {
  try {
    stream.write(SHOW_CURSOR + WRAP_ON);
  } catch {
    // the terminal is gone: nothing to give back
  }
}

/** `4.2 s`, `1 min 03 s`. Pure. */
export function elapsedText(ms: number): string {
  const s = Math.max(0, ms) / 1000;
  if (s < 60) return `${s.toFixed(1)} s`;
  const whole = Math.floor(s);
  return `${Math.floor(whole / 60)} min ${String(whole % 60).padStart(2, '0')} s`;
}

/**
 * The text of the progress line: `random runs     [████░░...] 12/100  4.2 s` for a phase with a
 * total, `shrinking       37 smaller runs tried  4.2 s` for a counter phase. Pure.
 */
export function progressText(phase: CheckProgress['phase'], done: number, total: number, elapsedMs: number): string {
  const counted = COUNTED[phase];
  if (counted !== undefined) return `${LABELS[phase]} ${done} ${counted}  ${elapsedText(elapsedMs)}`;
  const t = Math.max(total, 1);
  const filled = Math.round((Math.min(done, t) / t) * BAR_SIZE);
  const bar =
    cliProgress.Presets.shades_classic.barCompleteChar.repeat(filled) +
    cliProgress.Presets.shades_classic.barIncompleteChar.repeat(BAR_SIZE - filled);
  return `${LABELS[phase]} [${bar}] ${done}/${total}  ${elapsedText(elapsedMs)}`;
}

/**
 * A progress line on `stream` when `enabled` (a terminal), a silent one otherwise. `now` gives
 * the time in ms (tests pass their own); the elapsed time counts from the line's creation.
 */
export function progressLine(
  enabled: boolean,
  stream: NodeJS.WritableStream = process.stderr,
  now: () => number = () => performance.now(),
): ProgressLine {
  if (!enabled) return { update: () => undefined, stop: () => undefined };
  const started = now();
  let phase: CheckProgress['phase'] = 'fixtures';
  let total = 0;
  const bar = new cliProgress.SingleBar(
    {
      stream,
      // cli-progress redraws at `fps`; the line is drawn here so that the elapsed time moves between updates too.
      format: (_options, params) => progressText(phase, params.value, total, now() - started),
      hideCursor: true,
      clearOnComplete: true,
      fps: 10,
    },
    cliProgress.Presets.shades_classic,
  );
  let running = false;
  // While the line draws, the process's exit gives the terminal back (a Ctrl-C ends it with process.exit).
  const restore = (): void => restoreTerminal(stream);
  return {
    update(p) {
      if (!running) process.once('exit', restore);
      if (!running || p.phase !== phase) {
        if (running) bar.stop();
        phase = p.phase;
        running = true;
        total = p.total;
        bar.start(Math.max(p.total, p.done, 1), p.done);
      }
      total = p.total;
      bar.setTotal(Math.max(p.total, p.done, 1));
      bar.update(p.done);
    },
    stop() {
      if (running) bar.stop();
      running = false;
      process.removeListener('exit', restore);
    },
  };
}

/**
 * The summary of a check written as the check runs, for output that is no terminal: its header at
 * once (start), then each phase's line (phaseEndText, the summary's own words) once that phase and
 * every phase before it in the summary have ended; the competing workers, when they run first,
 * wait for their place after the exploration. `rest` then gives the summary printed at the end
 * without the lines already written, so that the output is the summary, written as it became known.
 */
export class PhaseLog {
  private readonly lines: string[] = [];
  private readonly ended = new Map<CheckPhaseEnd['phase'], string | null>();
  private next = 0;

  constructor(private readonly write: (text: string) => void) {}

  /** Writes the summary's first lines at once. */
  start(header: readonly string[]): void {
    for (const line of header) this.emit(line);
  }

  /** Takes a phase's end, and writes the line of every phase whose turn has come. */
  end(end: CheckPhaseEnd): void {
    this.ended.set(end.phase, phaseEndText(end));
    for (let phase = SUMMARY_ORDER[this.next]; phase !== undefined && this.ended.has(phase); ) {
      const text = this.ended.get(phase);
      if (text !== null && text !== undefined) this.emit(`  ${PHASE_LABELS[phase]}  ${text}`);
      this.next += 1;
      phase = SUMMARY_ORDER[this.next];
    }
  }

  /** The lines written so far, in order. */
  get written(): readonly string[] {
    return this.lines;
  }

  /**
   * `summary` (the whole text printed at the end) without the lines already written, when it begins
   * with them; all of it otherwise, so that nothing is ever lost. Pure but for reading what was written.
   */
  rest(summary: string): string {
    const lines = summary.split('\n');
    const same = this.lines.every((line, i) => lines[i] === line);
    return same ? lines.slice(this.lines.length).join('\n') : summary;
  }

  private emit(line: string): void {
    this.lines.push(line);
    this.write(`${line}\n`);
  }
}
