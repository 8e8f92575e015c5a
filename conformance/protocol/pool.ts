/**
 * The processes of one process-adapter factory. Starting a process can cost far more than a
 * hundred commands (`python3` behind a version manager's shim costs ~0.45 CPU s here, the real
 * interpreter 0.03 s), so a factory keeps idle processes whose store was closed (the next fresh
 * store gets one back after a `hello`, which the protocol defines as a reset), and never-used
 * spares started ahead of time for restarts. `reuse: false` turns the first off for
 * implementations that cannot reset.
 *
 * Spares are started ahead while stores open (`spares` of them, so that a store's process and a
 * cold restart's start while other work goes on), but while processes are reused a cold restart
 * that takes one keeps only one spare started after it, for the next restart. A check's fixture
 * stories make two cold restarts, and its warm restarts need one process beyond its stores:
 * topping up to two after each cold restart started a process that nothing ever took (on two
 * cores, a shim's start taken from the check for nothing).
 *
 * The first process a pool starts may already be running: `jobcheck check --impl` starts one
 * while the engine loads (prestart.ts), and spawn() takes it when its command and options match.
 */
import { Peer } from './peer.ts';
import type { PeerEnding, PeerOptions } from './peer.ts';
import { takePrestarted } from './prestart.ts';

/** How a pool keeps processes. */
export interface PoolOptions extends PeerOptions {
  /** Give a closed store's process to the next fresh store, after a resetting `hello` (default true). */
  readonly reuse?: boolean;
  /** Never-used processes kept started in advance for restarts (default 1). */
  readonly spares?: number;
  /** Most processes kept idle for reuse (default 8). */
  readonly maxIdle?: number;
}

/**
 * Idle processes kept by default. A check runs up to four stores at once and each warm restart needs a
 * process other than its own, so at least five must stay; fewer would end a process at each
 * store's close and start a new one (a `python3` behind a version manager costs ~0.5 CPU s) at
 * the next restart that finds none idle. Idle processes hold only memory and are ended at close().
 */
const MAX_IDLE = 8;

/** The processes of one factory: idle ones that may be reset, and never-used spares. */
export class ProcessPool {
  private readonly idle: Peer[] = [];
  private readonly spares: Peer[] = [];
  /** Every peer ever started and not yet known to be ended, so that close() ends them all. */
  private readonly all = new Set<Peer>();
  private closed = false;
  /** Processes started so far. */
  started = 0;
  /** How the processes the pool ended went: by themselves once stdin closed, or only after a signal. */
  readonly endings: Record<PeerEnding, number> = { exited: 0, SIGTERM: 0, SIGKILL: 0 };

  constructor(
    readonly command: string,
    private readonly options: PoolOptions,
  ) {}

  private spawn(): Peer {
    this.started += 1;
    const peer = takePrestarted(this.command, this.options) ?? new Peer(this.command, this.options);
    this.all.add(peer);
    return peer;
  }

  /**
   * A process that has never served a store. `keep` spares (default `spares`) are then kept
   * started, so that the next cold restart finds one.
   */
  fresh(keep = this.options.spares ?? 1): Peer {
    const peer = this.spares.shift() ?? this.spawn();
    while (!this.closed && this.spares.length < keep) this.spares.push(this.spawn());
    return peer;
  }

  /**
   * A process that has never served a store, for a cold restart. While processes are reused, cold
   * restarts are few (warm ones take idle processes), so at most one spare is kept started after
   * it; without reuse every store and restart takes a new process, and `spares` are kept.
   */
  forColdRestart(): Peer {
    const spares = this.options.spares ?? 1;
    return this.fresh(this.options.reuse === false ? spares : Math.min(1, spares));
  }

  /** A process for a new store: an idle one (the hello will reset it) or a fresh one; says which. */
  any(): { readonly peer: Peer; readonly reused: boolean } {
    if (this.options.reuse !== false) {
      for (let peer = this.idle.pop(); peer !== undefined; peer = this.idle.pop()) {
        if (peer.healthy) return { peer, reused: true };
        void this.end(peer);
      }
    }
    return { peer: this.fresh(), reused: false };
  }

  /**
   * A process other than `current` for a warm restart: an idle one (its hello will reset it) or,
   * when none is idle or reuse is off, one that has never served a store; says which. A spare
   * taken by a warm restart is not replaced: `current` becomes idle, and serves the next warm
   * restart that finds none (a replacement would most often be started only to be ended at close).
   */
  other(current: Peer): { readonly peer: Peer; readonly reused: boolean } {
    if (this.options.reuse !== false) {
      const at = this.idle.findIndex((peer) => peer !== current && peer.healthy);
      if (at >= 0) {
        const [peer] = this.idle.splice(at, 1);
        if (peer !== undefined) return { peer, reused: true };
      }
    }
    return { peer: this.fresh(this.options.reuse === false ? undefined : 0), reused: false };
  }

  /** Ends one process of the pool; says how it ended. */
  async end(peer: Peer): Promise<PeerEnding> {
    const ending = await peer.end();
    if (this.all.delete(peer)) this.endings[ending] += 1;
    return ending;
  }

  /** Kills one process of the pool at once (SIGKILL to its group): a crash restart. */
  async kill(peer: Peer): Promise<void> {
    await peer.kill();
    if (this.all.delete(peer)) this.endings.SIGKILL += 1;
  }

  /** Takes back the process of a closed store: kept idle if it may be reused, ended otherwise. */
  async release(peer: Peer): Promise<void> {
    if (
      this.options.reuse !== false &&
      !this.closed &&
      peer.healthy &&
      this.idle.length < (this.options.maxIdle ?? MAX_IDLE)
    )
      this.idle.push(peer);
    else await this.end(peer);
  }

  /** Ends every process the pool started. The pool may not be used afterwards. */
  async close(): Promise<void> {
    this.closed = true;
    this.idle.splice(0);
    this.spares.splice(0);
    await Promise.all([...this.all].map((peer) => this.end(peer)));
  }
}
