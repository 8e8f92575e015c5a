/**
 * The real beanstalkd behind the contract's commands: one tube per adapter instance, one connection
 * per worker (a reservation belongs to the connection that made it), one producer connection per
 * lane, and the server's clock moved through libfaketime (clock.ts). It translates, never repairs:
 * - time: the timestamp file is set to the command's tick, then a `stats` is answered, because
 *   beanstalkd looks at its timers after handling an event: the next command is read only after the
 *   timers were looked at in the new time. With several lanes (concurrent.ts) the clock moves to a
 *   later tick once the requests of earlier ticks are answered, and a request below the latest tick
 *   asked for is `clock_regressed`;
 * - submit: `put` of the payload (JSON, with the contract's id), delay 0, TTR = leaseTicks, on the
 *   lane's producer connection (beanstalkd has no ids of its choosing, no dedup, no deadline);
 * - claim: `reserve-with-timeout 0` on the worker's connection (TIMED_OUT, DEADLINE_SOON: no job);
 *   the token is the adapter's counter, in the order the replies came, remembered with beanstalkd's
 *   job id, which every reservation of the job shares and so is no fencing token;
 * - commit: `touch` on the worker's connection (its only "still mine", which restarts the TTR), then
 *   the ledger row and balance in the worker's own records; ack: `delete`; fail permanent: `bury`;
 *   fail transient: `bury` once `reserves` reach maxAttempts, else `release` with the capped delay;
 * - a token never handed out is refused without asking beanstalkd; any other is sent, and its answer
 *   is the reply. Validation (parseCommand, the clock check) comes first. See README.md, rule by rule.
 */
import { randomBytes } from 'node:crypto';
import type { Config, DeadReason, JobRecord, Reply, Snapshot } from '../../contract/index.ts';
import { SNAPSHOT_FORMAT, parseCommand, parseConfig, putOwn } from '../../contract/index.ts';
import type {
  AckCommand,
  ClaimCommand,
  Command,
  CommitCommand,
  FailCommand,
  SubmitCommand,
} from '../../contract/index.ts';
import type { Adapter, AdapterFactory } from '../../conformance/adapter.ts';
import { claimReply } from '../../impl/decisions/index.ts';
import { retryDelay } from '../../impl/decisions/time.ts';
import { WorkerLedger, staleToken } from '../ledger.ts';
import { BeanstalkdAdapterError } from './BeanstalkdAdapterError.ts';
import { lossAwareFactory } from '../../conformance/profile/lossAware.ts';
import type { LossSource } from '../../conformance/profile/lossAware.ts';
import { BeanstalkdConnection, parseStats } from './BeanstalkdConnection.ts';
import { FaketimeClock } from './clock.ts';

/** beanstalkd's largest TTR and delay (32-bit unsigned seconds) and its priorities. */
const MAX_SECONDS = 2 ** 32 - 1;

/** Where the server is, and its clock. */
export interface BeanstalkdFactoryOptions {
  /** `host:port` (default JOBCHECK_BEANSTALKD_ADDR). */
  readonly addr?: string;
  /** The libfaketime timestamp file the server was started with (default JOBCHECK_BEANSTALKD_CLOCK). */
  readonly clockFile?: string;
  /** Name for reports (default `beanstalkd`). */
  readonly name?: string;
  /** Per lane, another `host:port` for the connections of that lane's producer and worker (a fault proxy), else `addr`. */
  readonly laneAddrs?: readonly (string | undefined)[];
}

interface Payload {
  readonly account: string;
  readonly key: string;
  readonly amount: number;
  readonly deadline: number;
}

/**
 * What the worker side remembers of a job: its names (beanstalkd's job id, the contract's seq),
 * and what beanstalkd was asked and answered (the latest reservation, the delay of a release).
 * No failure text and no dead reason: beanstalkd keeps neither (docs/declarations.md).
 */
interface Known {
  bsId: string;
  seq: number;
  payload: Payload;
  attempts: number;
  notBefore?: number;
  token?: number;
  owner?: string;
  leaseUntil?: number;
}

/** `host:port` as parts; throws `bad_target`. Pure. */
export function parseAddr(addr: string): { host: string; port: number } {
  const m = /^([A-Za-z0-9.-]+|\[[0-9a-fA-F:]+\]):(\d{1,5})$/.exec(addr);
  const port = Number(m?.[2]);
  if (m === null || port < 1 || port > 65535)
    throw new BeanstalkdAdapterError('bad_target', `${JSON.stringify(addr)} is not host:port`);
  return { host: (m[1] as string).replace(/^\[|\]$/g, ''), port };
}

/** Throws `unsupported_config` for a config beanstalkd cannot carry. Pure. */
export function checkConfig(config: Config): void {
  for (const field of ['leaseTicks', 'backoffCap'] as const)
    if (config[field] > MAX_SECONDS)
      throw new BeanstalkdAdapterError(
        'unsupported_config',
        `${field}: beanstalkd takes TTRs and delays as 32-bit unsigned seconds (got ${config[field]})`,
      );
}

/** beanstalkd behind the contract; see the top of the file. `execute` is lane 0; `executeOn` takes a lane (concurrent.ts). */
export class BeanstalkdAdapter implements Adapter {
  private closed = false;
  /** The tick the timestamp file holds. */
  private now = 0;
  /** The latest tick a request asked for: the file holds it once the requests of earlier ticks are answered. */
  private admitted = 0;
  /** Requests admitted and not yet answered: the clock moves past their tick only once they are. */
  private readonly inFlight = new Set<Promise<unknown>>();
  private nextToken = 1;
  private nextSeq = 1;
  private readonly jobs = new Map<string, Known>();
  private readonly claims = new Map<number, { id: string; bsId: string }>();
  /** The worker's effect ledger: beanstalkd keeps none. */
  private readonly ledger = new WorkerLedger();
  /** Each worker's connection, by worker name: its reservations are its own. */
  private readonly connections = new Map<string, Promise<BeanstalkdConnection>>();
  /** Each lane's producer connection (lane 0's also asks `stats`, `stats-job`). */
  private readonly producers = new Map<number, Promise<BeanstalkdConnection>>();
  private advancing: Promise<void> = Promise.resolve();

  private constructor(
    private readonly config: Config,
    private readonly host: string,
    private readonly port: number,
    private readonly clock: FaketimeClock,
    readonly tube: string,
    readonly name: string,
    private readonly laneAddrs: readonly (string | undefined)[] = [],
  ) {}

  /** Creates an instance for `config` in a new tube. Throws JobcheckError for a bad config, BeanstalkdAdapterError otherwise. */
  static async create(config: Config, options: BeanstalkdFactoryOptions = {}): Promise<BeanstalkdAdapter> {
    const checked = parseConfig(config);
    checkConfig(checked);
    const addr = options.addr ?? process.env['JOBCHECK_BEANSTALKD_ADDR'] ?? '';
    const clockFile = options.clockFile ?? process.env['JOBCHECK_BEANSTALKD_CLOCK'] ?? '';
    if (clockFile === '')
      throw new BeanstalkdAdapterError('no_clock', 'no libfaketime timestamp file: set JOBCHECK_BEANSTALKD_CLOCK');
    const { host, port } = parseAddr(addr);
    const adapter = new BeanstalkdAdapter(
      checked,
      host,
      port,
      new FaketimeClock(clockFile),
      `jc-${randomBytes(6).toString('hex')}`,
      options.name ?? 'beanstalkd',
      options.laneAddrs,
    );
    try {
      await adapter.wake();
      return adapter;
    } catch (error) {
      await adapter.close().catch(() => undefined);
      throw error;
    }
  }

  /** The connection of `worker`, opened on first use. */
  private connection(worker: string): Promise<BeanstalkdConnection> {
    return this.opened(this.connections, worker, Number(worker.slice(1)) - 1);
  }

  /** The producer connection of `lane` (lane 0's also asks beanstalkd's stats), opened on first use. */
  private producer(lane = 0): Promise<BeanstalkdConnection> {
    return this.opened(this.producers, lane, lane);
  }

  /** The connection under `key` in `map` (on `lane`'s address), opened on first use, using and watching only the tube. */
  private opened<K>(map: Map<K, Promise<BeanstalkdConnection>>, key: K, lane: number): Promise<BeanstalkdConnection> {
    let c = map.get(key);
    if (c === undefined) {
      const routed = this.laneAddrs[lane];
      const { host, port } = routed === undefined ? { host: this.host, port: this.port } : parseAddr(routed);
      c = (async () => {
        const conn = await BeanstalkdConnection.open(host, port);
        await this.expect(conn, `use ${this.tube}`, /^USING /);
        await this.expect(conn, `watch ${this.tube}`, /^WATCHING /);
        await this.expect(conn, 'ignore default', /^WATCHING /);
        return conn;
      })();
      map.set(key, c);
    }
    return c;
  }

  private async expect(conn: BeanstalkdConnection, line: string, ok: RegExp, body?: string): Promise<string> {
    const r = await conn.send(line, body);
    if (!ok.test(r.head))
      throw new BeanstalkdAdapterError('protocol_error', `beanstalkd answered ${JSON.stringify(r.head)} to ${line}`);
    return r.head;
  }

  /** An answered `stats`: beanstalkd looks at its timers after handling it, before it reads anything else. */
  private async wake(): Promise<void> {
    await this.expect(await this.producer(), 'stats', /^OK /);
  }

  /** Executes one command on lane 0. */
  execute(input: unknown): Promise<Reply> {
    return this.executeOn(0, input);
  }

  /**
   * Executes one command sent on `lane`: a submit goes on the lane's producer connection, a
   * worker's request on that worker's connection whatever lane sends it (the reservation is the
   * connection's). beanstalkd handles it while the timestamp file holds its tick (see advance).
   */
  async executeOn(lane: number, input: unknown): Promise<Reply> {
    this.clock.creep();
    if (this.closed) throw new BeanstalkdAdapterError('connection_failed', 'the adapter is closed');
    const parsed = parseCommand(input);
    if (!parsed.ok) return parsed.rejection;
    const command = parsed.command;
    if (command.now < this.admitted)
      return {
        ok: false,
        code: 'clock_regressed',
        message: `now: ${command.now} is before the clock (${this.admitted})`,
      };
    if (command.now > this.admitted) this.advance(command.now);
    const ready = this.advancing;
    const run = ready.then(() => this.dispatch(lane, command));
    this.inFlight.add(run);
    try {
      return await run;
    } finally {
      this.inFlight.delete(run);
    }
  }

  private dispatch(lane: number, command: Command): Promise<Reply> {
    switch (command.type) {
      case 'submit':
        return this.submit(lane, command);
      case 'claim':
        return this.claim(command);
      case 'commit':
        return this.commit(command);
      case 'ack':
        return this.ack(command);
      case 'fail':
        return this.fail(command);
      case 'tick':
        return Promise.resolve({ ok: true, type: 'tick', clock: command.now });
    }
  }

  /**
   * Asks for tick `now` (above every tick asked for before): once the previous move is done and
   * every request admitted until now (all of earlier ticks) has been answered, the file is set to
   * `now` and beanstalkd looks at its timers there. Requests of tick `now` wait for it; so
   * beanstalkd handles every request in the time its `now` names, however many lanes send them.
   */
  private advance(now: number): void {
    this.admitted = now;
    const earlier = [...this.inFlight];
    const previous = this.advancing;
    this.advancing = (async () => {
      await previous;
      await Promise.allSettled(earlier);
      this.now = now;
      this.clock.set(now);
      await this.wake();
    })();
  }

  private async submit(lane: number, c: SubmitCommand): Promise<Reply> {
    const payload: Payload = { account: c.account, key: c.key, amount: c.amount, deadline: c.deadline };
    const body = JSON.stringify({ id: c.id, ...payload });
    const head = await this.expect(
      await this.producer(lane),
      `put 0 0 ${this.config.leaseTicks} ${Buffer.byteLength(body)}`,
      /^INSERTED \d+$/,
      body,
    );
    const seq = this.nextSeq++;
    // No deduplication in beanstalkd: a repeated id is a second job, and the id now names it.
    this.jobs.set(c.id, { bsId: head.split(' ')[1] as string, seq, payload, attempts: 0 });
    return { ok: true, type: 'submit', id: c.id, seq, duplicate: false };
  }

  private async stats(bsId: string): Promise<Record<string, string> | undefined> {
    const r = await (await this.producer()).send(`stats-job ${bsId}`);
    if (r.head === 'NOT_FOUND') return undefined;
    if (r.body === undefined)
      throw new BeanstalkdAdapterError('protocol_error', `beanstalkd answered ${JSON.stringify(r.head)} to stats-job`);
    return parseStats(r.body);
  }

  private async claim(c: ClaimCommand): Promise<Reply> {
    const r = await (await this.connection(c.worker)).send('reserve-with-timeout 0');
    if (r.head === 'TIMED_OUT' || r.head === 'DEADLINE_SOON') return claimReply(null);
    if (!r.head.startsWith('RESERVED ') || r.body === undefined)
      throw new BeanstalkdAdapterError('protocol_error', `beanstalkd answered ${JSON.stringify(r.head)} to reserve`);
    // The token is taken as the reservation's reply arrives, before any other await: tokens follow
    // the order of beanstalkd's replies, not of the stats-job answers below.
    const token = this.nextToken++;
    const bsId = r.head.split(' ')[1] as string;
    const { id, ...payload } = JSON.parse(r.body) as Payload & { id: string };
    const stats = await this.stats(bsId);
    const attempts = Number(stats?.['reserves'] ?? 1);
    const ttr = Number(stats?.['ttr'] ?? this.config.leaseTicks);
    const leaseUntil = c.now + ttr;
    this.claims.set(token, { id, bsId });
    const known = this.jobs.get(id);
    if (known !== undefined && known.bsId === bsId)
      Object.assign(known, { attempts, token, owner: c.worker, leaseUntil, notBefore: undefined });
    return claimReply({ id, token, attempt: attempts, leaseUntil, payload });
  }

  private async commit(c: CommitCommand): Promise<Reply> {
    const claim = this.claims.get(c.token);
    if (claim === undefined) return staleToken(c.token, 'the adapter handed out no reservation');
    const touched = (await (await this.connection(c.worker)).send(`touch ${claim.bsId}`)).head;
    if (touched !== 'TOUCHED') return staleToken(c.token, `beanstalkd answered ${touched} to touch ${claim.bsId}`);
    const known = this.jobs.get(claim.id);
    if (known !== undefined && known.bsId === claim.bsId) known.leaseUntil = c.now + this.config.leaseTicks;
    const payload = known?.payload;
    if (payload === undefined) throw new Error(`no record of job ${claim.id}`);
    return this.ledger.commit(claim.id, c.token, payload);
  }

  private async ack(c: AckCommand): Promise<Reply> {
    const claim = this.claims.get(c.token);
    if (claim === undefined) return staleToken(c.token, 'the adapter handed out no reservation');
    const deleted = (await (await this.connection(c.worker)).send(`delete ${claim.bsId}`)).head;
    if (deleted !== 'DELETED') return staleToken(c.token, `beanstalkd answered ${deleted} to delete ${claim.bsId}`);
    return { ok: true, type: 'ack', id: claim.id };
  }

  private async fail(c: FailCommand): Promise<Reply> {
    const claim = this.claims.get(c.token);
    if (claim === undefined) return staleToken(c.token, 'the adapter handed out no reservation');
    const known = this.jobs.get(claim.id);
    const mine = known !== undefined && known.bsId === claim.bsId ? known : undefined;
    const reserves = Number((await this.stats(claim.bsId))?.['reserves'] ?? 0);
    const conn = await this.connection(c.worker);
    if (c.kind === 'permanent' || reserves >= this.config.maxAttempts) {
      const buried = (await conn.send(`bury ${claim.bsId} 0`)).head;
      if (buried !== 'BURIED') return staleToken(c.token, `beanstalkd answered ${buried} to bury ${claim.bsId}`);
      const reason: DeadReason = c.kind === 'permanent' ? 'permanent' : 'attempts_exhausted';
      return { ok: true, type: 'fail', id: claim.id, status: 'dead', reason };
    }
    const delay = retryDelay(this.config.backoffBase, this.config.backoffCap, reserves);
    const released = (await conn.send(`release ${claim.bsId} 0 ${delay}`)).head;
    if (released !== 'RELEASED') return staleToken(c.token, `beanstalkd answered ${released} to release ${claim.bsId}`);
    if (mine !== undefined) mine.notBefore = c.now + delay;
    return { ok: true, type: 'fail', id: claim.id, status: 'waiting', notBefore: c.now + delay };
  }

  /** A job as the contract's record: its state from `stats-job`, its names and latest delivery from the worker's records. */
  private async record(k: Known): Promise<JobRecord> {
    const stats = await this.stats(k.bsId);
    const base = { payload: { ...k.payload }, seq: k.seq, attempts: Number(stats?.['reserves'] ?? k.attempts) };
    switch (stats?.['state']) {
      case undefined:
        return { ...base, status: 'done' };
      case 'ready':
        return { ...base, status: 'ready' };
      case 'delayed':
        return { ...base, status: 'waiting', notBefore: k.notBefore ?? this.now };
      case 'reserved':
        return {
          ...base,
          status: 'running',
          ...(k.token === undefined ? {} : { token: k.token }),
          ...(k.owner === undefined ? {} : { owner: k.owner }),
          leaseUntil: k.leaseUntil ?? this.now,
        };
      case 'buried':
        // beanstalkd keeps no reason: a buried job reads as one the worker's retry policy gave up on.
        return { ...base, status: 'dead', reason: 'attempts_exhausted' };
      default:
        throw new BeanstalkdAdapterError(
          'protocol_error',
          `stats-job ${k.bsId}: unknown state ${String(stats?.['state'])}`,
        );
    }
  }

  async snapshot(): Promise<Snapshot> {
    await this.advancing;
    const jobs: Record<string, JobRecord> = {};
    for (const [id, k] of this.jobs) putOwn(jobs, id, await this.record(k));
    return {
      format: SNAPSHOT_FORMAT,
      config: { ...this.config },
      clock: this.now,
      nextToken: this.nextToken,
      nextSeq: this.nextSeq,
      jobs,
      ...this.ledger.snapshot(),
    };
  }

  /**
   * A restart of the workers: every connection is closed (beanstalkd then puts the jobs they had
   * reserved back in the ready queue, as it does for a worker that goes away) and opened again on
   * first use. The server itself is not restarted: it is shared, and started by scripts/brokers.sh.
   */
  async restart(): Promise<void> {
    const open = [...this.connections.values(), ...this.producers.values()];
    this.connections.clear();
    this.producers.clear();
    for (const c of open) await (await c).close();
    await this.wake();
  }

  /** Deletes what is left in the tube, then closes every connection. Idempotent. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const open = [...this.connections.values(), ...this.producers.values()];
    this.connections.clear();
    this.producers.clear();
    try {
      const conn = await BeanstalkdConnection.open(this.host, this.port);
      // Reserved jobs go back to ready when their connection closes; close those first.
      for (const c of open) await (await c.catch(() => undefined))?.close();
      for (const k of this.jobs.values()) await conn.send(`delete ${k.bsId}`);
      await drainTube(conn, this.tube);
      await conn.close();
    } catch {
      for (const c of open) await (await c.catch(() => undefined))?.close();
    }
  }
}

/**
 * Deletes every job left in `tube` (ready, delayed or buried), whether or not the adapter knew it:
 * two puts of one id racing each other leave a job no reply named. The tube is the adapter's own.
 */
async function drainTube(conn: BeanstalkdConnection, tube: string): Promise<void> {
  await conn.send(`use ${tube}`);
  for (const peek of ['peek-ready', 'peek-delayed', 'peek-buried'])
    for (let found = await conn.send(peek); found.head.startsWith('FOUND '); found = await conn.send(peek))
      if (!(await conn.send(`delete ${found.head.split(' ')[1]}`)).head.startsWith('DELETED')) break;
}

/** Where a factory's beanstalkd is, and how a connection says it lost it (BeanstalkdConnection: a socket that failed or closed). */
export const beanstalkdLoss = (options: BeanstalkdFactoryOptions): LossSource => ({
  where: () => ({ broker: 'beanstalkd', address: options.addr ?? process.env['JOBCHECK_BEANSTALKD_ADDR'] ?? '' }),
  clientLoss: (e) =>
    e instanceof BeanstalkdAdapterError &&
    e.code === 'connection_failed' &&
    e.message.startsWith('beanstalkd connection:')
      ? 'connection closed'
      : undefined,
});

/** A factory of beanstalkd adapters, each in a new tube. */
export function beanstalkdFactory(options: BeanstalkdFactoryOptions = {}): AdapterFactory {
  return lossAwareFactory((config) => BeanstalkdAdapter.create(config, options), beanstalkdLoss(options));
}
