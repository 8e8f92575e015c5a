/**
 * The benchmark's workload: a seeded, closed-loop driver that plays producers, workers and
 * monitors against a JobStore under contention, and records the commands it sends (with a hint of
 * what each got back), so that the very same stream can be replayed through the store, the
 * reference model and the floor.
 *
 * One cycle is one tick of the clock (sometimes a gap of a few ticks). Producers submit at a steady
 * rate, a share of it to a few hot accounts whose jobs queue behind a running or backing-off head,
 * with duplicates, conflicts, reused operation keys and "whale" amounts (`out_of_range`) among
 * them; workers hold up to four deliveries each and settle them after 1 to 5 ticks in shuffled
 * order, every way the contract allows and several it refuses (`stale_token`, `not_owner`, an
 * abandoned lease); monitors tick, and some commands come with a stale `now` (`clock_regressed`),
 * a token never issued or a malformed shape (`invalid_argument`). Deadlines are spread so that a
 * real share of jobs dies by deadline and some retries find no time (`no_time_for_retry`).
 * docs/benchmarks.md ("Workload") gives the rates and the replies they draw.
 *
 * Every rate is proportional to the capacity, so the mix of commands and replies is the same at
 * every resident size (the scale-free shape of shapeFor).
 */
import type { Command, Config, Reply } from '../contract/index.ts';
import type { JobStore } from '../impl/index.ts';

/** Shape of a workload at one resident size. */
export interface WorkloadShape {
  /** Resident jobs (all statuses) to build up before measuring. */
  readonly resident: number;
  /** Most unresolved jobs (the store's capacity): a tenth of the resident jobs. */
  readonly capacity: number;
  readonly accounts: number;
  /** Accounts that receive a tenth of all submits. */
  readonly hot: number;
  readonly workers: number;
}

/**
 * The shape at a resident size: capacity a tenth of it, accounts a quarter of the capacity, hot
 * accounts a hundredth (so each receives about 1.4 submits per tick, far more than one account can
 * be served: one delivery at a time, 1 to 5 ticks each), workers a sixteenth.
 */
export function shapeFor(resident: number): WorkloadShape {
  const capacity = Math.max(100, Math.floor(resident / 10));
  return {
    resident,
    capacity,
    accounts: Math.max(25, capacity >> 2),
    hot: Math.max(1, Math.floor(capacity / 100)),
    workers: Math.max(6, Math.floor(capacity / 16)),
  };
}

/** Store config of the workload. */
export function configFor(shape: WorkloadShape): Config {
  return { capacity: shape.capacity, maxAttempts: 4, leaseTicks: 12, backoffBase: 2, backoffCap: 16 };
}

/** Rates of the workload (per cycle, as a share of the capacity, or per delivery). */
export const RATES = {
  /** Submits per cycle, as a share of the capacity. */
  submits: 0.04,
  hotShare: 0.35,
  duplicate: 0.03,
  conflictingSubmit: 0.01,
  reuseKey: 0.03,
  conflictingKey: 0.01,
  whale: 0.002,
  shortDeadline: 0.2,
  /** Tick commands, unknown tokens and malformed commands per cycle, as shares of the capacity. */
  ticks: 0.005,
  unknownToken: 0.002,
  malformed: 0.001,
  staleNow: 0.005,
  gap: 0.05,
  /** Chance that a worker with room polls for work in a cycle. */
  poll: 0.7,
  /** Deliveries a worker holds at most. */
  held: 4,
} as const;

/** How a delivery ends, with the share of deliveries that end that way. */
export const ENDINGS = {
  commitAck: 0.66,
  transient: 0.12,
  commitTransient: 0.04,
  permanent: 0.03,
  ackTwice: 0.02,
  otherWorker: 0.03,
  abandon: 0.05,
  late: 0.05,
} as const;
export type Ending = keyof typeof ENDINGS;

interface Delivery {
  readonly token: number;
  readonly due: number;
  readonly leaseUntil: number;
  readonly ending: Ending;
}

interface RecentJob {
  readonly id: string;
  readonly account: string;
  readonly key: string;
  readonly amount: number;
  readonly deadline: number;
}

interface Refused {
  readonly job: RecentJob;
  readonly tries: number;
}

/** The driver's whole state, plain data: cloned to continue one built store in several streams. */
export interface DriverState {
  rng: number;
  now: number;
  made: number;
  readonly held: Delivery[][];
  readonly recent: RecentJob[];
  refused: Refused[];
}

/** One recorded stream: the commands, whether each is well formed, and a hint of its reply. */
export interface Stream {
  readonly commands: unknown[];
  /** 1 when the command satisfies the command schema (it may be passed to executeTrusted). */
  readonly wellFormed: Uint8Array;
  /** Claim: the token delivered, 0 for `job: null`; submit: 1 when a new job was admitted; fail: 1 when the job waits for a retry; else 0. */
  readonly hints: Float64Array;
}

const RECENT = 256;
const WHALE_AMOUNT = 2 ** 52;

/** The closed-loop driver. It reads replies only, so it works against any store that answers like JobStore. */
export class Driver {
  protected out: { commands: unknown[]; wellFormed: number[]; hints: number[]; kinds: string[] } | undefined;
  /** Tally of replies by kind (see replyKind). */
  readonly replies = new Map<string, number>();

  constructor(
    protected readonly store: JobStore,
    protected readonly shape: WorkloadShape,
    readonly state: DriverState,
  ) {}

  /** A fresh driver state for an empty store. */
  static initial(shape: WorkloadShape, seed: number): DriverState {
    return {
      rng: seed >>> 0,
      now: 0,
      made: 0,
      held: Array.from({ length: shape.workers }, () => []),
      recent: [],
      refused: [],
    };
  }

  /**
   * Draws again, from this driver's seed, how each delivery in flight will end (and so when), so
   * that streams continuing one state with different seeds do not all settle those alike.
   */
  redraw(): void {
    const now = this.state.now;
    for (const held of this.state.held) {
      held.forEach((d, i) => {
        const ending = this.pickEnding();
        const due =
          ending === 'abandon'
            ? d.leaseUntil
            : ending === 'late'
              ? d.leaseUntil + this.int(0, 4)
              : d.due < d.leaseUntil
                ? d.due
                : now + this.int(1, 5);
        held[i] = { ...d, ending, due: Math.min(due, d.leaseUntil + 4) };
      });
    }
  }

  /** Starts recording the commands sent (and their hints). */
  record(): void {
    this.out = { commands: [], wellFormed: [], hints: [], kinds: [] };
  }

  /** The commands recorded so far, cut to `count`, and the tally of their replies. */
  recorded(count: number): { stream: Stream; replies: Map<string, number> } {
    const out = this.out as NonNullable<Driver['out']>;
    const replies = new Map<string, number>();
    for (const kind of out.kinds.slice(0, count)) replies.set(kind, (replies.get(kind) ?? 0) + 1);
    const stream = {
      commands: out.commands.slice(0, count),
      wellFormed: Uint8Array.from(out.wellFormed.slice(0, count)),
      hints: Float64Array.from(out.hints.slice(0, count)),
    };
    return { stream, replies };
  }

  get sent(): number {
    return this.out?.commands.length ?? 0;
  }

  /** A uniform number in [0, 1) (mulberry32 over the state's seed). */
  protected random(): number {
    this.state.rng = (this.state.rng + 0x6d2b79f5) >>> 0;
    const a = this.state.rng;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  protected int(lo: number, hi: number): number {
    return lo + Math.floor(this.random() * (hi - lo + 1));
  }

  /** `mean` rounded to an integer at random, so that it averages `mean`. */
  protected count(mean: number): number {
    const whole = Math.floor(mean);
    return whole + (this.random() < mean - whole ? 1 : 0);
  }

  protected send(command: Command): Reply {
    const reply = this.store.executeTrusted(command);
    const kind = replyKind(command, reply);
    this.replies.set(kind, (this.replies.get(kind) ?? 0) + 1);
    if (this.out !== undefined) {
      this.out.commands.push(command);
      this.out.wellFormed.push(1);
      this.out.hints.push(hintOf(reply));
      this.out.kinds.push(kind);
    }
    return reply;
  }

  protected sendMalformed(command: unknown): void {
    const reply = this.store.execute(command);
    const kind = reply.ok ? 'malformed accepted' : `${(command as { type: string }).type}: ${reply.code}`;
    this.replies.set(kind, (this.replies.get(kind) ?? 0) + 1);
    if (this.out !== undefined) {
      this.out.commands.push(command);
      this.out.wellFormed.push(0);
      this.out.hints.push(0);
      this.out.kinds.push(kind);
    }
  }

  /** Sends a settlement, sometimes first with a stale `now` (a delayed message: `clock_regressed`). */
  protected settle(command: Command): Reply {
    if (this.random() < RATES.staleNow && command.now >= 2) this.send({ ...command, now: command.now - 2 });
    return this.send(command);
  }

  protected newJob(): RecentJob {
    const s = this.state;
    const n = s.made++;
    const r = this.random();
    const recent = s.recent.length > 0 ? (s.recent[this.int(0, s.recent.length - 1)] as RecentJob) : undefined;
    const deadline = s.now + (this.random() < RATES.shortDeadline ? this.int(3, 40) : this.int(41, 150));
    if (recent !== undefined && r < RATES.reuseKey) return { ...recent, id: `j${n}`, deadline };
    if (recent !== undefined && r < RATES.reuseKey + RATES.conflictingKey)
      return { ...recent, id: `j${n}`, amount: recent.amount + 1, deadline };
    if (r < RATES.reuseKey + RATES.conflictingKey + RATES.whale)
      return {
        id: `j${n}`,
        account: `whale${this.int(0, this.shape.hot - 1)}`,
        key: `k${n}`,
        amount: WHALE_AMOUNT,
        deadline,
      };
    const hot = this.random() < RATES.hotShare;
    const account = hot ? `hot${this.int(0, this.shape.hot - 1)}` : `a${this.int(0, this.shape.accounts - 1)}`;
    return { id: `j${n}`, account, key: `k${n}`, amount: (n % 7 === 0 ? -1 : 1) * (1 + (n % 100)), deadline };
  }

  protected submit(job: RecentJob, tries: number): void {
    const reply = this.send({ type: 'submit', ...job, now: this.state.now });
    if (reply.ok) {
      const recent = this.state.recent;
      if (recent.length < RECENT) recent.push(job);
      else recent[this.int(0, RECENT - 1)] = job;
    } else if (reply.code === 'capacity_exceeded' && tries < 1) {
      this.state.refused.push({ job, tries: tries + 1 });
    }
  }

  protected produce(): void {
    const s = this.state;
    const refused = s.refused;
    s.refused = [];
    for (const { job, tries } of refused) if (job.deadline > s.now) this.submit(job, tries);
    const submits = this.count(RATES.submits * this.shape.capacity);
    for (let i = 0; i < submits; i++) {
      const r = this.random();
      const recent = s.recent.length > 0 ? (s.recent[this.int(0, s.recent.length - 1)] as RecentJob) : undefined;
      if (recent !== undefined && recent.deadline > s.now && r < RATES.duplicate) this.submit(recent, 1);
      else if (recent !== undefined && recent.deadline > s.now && r < RATES.duplicate + RATES.conflictingSubmit)
        this.submit({ ...recent, amount: recent.amount + 1 }, 1);
      else this.submit(this.newJob(), 0);
    }
  }

  protected pickEnding(): Ending {
    let r = this.random();
    for (const [ending, share] of Object.entries(ENDINGS) as [Ending, number][]) {
      if (r < share) return ending;
      r -= share;
    }
    return 'commitAck';
  }

  /** Claims while the worker has room, until a claim finds nothing due. */
  protected claimFor(w: number): void {
    const held = this.state.held[w] as Delivery[];
    const now = this.state.now;
    while (held.length < RATES.held) {
      const reply = this.send({ type: 'claim', worker: `w${w}`, now });
      if (!reply.ok || reply.type !== 'claim' || reply.job === null) return;
      const ending = this.pickEnding();
      const leaseUntil = reply.job.leaseUntil;
      const due =
        ending === 'abandon' ? leaseUntil : ending === 'late' ? leaseUntil + this.int(0, 4) : now + this.int(1, 5);
      held.push({ token: reply.job.token, due, leaseUntil, ending });
    }
  }

  /** Settles one delivery as its ending says. */
  protected finish(w: number, d: Delivery): void {
    const worker = `w${w}`;
    const { token } = d;
    const now = this.state.now;
    const base = { worker, token, now };
    const failPermanently = (): unknown => this.send({ type: 'fail', ...base, kind: 'permanent', error: 'refused' });
    const commitThen = (then: () => unknown): void => {
      const committed = this.settle({ type: 'commit', ...base });
      if (!committed.ok && (committed.code === 'conflict' || committed.code === 'out_of_range')) failPermanently();
      else then();
    };
    const ack = (): unknown => this.settle({ type: 'ack', ...base });
    const transient = (): unknown => this.settle({ type: 'fail', ...base, kind: 'transient', error: 'flaky' });
    switch (d.ending) {
      case 'commitAck':
      case 'late':
        commitThen(ack);
        break;
      case 'transient':
        transient();
        break;
      case 'commitTransient':
        commitThen(transient);
        break;
      case 'permanent':
        failPermanently();
        break;
      case 'ackTwice':
        ack();
        ack();
        break;
      case 'otherWorker':
        this.send({ type: 'commit', worker: `w${(w + 1) % this.shape.workers}`, token, now });
        commitThen(ack);
        break;
      case 'abandon':
        break;
    }
  }

  /** One cycle of the workload. */
  cycle(): void {
    const s = this.state;
    const shape = this.shape;
    s.now += this.random() < RATES.gap ? this.int(2, 6) : 1;
    const now = s.now;
    for (let i = this.count(RATES.ticks * shape.capacity); i > 0; i--) this.send({ type: 'tick', now });
    this.produce();
    // Every delivery whose time has come, across all workers, settled in shuffled order.
    const due: [number, Delivery][] = [];
    s.held.forEach((held, w) => {
      for (let i = held.length - 1; i >= 0; i--) {
        const d = held[i] as Delivery;
        if (d.due <= now) {
          due.push([w, d]);
          held.splice(i, 1);
        }
      }
    });
    for (let i = due.length - 1; i > 0; i--) {
      const j = this.int(0, i);
      [due[i], due[j]] = [due[j] as [number, Delivery], due[i] as [number, Delivery]];
    }
    for (const [w, d] of due) this.finish(w, d);
    for (let i = this.count(RATES.unknownToken * shape.capacity); i > 0; i--) {
      this.send({ type: 'ack', worker: `w${this.int(0, shape.workers - 1)}`, token: 1e12 + this.int(0, 1e6), now });
    }
    for (let i = this.count(RATES.malformed * shape.capacity); i > 0; i--) {
      this.sendMalformed(
        this.random() < 0.5
          ? { type: 'claim', worker: '', now }
          : { type: 'submit', id: 'bad', account: 'a0', key: 'bad', amount: 1, deadline: now, now },
      );
    }
    // Workers claim in a rotating order.
    const start = this.int(0, shape.workers - 1);
    for (let k = 0; k < shape.workers; k++) if (this.random() < RATES.poll) this.claimFor((start + k) % shape.workers);
  }
}

/** The hint recorded for a reply (see Stream). Pure. */
export function hintOf(reply: Reply): number {
  if (!reply.ok) return 0;
  if (reply.type === 'claim') return reply.job === null ? 0 : reply.job.token;
  if (reply.type === 'submit') return reply.duplicate ? 0 : 1;
  if (reply.type === 'fail') return reply.status === 'waiting' ? 1 : 0;
  return 0;
}

/** A short name for the reply a command got: `claim: job`, `claim: null`, `commit: stale_token`, ... Pure. */
export function replyKind(command: Command, reply: Reply): string {
  if (!reply.ok) return `${command.type}: ${reply.code}`;
  switch (reply.type) {
    case 'submit':
      return reply.duplicate ? 'submit: duplicate' : 'submit: admitted';
    case 'claim':
      return reply.job === null ? 'claim: null' : 'claim: job';
    case 'commit':
      return reply.applied ? 'commit: applied' : 'commit: reused';
    case 'fail':
      return reply.status === 'waiting' ? 'fail: waiting' : `fail: dead (${reply.reason})`;
    default:
      return `${reply.type}: ok`;
  }
}

/** Builds a store of `shape.resident` jobs by running the workload; returns the driver's state with it. */
export function buildStore(
  store: JobStore,
  shape: WorkloadShape,
  seed = 1,
): { store: JobStore; state: DriverState; replies: Map<string, number> } {
  const driver = new Driver(store, shape, Driver.initial(shape, seed));
  while (store.size < shape.resident) driver.cycle();
  return { store, state: driver.state, replies: driver.replies };
}

/**
 * Continues the workload on `store` (which moves on) from a copy of `state` with another seed, and
 * returns the first `count` commands it sent, and the tally of their replies.
 */
export function recordStream(
  store: JobStore,
  shape: WorkloadShape,
  state: DriverState,
  count: number,
  seed: number,
): { stream: Stream; replies: Map<string, number> } {
  const driver = new Driver(store, shape, { ...structuredClone(state), rng: seed >>> 0 });
  driver.redraw();
  driver.record();
  while (driver.sent < count) driver.cycle();
  return driver.recorded(count);
}
