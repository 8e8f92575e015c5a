/**
 * One run's folder, from the moment a check starts to the moment its verdict is known: created as
 * `runs/<time>-running/` (so that the implementation's stderr has a file to go to while it runs),
 * then filled with the page (index.html), run.json, copies of the coverage page and summary and of
 * failure.json, the race's exports, and renamed to its verdict; `latest` then points at it and the
 * oldest runs beyond the number kept are deleted. A run ended from outside first (a signal, a
 * parent gone: cli/report/interruption.ts) writes its page and run.json synchronously as
 * `interrupted` and is renamed so; `latest` keeps pointing at the newest run that finished.
 *
 * The run folder holds no coverage.json and no check result: `jobcheck merge` searches report
 * directories for those (by content), and finds each run's once, in the report directory itself.
 */
import { existsSync, renameSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { readInputFile } from '../../conformance/outside/inputFile.ts';
import { writeOutputFile } from '../../conformance/outside/outputFile.ts';
import type { CheckFailure } from '../../conformance/check/index.ts';
import type { PageLink, PageRepeat, PageVerdict } from './page.ts';
import { durationText, reportPage } from './page.ts';
import { whenInterrupted } from './interruption.ts';
import { PAGE_FILE, RUNS_DIR, endRun, markLatest, pruneRuns, startRun } from './runHistory.ts';
import { renamedRun } from './runName.ts';
import {
  RUN_RECORD_FILE,
  RUN_RECORD_FORMAT,
  quotedCommand,
  writeRunFileSync,
  writeRunRecord,
  writeRunRecordSync,
} from './runRecord.ts';
import type { PageSection } from './section.ts';
import { LAB_DEFAULT_PAGE } from './lab/failureStory.ts';
import { sectionsOf } from './sections.ts';
import { shippedContract } from './shippedDocs.ts';
import { STDERR_FILE, StderrFile } from './stderrFile.ts';

/** The race's history in Porcupine's format, beside the page. */
export const PORCUPINE_FILE = 'history.porcupine.json';
/** The race's history in Jepsen's (EDN), beside the page. */
export const JEPSEN_FILE = 'history.jepsen.edn';

/** Largest file of the report directory copied into a run's folder (the coverage page is a few hundred KiB). */
const MAX_COPY_BYTES = 64 * 1024 * 1024;

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
  /** The commands that repeat the failure, for the page's header. */
  readonly repeat?: PageRepeat;
  /** Files of the report directory copied beside the page (`coverage.html`), those that exist. */
  readonly copies: readonly PageLink[];
  /** Why a run with verdict `error` could not run. */
  readonly error?: string;
  /** Each phase of the check and what it ran, as [name, words], for the page. */
  readonly phases?: readonly (readonly [string, string])[];
  /** Sections shown after the failure's (an audit's findings). */
  readonly sections?: readonly PageSection[];
}

/** What a run's folder says about it whatever ends it: known once its flags are read. */
export type RunStart = Pick<RunOutcome, 'argv' | 'target' | 'seed' | 'version'>;

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
  /** Stops recording an interruption (set by recordInterruption). */
  private forgetInterruption: () => void = () => undefined;

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

  /**
   * From now until the run finishes or is discarded, an end from outside (cli/main.ts) records
   * the run as `interrupted`: its page and run.json, written synchronously, and the folder renamed.
   */
  recordInterruption(start: RunStart): void {
    this.forgetInterruption();
    this.forgetInterruption = whenInterrupted((why, exitCode) => this.interrupted(start, why, exitCode));
  }

  /** The run ended from outside: its page and run.json say so, and its folder is named `-interrupted`. Synchronous. */
  private interrupted(start: RunStart, why: string, exitCode: number): void {
    // The folder is gone when the run finished or was discarded between the signal and this.
    if (!existsSync(this.dir)) return;
    const time = this.startedAt.toISOString();
    const durationMs = Date.now() - this.startedAt.getTime();
    const command = quotedCommand(start.argv);
    const stderr = this.stderr.summary();
    const headline = `Interrupted after ${durationText(durationMs)}, before the check had a verdict (${why}): what it ran is not reported, and it is not a pass.`;
    writeRunFileSync(
      join(this.dir, PAGE_FILE),
      reportPage({
        verdict: 'interrupted',
        headline,
        version: start.version,
        time,
        durationMs,
        command,
        target: start.target,
        seed: start.seed,
        ...(stderr.lines === 0
          ? {}
          : {
              stderr: { href: STDERR_FILE, tail: stderr.tail, lines: stderr.lines, bytesDropped: stderr.bytesDropped },
            }),
        links: [{ href: RUN_RECORD_FILE, label: 'this run, as jobcheck report --list reads it' }],
        sections: [],
      }),
    );
    writeRunRecordSync(join(this.dir, RUN_RECORD_FILE), {
      format: RUN_RECORD_FORMAT,
      version: start.version,
      time,
      argv: [...start.argv],
      command,
      target: start.target,
      seed: start.seed,
      verdict: 'interrupted',
      exitCode,
      durationMs,
      stoppedBy: why,
    });
    renameSync(this.dir, join(this.root, RUNS_DIR, renamedRun(this.name, 'interrupted')));
  }

  /** Removes the folder of a run that did not start (a usage error): it has nothing to tell. */
  async discard(): Promise<void> {
    this.forgetInterruption();
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
      // Read within a limit and written afresh: a copy never blocks on a FIFO or follows a link.
      const copied = await readInputFile(join(this.root, copy.href), MAX_COPY_BYTES)
        .then((text) => writeOutputFile(join(this.dir, copy.href), text, { exclusive: true }))
        .then(
          () => true,
          () => false,
        );
      if (copied) links.push(copy);
    }
    const f = outcome.failure;
    const history = f?.kind === 'race' ? f.race.run?.history : undefined;
    if (history !== undefined) {
      const { toPorcupine, toJepsen } = await import('../../conformance/concurrent/export.ts');
      await writeOutputFile(join(this.dir, PORCUPINE_FILE), toPorcupine(history), { exclusive: true });
      await writeOutputFile(join(this.dir, JEPSEN_FILE), toJepsen(history), { exclusive: true });
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
      ...(outcome.repeat === undefined ? {} : { repeat: outcome.repeat }),
      ...(stderr.lines === 0
        ? {}
        : {
            stderr: { href: STDERR_FILE, tail: stderr.tail, lines: stderr.lines, bytesDropped: stderr.bytesDropped },
          }),
      links,
      // The story links to the lab where `jobcheck lab` writes it, from the folder the check ran in.
      sections: [
        ...(await sectionsOf(f, shippedContract(), pathToFileURL(resolve(LAB_DEFAULT_PAGE)).href)),
        ...(outcome.sections ?? []),
      ],
      ...(outcome.phases === undefined ? {} : { phases: outcome.phases }),
    });
    await writeOutputFile(join(this.dir, PAGE_FILE), page, { exclusive: true });
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
    // Until the folder had its verdict's name, an end from outside still recorded the run as interrupted.
    this.forgetInterruption();
    const through = await markLatest(this.root, name);
    const pruned = await pruneRuns(this.root, keep, { justMade: name });
    return { name, page: join(this.root, through, PAGE_FILE), pruned };
  }
}
