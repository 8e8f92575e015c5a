/**
 * One exploration in a process of its own, for bench/explore.ts: `tsx bench/exploreChild.ts
 * <root> <options JSON>` imports the explorer of the checkout at <root> (this one, or an earlier
 * revision checked out beside it, so that the explorer as it was runs against its own model) and
 * prints one JSON line: distinct states, CPU and wall time, bytes per state, and a digest of what
 * the exploration found (counts per level, transitions, boundaries, coverage), by which the bench
 * checks that two explorers found the same thing (the bench starts it with `--cpu-prof` to profile).
 */
import { createHash } from 'node:crypto';
import { pathToFileURL } from 'node:url';

const [root, json] = process.argv.slice(2);
if (root === undefined || json === undefined) throw new Error('usage: exploreChild.ts <root> <options JSON>');
const { scope, config, threads } = JSON.parse(json) as { scope: unknown; config: string; threads: number };
const url = pathToFileURL(`${root}/conformance/explore/index.ts`).href;
const engine = (await import(url)) as {
  explore: (o: unknown) => Promise<{
    configs: ReadonlyArray<{
      verdict: string;
      states: number;
      transitions: number;
      levels: readonly number[];
      cpuMs: number;
      durationMs: number;
      bytesPerState: number;
      boundaries: unknown;
      coverage: { items: unknown };
    }>;
  }>;
  exploreConfig: (name: string) => unknown;
};
const named = engine.exploreConfig(config);
if (named === undefined) throw new Error(`no config ${config}`);
const result = await engine.explore({ scope, configs: [named], threads });
const c = result.configs[0];
if (c === undefined) throw new Error('no result');
const digest = createHash('sha256')
  .update(JSON.stringify([c.states, c.transitions, c.levels, c.boundaries, c.coverage.items]))
  .digest('hex')
  .slice(0, 16);
process.stdout.write(
  `${JSON.stringify({ verdict: c.verdict, states: c.states, cpuMs: c.cpuMs, wallMs: c.durationMs, bytesPerState: c.bytesPerState, digest })}\n`,
);
