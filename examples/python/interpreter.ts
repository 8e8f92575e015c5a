/**
 * Finding Python for the examples' tests and the catalogue script. `python3` on PATH may be a
 * version-manager shim that costs a tenth of a second per start; the harness starts processes for
 * stores and cold restarts (and for every restart under --fresh), so tests resolve the real interpreter once and run it with `-S` (the examples use
 * only the standard library). The programs run are the same as with `python3 <script>`.
 */
import { spawnSync } from 'node:child_process';

/** The interpreter behind `python3` (its sys.executable), or undefined when python3 is not installed. */
export function findPython(): string | undefined {
  const r = spawnSync('python3', ['-c', 'import sys; print(sys.executable)'], { encoding: 'utf8' });
  const exe = r.status === 0 ? r.stdout.trim() : '';
  return exe === '' ? undefined : exe;
}

/** A shell command running `script` (relative to the project root) with the interpreter `python`. */
export function pythonCommand(python: string, script: string): string {
  const quote = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;
  return `${quote(python)} -S ${quote(script)}`;
}

/** The broken variants of the Python example, each one small change with a comment naming the bug. */
export const PYTHON_BROKEN = [
  { name: 'lease_one_tick_late', description: 'A lease is still valid at now == leaseUntil (expires one tick late).' },
  {
    name: 'commit_not_idempotent',
    description: 'The ledger is never consulted: a second commit adds the amount again.',
  },
  { name: 'restart_resets_tokens', description: 'Restoring a snapshot starts the token counter at 1 again.' },
  {
    name: 'restore_half_applied',
    description: 'A refused restore empties the store first: the refusal is right, but the state is gone.',
  },
] as const;

/**
 * The racy variants of the Python example: each keeps the contract one request at a time and
 * breaks it when requests of jobcheck/2 overlap, because it lets go of the store's lock between a
 * check and the write that depends on it (or, for `lane-order`, replies before the write is
 * visible). `race` names the race as docs/broken-catalogue.md does; `script` is the program, from
 * the project root.
 */
export const PYTHON_RACY = [
  {
    race: 'stale-ack',
    script: 'examples/python/broken/race_stale_ack.py',
    description:
      'An ack checks its token under the lock, lets go, then settles: an ack of the old holder lands after a reclaim.',
  },
  {
    race: 'double-effect',
    script: 'examples/python/broken/race_double_effect.py',
    description: 'A commit looks in the effect ledger, lets go, then applies: two deliveries of one job both apply.',
  },
  {
    race: 'double-delivery',
    script: 'examples/python/broken/concurrent_double_claim.py',
    description: 'A claim reads the head of the queue, lets go, then takes it: two claims get one job.',
  },
  {
    race: 'capacity',
    script: 'examples/python/broken/race_capacity.py',
    description: 'A submit checks the capacity, lets go, then inserts: submits in flight together exceed it.',
  },
  {
    race: 'lane-order',
    script: 'examples/python/broken/race_lane_order.py',
    description: "A submit replies before its job joins the queue: the same lane's next claim may not see it.",
  },
] as const;
