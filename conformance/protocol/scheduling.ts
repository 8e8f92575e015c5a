/**
 * How an implementation's process is scheduled. The harness and its processes take turns: each
 * request wakes a process that the harness then waits on. Under Linux's normal policy a woken
 * process preempts the harness at once, on a machine of few cores, in the middle of its turn, so
 * that every request costs a context switch (about twenty thousand involuntary switches of the
 * harness in the Python example's default check on two cores). Under SCHED_BATCH the woken process
 * waits for the next tick or for the harness to wait, and gets the same share of the processor:
 * the policy changes when a process runs, never how much. So on Linux the harness starts each
 * process under SCHED_BATCH, through util-linux's `chrt`, when `chrt` is there and accepts it
 * (probed once, a start of `chrt -b 0 true`); elsewhere, or with `--normal-scheduling`, the
 * process runs as the shell starts it. The replies, and so the verdicts, do not depend on it
 * (docs/protocol-bench.md has the figures).
 */
import { spawnSync } from 'node:child_process';

/** The scheduling asked for: SCHED_BATCH where available (the default), or the system's normal policy. */
export type Scheduling = 'batch' | 'normal';

let batchWorks: boolean | undefined;

/** Whether `chrt -b 0` starts a program here (Linux with util-linux); probed once. */
export function batchSchedulingAvailable(): boolean {
  if (batchWorks === undefined) {
    batchWorks =
      process.platform === 'linux' &&
      spawnSync('chrt', ['-b', '0', 'true'], { stdio: 'ignore', timeout: 5000 }).status === 0;
  }
  return batchWorks;
}

/**
 * The program and arguments that start `command` through the shell under `scheduling`: `chrt -b 0
 * /bin/sh -c <command>` (chrt replaces itself with the shell, so the process started is still the
 * leader of its group) when batch scheduling is asked for and available, otherwise undefined (start
 * it through the shell as usual).
 */
export function scheduledSpawn(
  command: string,
  scheduling: Scheduling,
): { readonly file: string; readonly args: readonly string[] } | undefined {
  if (scheduling !== 'batch' || !batchSchedulingAvailable()) return undefined;
  return { file: 'chrt', args: ['-b', '0', '/bin/sh', '-c', command] };
}
