/**
 * A progress line on stderr while a check runs, drawn with cli-progress, and only when stderr is
 * a terminal: piped or redirected output (CI logs, `--json` consumers) stays silent. Every line
 * ends with the time since the check began. Phases with a known total (fixtures, paths, random
 * runs) draw a bar; shrinking and exploration do not know how far they have to go, so they show a
 * counter instead of a bar that would always look full.
 */
import cliProgress from 'cli-progress';
import type { CheckProgress } from '../conformance/check/index.ts';

/** Receives check progress; `stop()` clears the line. */
export interface ProgressLine {
  update(progress: CheckProgress): void;
  stop(): void;
}

const LABELS: Record<CheckProgress['phase'], string> = {
  fixtures: 'fixture stories',
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
  return {
    update(p) {
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
    },
  };
}
