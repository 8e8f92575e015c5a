/**
 * The name of a run's folder under `<report>/runs/`: its UTC start time, sortable, and a short
 * verdict, `2026-12-02T05-30-12.345Z-diverge`. The time is ISO 8601 with `-` for `:` (which
 * Windows refuses in names), so that names sort as times do and a listing needs no file's
 * contents to order runs. A run still in progress (or one whose process was killed without a
 * chance to say so, SIGKILL) is named `-running`; it is renamed when its verdict is known, or to
 * `-interrupted` when a signal or a parent gone ends it first.
 */

/**
 * The verdicts a run folder's name carries: a check's three, `error` (a check that could not run),
 * `interrupted` (ended from outside before its verdict) and `running`.
 */
export const RUN_VERDICTS = ['agree', 'diverge', 'incomplete', 'error', 'interrupted', 'running'] as const;
/** A verdict a run folder's name carries. */
export type RunFolderVerdict = (typeof RUN_VERDICTS)[number];

const NAME =
  /^(\d{4}-\d{2}-\d{2})T(\d{2})-(\d{2})-(\d{2}\.\d{3})Z-(agree|diverge|incomplete|error|interrupted|running)$/;

/** The folder name of a run that started at `at` with `verdict`. Pure. */
export function runFolderName(at: Date, verdict: RunFolderVerdict): string {
  return `${at.toISOString().replace(/:/g, '-')}-${verdict}`;
}

/**
 * What a run folder's name says: its start time (ISO 8601) and verdict; undefined for any other
 * name, including one of the right shape that runFolderName would not write (`2026-02-30T...`,
 * `...T24-00-00...`): what is not a name jobcheck writes is not a run of its history. Pure.
 */
export function parseRunFolderName(
  name: string,
): { readonly time: string; readonly verdict: RunFolderVerdict } | undefined {
  const m = NAME.exec(name);
  if (m === null) return undefined;
  const time = `${m[1]}T${m[2]}:${m[3]}:${m[4]}Z`;
  const at = Date.parse(time);
  if (Number.isNaN(at) || runFolderName(new Date(at), m[5] as RunFolderVerdict) !== name) return undefined;
  return { time, verdict: m[5] as RunFolderVerdict };
}

/** The same run under another verdict (`...-running` to `...-diverge`). Pure. */
export function renamedRun(name: string, verdict: RunFolderVerdict): string {
  return name.replace(/-[a-z]+$/, `-${verdict}`);
}
