/**
 * One run's folder, from the moment a check starts to the moment its verdict is known: created as
 * `runs/<time>-running/` (so that the implementation's stderr has a file to go to while it runs),
 * then filled with the page (index.html), run.json, copies of the coverage page and summary and of
 * failure.json, the race's exports, and renamed to its verdict; `latest` then points at it and the
 * oldest runs beyond the number kept are deleted.
 *
 * The run folder holds no coverage.json and no check result: `jobcheck merge` searches report
 * directories for those (by content), and finds each run's once, in the report directory itself.
 */
import { copyFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { CheckFailure } from '../../conformance/check/index.ts';
import type { PageLink, PageVerdict } from './page.ts';
import { reportPage } from './page.ts';
import { PAGE_FILE, RUNS_DIR, endRun, markLatest, pruneRuns, startRun } from './runHistory.ts';
import { RUN_RECORD_FILE, RUN_RECORD_FORMAT, quotedCommand, writeRunRecord } from './runRecord.ts';
import { sectionsOf } from './sections.ts';
import { STDERR_FILE, StderrFile } from './stderrFile.ts';

/** The race's history in Porcupine's format, beside the page. */
export const PORCUPINE_FILE = 'history.porcupine.json';
/** The race's history in Jepsen's (EDN), beside the page. */
export const JEPSEN_FILE = 'history.jepsen.edn';

/** How a run ended, as its folder records it. */
export interface RunOutcome {
  readonly verdict: PageVerdict;
  readonly exitCode: number;
  /** One sentence for the page's header. */
  readonly headline: string;
  readonly durationMs: number;
  /** The arguments after `jobcheck` (`check --impl ...`). */
  readonly argv: readonly string[];
  /** The target, paths relative to the working directory. */
  readonly target: string;
  readonly seed: number;
  readonly version: string;
  /** The failure whose sections the page shows, if any. */
  readonly failure: CheckFailure | null;
  /** Files of the report directory copied beside the page (`coverage.html`), those that exist. */
  readonly copies: readonly PageLink[];
  /** Why a run with verdict `error` could not run. */
  readonly error?: string;
  /** Each phase of the check and what it ran, as [name, words], for the page. */
  readonly phases?: readonly (readonly [string, string])[];
}

/** Where a finished run is. */
export interface FinishedRun {
  /** The folder's name under `runs/`. */
  readonly name: string;
  /** The page as reached from the report directory: `<report>/latest/index.html`, or through the folder's own name where `latest` is not a link. */
  readonly page: string;
  /** Run folders deleted to keep the number asked for. */
  readonly pruned: readonly string[];
}

/** A run in progress: its folder, and the sink for the implementation's stderr. */
export class RunFolder {
  /** The implementation's stderr, written into the folder (used only by targets that run processes). */
  readonly stderr: StderrFile;

  private constructor(
    /** The report directory. */
    readonly root: string,
    /** The folder's name under `runs/` while the run goes on. */
    readonly name: string,
    /** When the run started. */
    readonly startedAt: Date,
  ) {
    this.stderr = new StderrFile(join(this.dir, STDERR_FILE));
  }

  /** The folder, as reached from the working directory. */
  get dir(): string {
    return join(this.root, RUNS_DIR, this.name);
  }

  /** Creates the folder of a run that starts now, under `root` (the report directory, which exists). */
  static async start(root: string, startedAt: Date = new Date()): Promise<RunFolder> {
    return new RunFolder(root, await startRun(root, startedAt), startedAt);
  }

  /** Removes the folder of a run that did not start (a usage error): it has nothing to tell. */
  async discard(): Promise<void> {
    await this.stderr.close();
    await rm(this.dir, { recursive: true, force: true });
  }

  /**
   * Closes stderr, writes the page, run.json and the files beside them, renames the folder to its
   * verdict, points `latest` at it, and deletes the oldest runs beyond `keep`.
   */
  async finish(outcome: RunOutcome, keep: number): Promise<FinishedRun> {
    const stderr = await this.stderr.close();
    const links: PageLink[] = [];
    for (const copy of outcome.copies) {
      const copied = await copyFile(join(this.root, copy.href), join(this.dir, copy.href)).then(
        () => true,
        () => false,
      );
      if (copied) links.push(copy);
    }
    const f = outcome.failure;
    const history = f?.kind === 'race' ? f.race.run?.history : undefined;
    if (history !== undefined) {
      const { toPorcupine, toJepsen } = await import('../../conformance/concurrent/export.ts');
      await writeFile(join(this.dir, PORCUPINE_FILE), toPorcupine(history));
      await writeFile(join(this.dir, JEPSEN_FILE), toJepsen(history));
      links.push(
        { href: PORCUPINE_FILE, label: 'the history for Porcupine' },
        { href: JEPSEN_FILE, label: 'for Jepsen' },
      );
    }
    links.push({ href: RUN_RECORD_FILE, label: 'this run, as jobcheck report --list reads it' });
    const time = this.startedAt.toISOString();
    const command = quotedCommand(outcome.argv);
    const page = reportPage({
      verdict: outcome.verdict,
      headline: outcome.headline,
      version: outcome.version,
      time,
      durationMs: outcome.durationMs,
      command,
      target: outcome.target,
      seed: outcome.seed,
      ...(stderr.lines === 0
        ? {}
        : {
            stderr: { href: STDERR_FILE, tail: stderr.tail, lines: stderr.lines, bytesDropped: stderr.bytesDropped },
          }),
      links,
      sections: await sectionsOf(f),
      ...(outcome.phases === undefined ? {} : { phases: outcome.phases }),
    });
    await writeFile(join(this.dir, PAGE_FILE), page);
    await writeRunRecord(join(this.dir, RUN_RECORD_FILE), {
      format: RUN_RECORD_FORMAT,
      version: outcome.version,
      time,
      argv: [...outcome.argv],
      command,
      target: outcome.target,
      seed: outcome.seed,
      verdict: outcome.verdict,
      exitCode: outcome.exitCode,
      durationMs: Math.round(outcome.durationMs),
      ...(outcome.error === undefined ? {} : { error: outcome.error }),
    });
    const name = await endRun(this.root, this.name, outcome.verdict);
    const through = await markLatest(this.root, name);
    const pruned = await pruneRuns(this.root, keep);
    return { name, page: join(this.root, through, PAGE_FILE), pruned };
  }
}
