/**
 * Generator of docs/profiles/ (`npm run profiles`, which runs it beside throw-away brokers and
 * PostgreSQL: scripts/brokers.sh, scripts/pg.sh): profiles the built-in JobStore (the reference
 * column) and every real-queue adapter that exports a ProfileTarget, stores each profile as data
 * (`docs/profiles/data/<adapter>.json`, the `jobcheck.profile` format), then writes every page from
 * the stored data (docs/tools/profilePages.ts): one per queue and the matrix (README.md).
 *
 * Adapters are imported lazily, one by one: one that is absent or cannot set up is reported and
 * skipped, its stored profile kept. Seeds and run counts are fixed and pages hold no times, so the
 * same implementations give the same pages (on a logical clock; a broker on its own clock may
 * shrink a departure to another story from run to run). An adapter module exports `profileTarget`
 * (or `default`: a ProfileTarget, or a function returning one or its promise), or else any exported
 * ProfileTarget value. A target with a concurrent factory is also profiled with competing workers
 * (CONCURRENT_WORKERS lanes, CONCURRENT_RUNS scenarios, the same seed; on a wall clock beside the
 * rules), then searched for races.
 *
 * Run: npm run profiles   (`--runs N` per rule; `--only <queue>` one queue besides the reference;
 * `--time-limit S` per queue, rules cut short say `budget exhausted`; `--concurrent-runs N`;
 * `--render-only` profiles nothing, needs no broker, and rewrites every page from the stored data)
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { join } from 'node:path';
import { jobStoreFactory } from '../conformance/stores/jobStore.ts';
import { Budget } from '../conformance/budget.ts';
import { tellLibraryWarnings } from '../cli/libraryWarnings.ts';
import { runConcurrentProfile, runProfile, withConcurrent } from '../conformance/profile/index.ts';
import { lockedJobStoreFactory } from '../conformance/concurrent/inProcess.ts';
import type { ProfileTarget } from '../conformance/profile/index.ts';
import {
  CONCURRENT_WORKERS,
  PROFILE_ADAPTERS,
  REFERENCE_DATA,
  dataName,
  pageOf,
  readStored,
  renderStoredPages,
} from '../docs/tools/profilePages.ts';

tellLibraryWarnings();
const root = fileURLToPath(new URL('..', import.meta.url));
const outDir = join(root, 'docs', 'profiles');
const dataDir = join(outDir, 'data');
const arg = (name: string): string | undefined => {
  const i = process.argv.indexOf(`--${name}`);
  return i < 0 ? undefined : process.argv[i + 1];
};
/** Fixed, so that the pages are repeatable; also the default seed of `jobcheck profile`, so the replay lines need not name it. */
const PROFILE_SEED = 1;
/** Runs per rule of the published pages. */
const PROFILE_RUNS = 10;
const RUNS = Number(arg('runs') ?? PROFILE_RUNS);
const only = arg('only');
/** Profile nothing: rewrite every page from the stored data. */
const renderOnly = process.argv.includes('--render-only');
/** Rules' campaigns in flight at once for a queue on a wall clock. */
const WALL_CLOCK_PARALLEL = 4;
/** Scenarios of competing workers of the published pages. */
const PROFILE_CONCURRENT_RUNS = 20;
const CONCURRENT_RUNS = Number(arg('concurrent-runs') ?? PROFILE_CONCURRENT_RUNS);
/** Seconds per queue (none by default: a budget makes the pages depend on the machine's speed). */
const timeLimit = arg('time-limit') === undefined ? undefined : Number(arg('time-limit'));

const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string };
const reference: ProfileTarget = {
  queue: 'jobcheck JobStore',
  version: pkg.version,
  factory: jobStoreFactory(),
  concurrentFactory: lockedJobStoreFactory(),
  declarations: {},
};

const isProfileTarget = (v: unknown): v is ProfileTarget =>
  typeof v === 'object' &&
  v !== null &&
  typeof (v as ProfileTarget).factory === 'function' &&
  typeof (v as ProfileTarget).queue === 'string' &&
  typeof (v as ProfileTarget).declarations === 'object';

/** Loads the ProfileTarget an adapter module exports, or says why not (undefined). */
async function loadTarget(file: string): Promise<ProfileTarget | undefined> {
  const path = join(root, file);
  if (!existsSync(path)) {
    console.log(`${file}: absent, skipped`);
    return undefined;
  }
  try {
    const mod = (await import(pathToFileURL(path).href)) as Record<string, unknown>;
    const named = mod['profileTarget'] ?? mod['default'];
    const value: unknown = typeof named === 'function' ? await (named as () => unknown)() : named;
    const found = isProfileTarget(value) ? value : Object.values(mod).find(isProfileTarget);
    if (found === undefined) console.log(`${file}: exports no ProfileTarget, skipped`);
    return found;
  } catch (error) {
    console.log(`${file}: cannot set up (${(error as Error).message.split('\n')[0]}), skipped`);
    return undefined;
  }
}

/** Each target with the `jobcheck profile` flags that select it again, for the replay lines, and its data file's name. */
const targets: { readonly target: ProfileTarget; readonly flags: string; readonly data: string }[] = renderOnly
  ? []
  : [{ target: reference, flags: '--builtin', data: REFERENCE_DATA }];
for (const { file } of renderOnly ? [] : PROFILE_ADAPTERS) {
  const t = await loadTarget(file);
  if (t !== undefined) targets.push({ target: t, flags: `--module ${file}`, data: dataName(file) });
}
mkdirSync(dataDir, { recursive: true });
for (const { target, flags, data } of targets) {
  if (only !== undefined && target !== reference && target.queue !== only) continue;
  const page = pageOf(target);
  const budget = timeLimit === undefined ? undefined : new Budget(timeLimit * 1000);
  try {
    const wall = target.clock?.kind === 'wall';
    const sequentialRun = runProfile(target, {
      runs: RUNS,
      seed: PROFILE_SEED,
      // A broker on its own clock mostly waits: its rules' campaigns run four at a time, each on
      // instances of its own. A logical-clock queue is run one campaign at a time unless it says otherwise.
      parallel: target.parallel ?? (wall ? WALL_CLOCK_PARALLEL : 1),
      ...(budget === undefined ? {} : { budget }),
      // The seed is the command's default; a queue on PostgreSQL needs the server (npm run pg's, or PGHOST).
      replayCommand: (rule, campaign, path) =>
        campaign === undefined || path === undefined
          ? `npx jobcheck profile ${flags} --rule ${rule}  (found by the fixture stories, which every profile runs)`
          : `npx jobcheck profile ${flags} --rule ${campaign} --path ${path}`,
    });
    // Competing workers: on a wall clock beside the rules' campaigns (both mostly wait, each on
    // instances of its own), else after them; the page is the same either way but for the broker's timing.
    const { concurrentFactory } = target;
    const concurrentRun =
      concurrentFactory === undefined
        ? undefined
        : (wall ? Promise.resolve() : sequentialRun).then(() =>
            runConcurrentProfile(target, {
              workers: CONCURRENT_WORKERS,
              runs: CONCURRENT_RUNS,
              seed: PROFILE_SEED,
              ...(budget === undefined ? {} : { budget }),
              replayCommand: (path) =>
                `npx jobcheck profile ${flags} --workers ${CONCURRENT_WORKERS} --seed ${PROFILE_SEED} --concurrent-path ${path}`,
              staleAck: true,
              staleAckReplayCommand: `npx jobcheck profile ${flags} --workers ${CONCURRENT_WORKERS} --stale-ack`,
              races: true,
              raceReplayCommand: (path) =>
                `npx jobcheck profile ${flags} --workers ${CONCURRENT_WORKERS} --seed ${PROFILE_SEED} --race-path ${path}`,
            }),
          );
    // Both end before the target closes, whichever fails first.
    const [sequential, concurrent] = await Promise.allSettled([sequentialRun, concurrentRun]);
    if (sequential.status === 'rejected') throw sequential.reason;
    if (concurrent.status === 'rejected') throw concurrent.reason;
    const profile =
      concurrent.value === undefined ? sequential.value : withConcurrent(sequential.value, concurrent.value);
    // The section under faults is another generator's (scripts/profilesFaults.ts): kept as stored.
    const faults = existsSync(join(dataDir, `${data}.json`))
      ? readStored(dataDir, data, (line) => console.log(line))?.faults
      : undefined;
    const stored = faults === undefined ? profile : { ...profile, faults };
    writeFileSync(join(dataDir, `${data}.json`), `${JSON.stringify(stored, null, 2)}\n`);
    console.log(`${target.queue} ${target.version}: ${profile.verdict} -> docs/profiles/${page}`);
  } catch (error) {
    console.log(`${target.queue}: profile failed (${(error as Error).message.split('\n')[0]}), skipped`);
  } finally {
    budget?.dispose();
    await target.close?.();
  }
}
// Every page from the stored data: this run's profiles, and the others' as an earlier run stored them.
for (const [file, text] of renderStoredPages(dataDir, (line) => console.log(line))) {
  writeFileSync(join(outDir, file), text);
  console.log(`docs/profiles/${file} written`);
}
