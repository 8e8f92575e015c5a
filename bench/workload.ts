/**
 * The benchmark's mixed workload: a deterministic, closed-loop driver that plays producers and
 * workers against a JobStore and records the commands it sends, so that the very same stream can
 * be replayed through the store, the reference model and the floor.
 *
 * One cycle, one tick of the clock: submit one job (while the backlog is below its target), claim
 * one, and settle the delivery: mostly commit + ack, a share of transient failures (the job waits
 * out its backoff and is claimed again), a share abandoned (the lease is left to expire). A small
 * share of jobs get a short deadline and die by it.
 */
import type { Command, Config } from '../contract/index.ts';
import { JobStore } from '../impl/index.ts';

/** Shape of a workload at one resident size. */
export interface WorkloadShape {
  /** Resident jobs (all statuses) to build up before measuring. */
  readonly resident: number;
  /** Unresolved jobs the producers keep queued. */
  readonly backlog: number;
  readonly accounts: number;
  readonly workers: number;
}

/** Shares of the ways a delivery ends (the rest is commit + ack). */
export const MIX = { transientFail: 0.1, abandon: 0.05, shortDeadline: 0.02 } as const;

/** The shape used at a resident size: a backlog of a tenth, a few hundred to 100k accounts. */
export function shapeFor(resident: number): WorkloadShape {
  return {
    resident,
    backlog: Math.max(100, Math.floor(resident / 10)),
    accounts: Math.min(100_000, Math.max(300, Math.floor(resident / 10))),
    workers: 64,
  };
}

/** Store config of the workload: room for the backlog, short leases, capped backoff. */
export function configFor(shape: WorkloadShape): Config {
  return { capacity: shape.backlog * 2, maxAttempts: 3, leaseTicks: 20, backoffBase: 2, backoffCap: 32 };
}

/** A small, fast, seeded PRNG (mulberry32). */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The closed-loop driver. It only reads replies, so it works against any store that answers like JobStore. */
export class Driver {
  protected readonly random: () => number;
  protected now = 0;
  protected made = 0;
  protected unresolved = 0;

  constructor(
    protected readonly store: JobStore,
    protected readonly shape: WorkloadShape,
    seed: number,
    /** Where to record the commands sent (none when undefined). */
    protected readonly record?: Command[],
  ) {
    this.random = rng(seed);
    this.now = store.clock;
    this.made = store.size;
    const counts = store.counts();
    this.unresolved = counts.ready + counts.waiting + counts.running;
  }

  protected send(command: Command): ReturnType<JobStore['executeTrusted']> {
    this.record?.push(command);
    return this.store.executeTrusted(command);
  }

  protected submit(): void {
    const n = this.made++;
    const account = `acct${Math.floor(this.random() * this.shape.accounts)}`;
    const short = this.random() < MIX.shortDeadline;
    const reply = this.send({
      type: 'submit',
      id: `job${n}`,
      account,
      key: `op${n}`,
      amount: 1 + (n % 100),
      deadline: this.now + (short ? 5 : 1_000_000),
      now: this.now,
    });
    if (reply.ok) this.unresolved++;
  }

  /** Submits until the backlog target is reached (no clock movement). */
  fill(): void {
    while (this.unresolved < this.shape.backlog) this.submit();
  }

  /** One cycle of the workload. */
  cycle(): void {
    this.now += 1;
    if (this.unresolved < this.shape.backlog) this.submit();
    const worker = `w${Math.floor(this.random() * this.shape.workers)}`;
    const claimed = this.send({ type: 'claim', worker, now: this.now });
    if (!claimed.ok || claimed.type !== 'claim' || claimed.job === null) return;
    const { token } = claimed.job;
    const r = this.random();
    if (r < MIX.transientFail) {
      const failed = this.send({ type: 'fail', worker, token, kind: 'transient', error: 'flaky', now: this.now });
      if (failed.ok && failed.type === 'fail' && failed.status === 'dead') this.unresolved--;
    } else if (r < MIX.transientFail + MIX.abandon) {
      // Left to expire: the lease ends by itself later.
    } else {
      this.send({ type: 'commit', worker, token, now: this.now });
      const acked = this.send({ type: 'ack', worker, token, now: this.now });
      if (acked.ok) this.unresolved--;
    }
  }

  /** Runs cycles until `until()` holds, then re-counts unresolved jobs from the store (deaths by time). */
  runUntil(until: () => boolean): void {
    let i = 0;
    while (!until()) {
      this.cycle();
      if (++i % 1024 === 0) this.resync();
    }
    this.resync();
  }

  /** Re-reads the number of unresolved jobs (jobs that died by deadline or lease are noticed here). */
  resync(): void {
    const c = this.store.counts();
    this.unresolved = c.ready + c.waiting + c.running;
  }
}

/** Builds a store holding `shape.resident` jobs by running the workload. */
export function buildStore(shape: WorkloadShape, seed = 1): JobStore {
  const store = JobStore.create(configFor(shape));
  const driver = new Driver(store, shape, seed);
  driver.fill();
  driver.runUntil(() => store.size >= shape.resident);
  return store;
}

/** Continues the workload on `store` and returns the `count` commands it sent (the store moves on). */
export function recordStream(store: JobStore, shape: WorkloadShape, count: number, seed = 2): Command[] {
  const commands: Command[] = [];
  const driver = new Driver(store, shape, seed, commands);
  driver.runUntil(() => commands.length >= count);
  commands.length = count;
  return commands;
}
