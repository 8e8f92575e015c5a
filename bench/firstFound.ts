/**
 * At which run a random campaign first finds each bug of the broken catalogue: the measure the
 * suite's campaign sizes are chosen by (conformance/stores/sqlite.test.ts, postgres.test.ts,
 * conformance/broken/decisionBugs.test.ts). Each variant runs campaigns of the seeds asked for on
 * the memory store, or with `--store sqlite` each decision bug on the SQLite store: the runs are
 * generated from the seed alone, so a bug is mostly found at the same run on both (not always: a
 * store may reach the bug's decision in another order). The first failing run is the first number
 * of the campaign's path (its index in the campaign).
 *
 * Run: npx tsx bench/firstFound.ts [--seeds 1-20] [--runs 2000] [--store memory|sqlite]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { JobStore, withDecisions } from '../impl/index.ts';
import { SqliteStore } from '../impl/sqlite/index.ts';
import type { AdapterFactory } from '../conformance/adapter.ts';
import { CATALOGUE } from '../conformance/broken/index.ts';
import { runCampaign } from '../conformance/random/campaign.ts';
import { jobStoreFactory } from '../conformance/stores/jobStore.ts';
import { sqliteFactory } from '../conformance/stores/sqlite.ts';

const flag = (name: string, fallback: string): string => {
  const i = process.argv.indexOf(`--${name}`);
  return i < 0 ? fallback : (process.argv[i + 1] ?? fallback);
};
const [low, high] = flag('seeds', '1-20').split('-').map(Number) as [number, number];
const seeds = Array.from({ length: (high ?? low) - low + 1 }, (_, i) => low + i);
const runs = Number(flag('runs', '2000'));
const store = flag('store', 'memory');
const dir = mkdtempSync(join(tmpdir(), 'jobcheck-first-found-'));

/** The variant's factory on the store asked for; undefined when the store cannot run it (not a decision bug). */
function factoryOf(v: (typeof CATALOGUE)[number]): AdapterFactory | undefined {
  if (store === 'memory')
    return v.decisions === undefined ? v.factory : jobStoreFactory(withDecisions(JobStore, v.decisions), v.name);
  if (v.decisions === undefined) return undefined;
  return sqliteFactory({ Store: withDecisions(SqliteStore, v.decisions), dir, name: v.name });
}

const quantile = (xs: readonly number[], q: number): number => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] ?? Number.NaN;
};

console.log(
  `store ${store}, seeds ${low}-${high ?? low}, campaigns of up to ${runs} runs: the run that first diverged (1-based)`,
);
console.log(`| variant | seed 1 | seed 2 | seed 3 | median | 90th percentile | most | not found |`);
console.log(`| --- | --- | --- | --- | --- | --- | --- | --- |`);
for (const v of CATALOGUE) {
  const factory = factoryOf(v);
  if (factory === undefined) continue;
  const found: (number | undefined)[] = [];
  for (const seed of seeds) {
    const r = await runCampaign({ factory, runs, seed });
    found.push(r.path === null ? undefined : Number(r.path.split(':')[0]) + 1);
  }
  const hits = found.filter((n): n is number => n !== undefined);
  const at = (seed: number): string => {
    const i = seeds.indexOf(seed);
    return i < 0 ? '-' : String(found[i] ?? 'none');
  };
  const stat = (f: () => number): string => (hits.length === 0 ? '-' : String(f()));
  console.log(
    `| ${v.name} | ${at(1)} | ${at(2)} | ${at(3)} | ${stat(() => quantile(hits, 0.5))} | ${stat(() => quantile(hits, 0.9))} | ${stat(() => Math.max(...hits))} | ${found.length - hits.length} |`,
  );
}
rmSync(dir, { recursive: true, force: true });
