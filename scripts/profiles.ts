/**
 * Generator of docs/profiles/ (`npm run profiles`): profiles the built-in JobStore (the reference
 * column) and every real-queue adapter that exports a ProfileTarget, writes one page per queue
 * (`docs/profiles/<queue>.md`) and the matrix queues × rules (`docs/profiles/README.md`).
 *
 * The adapters are imported lazily, one by one: a file that is absent is said so and skipped, and
 * one that cannot set up (no server to reach) is reported and skipped, so the generator runs with
 * whatever is installed. Seeds and run counts are fixed and the pages hold no times, so the same
 * implementations give the same pages.
 *
 * An adapter module exports its target as `profileTarget` (or `default`: a ProfileTarget, or a
 * function returning one or a promise of one), or else as any exported ProfileTarget value.
 *
 * Run: npm run profiles   (`--runs N` runs per rule, `--only <queue>` one queue besides the reference,
 * `--time-limit S` seconds per queue: rules cut short say `budget exhausted`)
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { join } from 'node:path';
import { RULE_IDS } from '../contract/rules.ts';
import { jobStoreFactory } from '../conformance/stores/jobStore.ts';
import { Budget } from '../conformance/budget.ts';
import { describeResult, renderProfileMarkdown, runProfile } from '../conformance/profile/index.ts';
import type { Profile, ProfileTarget, RuleResult } from '../conformance/profile/index.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const outDir = join(root, 'docs', 'profiles');
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
/** Seconds per queue (none by default: a budget makes the pages depend on the machine's speed). */
const timeLimit = arg('time-limit') === undefined ? undefined : Number(arg('time-limit'));

/** Adapter modules that may export a ProfileTarget, relative to the repository. */
const PROFILE_ADAPTERS = ['adapters/pg-boss/profile.ts', 'adapters/bullmq-postgres/profile.ts'] as const;

const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string };
const reference: ProfileTarget = {
  queue: 'jobcheck JobStore',
  version: pkg.version,
  factory: jobStoreFactory(),
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

function matrix(profiles: readonly { profile: Profile; page: string; target: ProfileTarget }[]): string {
  const lines = ['# Profiles: real queues against the contract', ''];
  lines.push(
    'Each queue checked rule by rule by `jobcheck profile` (docs/cli.md): for every rule of the [contract](../contract.md), the fixture stories and a targeted random campaign that exercise it, in lockstep with the model, with the rules a queue declares unsupported left out and its declared variants of the model (model/variants.ts) in their place. The built-in JobStore is the reference column. Generated by `npm run profiles` with seed 1; every departure links to its shrunk story and the command that replays it. [Chapter 9](../09-reading-a-profile.md) reads these pages with a workload in mind.',
    '',
  );
  lines.push('| queue | version | verdict | page |', '| --- | --- | --- | --- |');
  for (const { profile, page } of profiles)
    lines.push(`| ${profile.queue} | ${profile.version} | ${profile.verdict} | [${page}](${page}) |`);
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
  const links = profiles.flatMap(({ profile, target }) =>
    Object.entries(target.upstream ?? {}).map(([rule, url]) => `- ${profile.queue}, \`${rule}\`: ${url}`),
  );
  if (links.length > 0) lines.push('', '## Upstream reports', '', ...links);
  return `${lines.join('\n')}\n`;
}

/** Each target with the `jobcheck profile` flags that select it again, for the replay lines. */
const targets: { readonly target: ProfileTarget; readonly flags: string }[] = [
  { target: reference, flags: '--builtin' },
];
for (const file of PROFILE_ADAPTERS) {
  const t = await loadTarget(file);
  if (t !== undefined) targets.push({ target: t, flags: `--module ${file}` });
}
mkdirSync(outDir, { recursive: true });
const done: { profile: Profile; page: string; target: ProfileTarget }[] = [];
for (const { target, flags } of targets) {
  if (only !== undefined && target !== reference && target.queue !== only) continue;
  const page = `${slug(target.queue)}.md`;
  const budget = timeLimit === undefined ? undefined : new Budget(timeLimit * 1000);
  try {
    const profile = await runProfile(target, {
      runs: RUNS,
      seed: PROFILE_SEED,
      ...(budget === undefined ? {} : { budget }),
      // The seed is the command's default; a queue on PostgreSQL needs the server (npm run pg's, or PGHOST).
      replayCommand: (rule, campaign, path) =>
        campaign === undefined || path === undefined
          ? `npx jobcheck profile ${flags} --rule ${rule}  (found by the fixture stories, which every profile runs)`
          : `npx jobcheck profile ${flags} --rule ${campaign} --path ${path}`,
    });
    writeFileSync(join(outDir, page), renderProfileMarkdown(profile, { title: `${target.queue} ${target.version}` }));
    done.push({ profile, page, target });
    console.log(`${target.queue} ${target.version}: ${profile.verdict} -> docs/profiles/${page}`);
  } catch (error) {
    console.log(`${target.queue}: profile failed (${(error as Error).message.split('\n')[0]}), skipped`);
  } finally {
    budget?.dispose();
    await target.close?.();
  }
}
writeFileSync(join(outDir, 'README.md'), matrix(done));
console.log('docs/profiles/README.md written');
