import { beforeAll, describe, expect, it } from 'vitest';
import { findPython } from '../../examples/python/interpreter.ts';
import { HOSTILE_CASES, MEMORY_BOUND_KIB, WALL_BOUND_MS, runHostileCase } from './cases.ts';
import type { HostileRun } from './cases.ts';
import { SUITE_CASE_NAMES } from './causes.ts';

/**
 * One hostile case of each cause (causes.ts), through the real command: each must end in bounded
 * time with its typed outcome and exit code, the harness staying below a memory bound and leaving
 * no process alive. The bounds are generous on purpose (CI machines are shared); they catch a
 * hang, a flood read into memory or an orphan, not a slowdown. `npm run hostile` runs every case.
 */
const python = findPython();
/** Bound on what the harness prints, whatever the peer wrote (a 20 MB reply, a 1 MB name). */
const OUTPUT_BOUND = 64 * 1024;

const runs = new Map<string, HostileRun>();
/** `JOBCHECK_HOSTILE_ONLY=<regex>` runs the cases of the whole table whose name matches instead (to work on a few). */
const only = process.env['JOBCHECK_HOSTILE_ONLY'];
const CASES = HOSTILE_CASES.filter((c) =>
  only === undefined ? SUITE_CASE_NAMES.has(c.name) : new RegExp(only).test(c.name),
);

describe.skipIf(python === undefined)('the harness against a hostile implementation', () => {
  beforeAll(async () => {
    // Two at a time: the machines running this have two cores.
    const queue = [...CASES];
    const worker = async (): Promise<void> => {
      for (let c = queue.shift(); c !== undefined; c = queue.shift())
        runs.set(c.name, await runHostileCase(c, python as string));
    };
    await Promise.all([worker(), worker()]);
  }, 600_000);

  it.each(CASES.map((c) => [c.name, c] as const))(
    '%s: ends with the expected outcome, in bounded time and memory, leaving nothing running',
    (name, c) => {
      const r = runs.get(name) as HostileRun;
      const shown = `${r.stdout}\n${r.stderr}\n${r.inspected}`;
      expect({
        exit: r.exit,
        signal: r.signal,
        outcome: c.pattern.test(shown) ? c.outcome : shown.slice(0, 2000),
      }).toEqual({ exit: c.exit, signal: c.signal ?? null, outcome: c.outcome });
      expect(r.left).toBe(0);
      // What the run wrote, read back where the case says how (text from outside in its place).
      expect(r.problems).toEqual([]);
      expect(r.wallMs).toBeLessThan(c.withinMs ?? WALL_BOUND_MS);
      expect(r.peakKiB).toBeGreaterThan(0);
      expect(r.peakKiB).toBeLessThan(c.peakBoundMiB === undefined ? MEMORY_BOUND_KIB : c.peakBoundMiB * 1024);
      expect(r.stdout.length + r.stderr.length).toBeLessThan(OUTPUT_BOUND);
      // Whatever the peer did, the harness never crashed: no internal error, no stack trace.
      expect(shown).not.toMatch(/internal error|at .+\.[cm]?[jt]s:\d+/);
    },
  );

  it.each(['two-lines', 'flood-lines'].filter((n) => CASES.some((c) => c.name === n)))(
    '%s: tells the unasked lines at the step where they came, never as a start-up failure of 0 steps',
    (name) => {
      const r = runs.get(name) as HostileRun;
      expect(r.stdout).toMatch(/disagrees with the model at step [1-9]\d* of/);
      expect(r.stdout).not.toMatch(/could not be started/);
    },
  );
});
