/**
 * Small measuring helpers for the benchmark: a clean heap, medians, the machine description, and
 * a JobStore variant that can be loaded from an already validated snapshot (to set up timed runs
 * quickly; it is never what is timed as "restore").
 */
import { spawnSync } from 'node:child_process';
import os from 'node:os';
import type { Snapshot } from '../contract/index.ts';
import { JobStore } from '../impl/index.ts';

/** Runs a full garbage collection when Node was started with --expose-gc; otherwise does nothing. */
export function collect(): void {
  (globalThis as { gc?: () => void }).gc?.();
}

/** Runs a young-generation collection (a scavenge) when Node was started with --expose-gc. */
export function collectYoung(): void {
  (globalThis as { gc?: (options: { type: 'minor' }) => void }).gc?.({ type: 'minor' });
}

/** True when a full collection can be forced (needed for heap bytes per job). */
export const canCollect = (): boolean => typeof (globalThis as { gc?: unknown }).gc === 'function';

/** Bytes of the V8 heap in use right now (after a forced collection when possible). */
export function heapUsed(): number {
  collect();
  return process.memoryUsage().heapUsed;
}

/** The short commit of the checkout at `dir` (read-only), for a report; 'unknown' outside git. */
export function commitOf(dir: string): string {
  const r = spawnSync('git', ['-C', dir, 'rev-parse', '--short', 'HEAD'], { encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() : 'unknown';
}

/** The median of a non-empty list of numbers. Pure. */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

/**
 * Milliseconds of CPU time (user + system, all threads of this process, so garbage collection
 * included) taken by `f`. CPU time rather than wall time, because other work on a small shared
 * machine stretches wall time by whatever share of the cores it takes.
 */
export function timed(f: () => void): number {
  const start = process.cpuUsage();
  f();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
}

/** A one-line description of this machine and runtime. */
export function machine(): { cpu: string; cores: number; memoryGiB: number; node: string; os: string } {
  const cpus = os.cpus();
  return {
    cpu: cpus[0]?.model.trim() ?? 'unknown',
    cores: cpus.length,
    memoryGiB: Math.round((os.totalmem() / 2 ** 30) * 10) / 10,
    node: process.version,
    os: `${os.platform()} ${os.release()} ${os.arch()}`,
  };
}

/** The 1-minute load average (other work on the machine skews timings; the report records it). */
export const loadAverage = (): number => Math.round((os.loadavg()[0] ?? 0) * 100) / 100;

/**
 * A JobStore that can be loaded from a snapshot that is already known to be valid, skipping the
 * schema check. Only for setting up timed runs; `JobStore.restore` is what a user calls and what
 * the snapshot/restore measurement times.
 */
export class PreloadedStore extends JobStore {
  /** A store from a trusted, already validated snapshot. */
  static fromValidated(snapshot: Snapshot): PreloadedStore {
    const store = new PreloadedStore(snapshot.config);
    store.load(snapshot);
    return store;
  }
}
