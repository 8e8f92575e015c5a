/**
 * Generator of docs/profiles/ (`npm run profiles`, which runs it beside throw-away brokers and
 * PostgreSQL: scripts/brokers.sh, scripts/pg.sh): profiles the built-in JobStore (the reference
 * column) and every real-queue adapter that exports a ProfileTarget, and writes one page per queue
 * (`docs/profiles/<queue>.md`) and the matrix queues × rules (`docs/profiles/README.md`).
 *
 * Adapters are imported lazily, one by one: one that is absent or cannot set up is reported and
 * skipped. Seeds and run counts are fixed and pages hold no times, so the same implementations
 * give the same pages (on a logical clock; a broker on its own clock may shrink a departure to
 * another story from run to run). Each profile is kept as data (`docs/profiles/data/<adapter>.json`,
 * the `jobcheck.profile` format) and the matrix is built from those, so `--only <queue>` rewrites
 * one queue and keeps the others; a stored profile of another format is left out, with a message.
 * An adapter module exports `profileTarget` (or `default`: a ProfileTarget, or a function returning
 * one or its promise), or else any exported ProfileTarget value. A target with a concurrent factory
 * is also profiled with competing workers (CONCURRENT_WORKERS lanes, CONCURRENT_RUNS scenarios, the
 * same seed; on a wall clock beside the rules), and searched for races, with a row of its own in the matrix.
 *
 * Run: npm run profiles   (`--runs N` per rule; `--only <queue>` one queue besides the reference;
 * `--time-limit S` per queue, rules cut short say `budget exhausted`; `--concurrent-runs N`)
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { basename, dirname, join } from 'node:path';
import { RULE_IDS } from '../contract/rules.ts';
import { jobStoreFactory } from '../conformance/stores/jobStore.ts';
import { Budget } from '../conformance/budget.ts';
import {
  describeClock,
  describeResult,
  profileSchema,
  renderProfileMarkdown,
  runConcurrentProfile,
  runProfile,
  withConcurrent,
} from '../conformance/profile/index.ts';
import { lockedJobStoreFactory } from '../conformance/concurrent/inProcess.ts';
import type { Profile, ProfileTarget, RuleResult } from '../conformance/profile/index.ts';

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
/** Rules' campaigns in flight at once for a queue on a wall clock. */
const WALL_CLOCK_PARALLEL = 4;
/** Most worker lanes of the competing workers (`--workers 4`). */
const CONCURRENT_WORKERS = 4;
/** Scenarios of competing workers of the published pages. */
const PROFILE_CONCURRENT_RUNS = 20;
const CONCURRENT_RUNS = Number(arg('concurrent-runs') ?? PROFILE_CONCURRENT_RUNS);
/** Seconds per queue (none by default: a budget makes the pages depend on the machine's speed). */
const timeLimit = arg('time-limit') === undefined ? undefined : Number(arg('time-limit'));

/** Adapter modules that may export a ProfileTarget, relative to the repository, in the matrix's column order. */
const PROFILE_ADAPTERS = [
  'adapters/pg-boss/profile.ts',
  'adapters/bullmq-postgres/profile.ts',
  'adapters/bullmq-redis/profile.ts',
  'adapters/rabbitmq/profile.ts',
  'adapters/nats-jetstream/profile.ts',
  'adapters/beanstalkd/profile.ts',
] as const;
/** The name a profile's data file takes: the adapter's folder (`pg-boss`), or `reference`. */
const REFERENCE_DATA = 'reference';
const dataName = (file: string): string => basename(dirname(file));

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

const slug = (queue: string): string =>
  queue
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');

/** A matrix cell: the result in a few words, a departure linked to its section on the queue's page. */
function cellOf(r: RuleResult | undefined, page: string): string {
  if (r === undefined) return '';
  const text = describeResult(r).replace(/\|/g, '\\|');
  if (r.status !== 'departs') return text;
  return `[${text}](${page}#departure-${r.rule})${r.departure?.seed === undefined ? '' : ` seed ${r.departure.seed}`}`;
}

function matrix(profiles: readonly { profile: Profile; page: string }[]): string {
  const lines = ['# Profiles: real queues against the contract', ''];
  lines.push(
    'Each queue checked rule by rule by `jobcheck profile` (docs/cli.md): for every rule of the [contract](../contract.md), the fixture stories and a targeted random campaign that exercise it, in lockstep with the model, with the rules a queue declares unsupported left out and its declared variants of the model (model/variants.ts) in their place. The built-in JobStore is the reference column. Generated by `npm run profiles` with seed 1; every departure links to its shrunk story and the command that replays it. [Chapter 9](../09-reading-a-profile.md) reads these pages with a workload in mind.',
    '',
  );
  lines.push('| queue | version | clock | verdict | page |', '| --- | --- | --- | --- | --- |');
  for (const { profile, page } of profiles)
    lines.push(
      `| ${profile.queue} | ${profile.version} | ${describeClock(profile)} | ${profile.verdict} | [${page}](${page}) |`,
    );
  lines.push(
    '',
    `| rule | ${profiles.map((p) => p.profile.queue).join(' | ')} |`,
    `| --- | ${profiles.map(() => '---').join(' | ')} |`,
  );
  for (const rule of RULE_IDS) {
    const cells = profiles.map(({ profile, page }) =>
      cellOf(
        profile.rules.find((r) => r.rule === rule),
        page,
      ),
    );
    lines.push(`| [\`${rule}\`](../contract.md#rule-${rule}) | ${cells.join(' | ')} |`);
  }
  // Competing workers, one more row: each queue's linearizability verdict, linked to its section.
  const workers = profiles.map(({ profile, page }) =>
    profile.concurrent === undefined
      ? ''
      : `[${profile.concurrent.verdict.replace(/_/g, ' ')}](${page}#competing-workers)`,
  );
  if (workers.some((w) => w !== ''))
    lines.push(`| competing workers (\`--workers ${CONCURRENT_WORKERS}\`) | ${workers.join(' | ')} |`);
  const staleAck = profiles.map(({ profile, page }) =>
    profile.concurrent?.staleAck === undefined
      ? ''
      : `[${profile.concurrent.staleAck.verdict.replace(/_/g, ' ')}](${page}#stale-acknowledgement)`,
  );
  if (staleAck.some((a) => a !== ''))
    lines.push(`| stale acknowledgement (the old holder's ack after a redelivery) | ${staleAck.join(' | ')} |`);
  const races = profiles.map(({ profile, page }) =>
    profile.concurrent?.races === undefined
      ? ''
      : `[${profile.concurrent.races.verdict.replace(/_/g, ' ')}](${page}#races)`,
  );
  if (races.some((r) => r !== ''))
    lines.push(`| races (departs only with requests in flight together) | ${races.join(' | ')} |`);
  // Each link with what the thread says: a link alone invites reading more into it than it holds.
  const links = profiles.flatMap(({ profile }) =>
    profile.rules.flatMap((r) =>
      r.upstream === undefined ? [] : [`- ${profile.queue}, \`${r.rule}\`: <${r.upstream.url}>: ${r.upstream.says}`],
    ),
  );
  if (links.length > 0) lines.push('', '## Upstream reports', '', ...links);
  return `${lines.join('\n')}\n`;
}

/** Each target with the `jobcheck profile` flags that select it again, for the replay lines, and its data file's name. */
const targets: { readonly target: ProfileTarget; readonly flags: string; readonly data: string }[] = [
  { target: reference, flags: '--builtin', data: REFERENCE_DATA },
];
for (const file of PROFILE_ADAPTERS) {
  const t = await loadTarget(file);
  if (t !== undefined) targets.push({ target: t, flags: `--module ${file}`, data: dataName(file) });
}
mkdirSync(dataDir, { recursive: true });
/** The profiles of this run, by data file name. */
const done = new Map<string, Profile>();
for (const { target, flags, data } of targets) {
  if (only !== undefined && target !== reference && target.queue !== only) continue;
  const page = `${slug(target.queue)}.md`;
  const budget = timeLimit === undefined ? undefined : new Budget(timeLimit * 1000);
  try {
    const wall = target.clock?.kind === 'wall';
    const sequentialRun = runProfile(target, {
      runs: RUNS,
      seed: PROFILE_SEED,
      // A broker on its own clock mostly waits: its rules' campaigns run four at a time, each on
      // instances of its own. A logical-clock queue is run one campaign at a time, as before.
      parallel: wall ? WALL_CLOCK_PARALLEL : 1,
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
    writeFileSync(join(outDir, page), renderProfileMarkdown(profile, { title: `${target.queue} ${target.version}` }));
    writeFileSync(join(dataDir, `${data}.json`), `${JSON.stringify(profile, null, 2)}\n`);
    done.set(data, profile);
    console.log(`${target.queue} ${target.version}: ${profile.verdict} -> docs/profiles/${page}`);
  } catch (error) {
    console.log(`${target.queue}: profile failed (${(error as Error).message.split('\n')[0]}), skipped`);
  } finally {
    budget?.dispose();
    await target.close?.();
  }
}
/** The profile of a column: this run's, else the one stored by an earlier run (undefined when none is readable). */
function columnOf(data: string): Profile | undefined {
  const fresh = done.get(data);
  if (fresh !== undefined) return fresh;
  const file = join(dataDir, `${data}.json`);
  if (!existsSync(file)) return undefined;
  const parsed = profileSchema.safeParse(JSON.parse(readFileSync(file, 'utf8')));
  if (parsed.success) return parsed.data as Profile;
  console.log(`docs/profiles/data/${data}.json: not a profile of this format, left out of the matrix`);
  return undefined;
}
const columns = [REFERENCE_DATA, ...PROFILE_ADAPTERS.map(dataName)]
  .map(columnOf)
  .filter((p): p is Profile => p !== undefined)
  .map((profile) => ({ profile, page: `${slug(profile.queue)}.md` }));
writeFileSync(join(outDir, 'README.md'), matrix(columns));
console.log('docs/profiles/README.md written');
