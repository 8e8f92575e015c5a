/**
 * A progress line on stderr while a check runs, drawn with cli-progress, and only when stderr is
 * a terminal: piped or redirected output (CI logs, `--json` consumers) stays silent.
 */
import cliProgress from 'cli-progress';
import type { CheckProgress } from './check.ts';

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
};

/** A progress line on `stream` when `enabled` (a terminal), a silent one otherwise. */
export function progressLine(enabled: boolean, stream: NodeJS.WritableStream = process.stderr): ProgressLine {
  if (!enabled) return { update: () => undefined, stop: () => undefined };
  const bar = new cliProgress.SingleBar(
    { stream, format: '{label} [{bar}] {value}/{total}', hideCursor: true, clearOnComplete: true, barsize: 30, fps: 10 },
    cliProgress.Presets.shades_classic,
  );
  let phase: CheckProgress['phase'] | undefined;
  return {
    update(p) {
      if (p.phase !== phase) {
        if (phase !== undefined) bar.stop();
        phase = p.phase;
        bar.start(Math.max(p.total, 1), p.done, { label: LABELS[p.phase] });
      }
      // Shrinking and exploration do not know their total in advance: the bar shows the count so far.
      if (p.phase === 'shrink' || p.phase === 'explore') bar.setTotal(Math.max(p.total, p.done, 1));
      bar.update(p.done, { label: LABELS[p.phase] });
    },
    stop() {
      if (phase !== undefined) bar.stop();
      phase = undefined;
    },
  };
}
