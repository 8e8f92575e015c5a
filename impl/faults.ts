/**
 * Named fault points, in the manner of etcd's gofail and fail-rs: a store (or a worker) calls
 * `faultPoint(name)` at the places where a crash is worth testing, and the environment variable
 * JOBCHECK_FAULT switches one of them on for one process. When the chosen point is reached the
 * process kills itself with SIGKILL: no `finally`, no exit handler, no flush runs, exactly as when
 * the machine's operator pulls the plug on the process (the disk itself keeps what was written).
 *
 *   JOBCHECK_FAULT=<point>        kill at the first time <point> is reached
 *   JOBCHECK_FAULT=<point>@<n>    kill at the n-th time (n >= 1)
 *
 * The variable is read once, when this module loads; an unset variable costs one comparison per
 * call. A malformed value is refused at load, so that a typo cannot make a crash test pass
 * without crashing.
 *
 * The points the stores in impl/ use (a later store on another database uses the same names):
 */
export const FAULT_POINTS = {
  /** The write transaction has begun (BEGIN IMMEDIATE) and nothing is written yet. */
  afterBegin: 'after-begin',
  /** The command's first write is done; the transaction has not committed. */
  afterFirstWrite: 'after-first-write',
  /** The transaction has committed; the reply has not been handed back. */
  afterCommit: 'after-commit',
  /** In a worker: its commit of the effect was answered, and it has not sent the ack. */
  workerBeforeAck: 'worker-before-ack',
} as const;

/** One of the named fault points. */
export type FaultPointName = (typeof FAULT_POINTS)[keyof typeof FAULT_POINTS];

/** The environment variable that switches a fault point on. */
export const FAULT_ENV = 'JOBCHECK_FAULT';

interface Armed {
  readonly point: string;
  readonly at: number;
}

/** Parses a JOBCHECK_FAULT value; undefined for none. Throws for a malformed one. Pure. */
export function parseFault(value: string | undefined): Armed | undefined {
  if (value === undefined || value === '') return undefined;
  const match = /^([a-z][a-z-]*)(?:@([1-9]\d*))?$/.exec(value);
  const known = Object.values(FAULT_POINTS) as string[];
  if (match === null || !known.includes(match[1] as string)) {
    throw new Error(
      `${FAULT_ENV}=${JSON.stringify(value)}: expected <point>[@<n>] with a point among ${known.join(', ')}`,
    );
  }
  return { point: match[1] as string, at: match[2] === undefined ? 1 : Number(match[2]) };
}

const armed = parseFault(process.env[FAULT_ENV]);
let hits = 0;

/** Whether JOBCHECK_FAULT chose `name` in this process (a store may then shape its messages so that the point is passed). */
export function faultArmed(name: FaultPointName): boolean {
  return armed?.point === name;
}

/** Marks a fault point: kills this process with SIGKILL when JOBCHECK_FAULT chose this point and this hit. */
export function faultPoint(name: FaultPointName): void {
  if (armed === undefined || armed.point !== name) return;
  hits += 1;
  if (hits === armed.at) {
    process.kill(process.pid, 'SIGKILL');
    // SIGKILL cannot be caught; should the signal be delivered late, nothing more may happen here.
    for (;;) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1000);
  }
}
