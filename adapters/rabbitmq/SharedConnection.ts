/**
 * One AMQP connection shared by the adapter instances of one factory. A profile makes hundreds of
 * fresh instances (every run, every shrink step, every replay), and opening a connection is a TCP
 * handshake plus AMQP's start/tune/open, about a third of an instance's set-up; a real worker
 * fleet opens one connection per process and a channel per worker, so the instances share one
 * connection and keep their isolation in their own queues and channels (adapter.ts). What a
 * connection-level failure would do is kept: each instance listens to the connection's errors.
 *
 * The connection closes itself `lingerMs` after its last user released it (so that a test that
 * never calls `close` still lets its process end), and at once on `close`.
 */
import amqp from 'amqplib';
import type { ChannelModel } from 'amqplib';

/** How long an unused shared connection stays open before it closes itself, in ms. */
export const LINGER_MS = 1000;

/**
 * A lazily opened connection to the URL `url()` gives (asked at each opening, so that a missing
 * server is an error of the first instance, not of the factory), reference-counted, closed when
 * unused for `lingerMs`.
 */
export class SharedConnection {
  private opening: Promise<ChannelModel> | undefined;
  private users = 0;
  private timer: NodeJS.Timeout | undefined;
  private readonly pending = new Set<Promise<unknown>>();

  constructor(
    private readonly url: () => string,
    private readonly lingerMs: number = LINGER_MS,
  ) {}

  /** The open connection (opening one if there is none, or the last one failed); counts a user until `release`. */
  async acquire(): Promise<ChannelModel> {
    this.users += 1;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    try {
      if (this.opening === undefined) {
        const opening = amqp.connect(this.url());
        this.opening = opening;
        const forget = (): void => {
          if (this.opening === opening) this.opening = undefined;
        };
        // Each instance hears the connection's errors; a connection no instance holds drops them, never printing a stack.
        opening.then((c) => c.on('close', forget).on('error', () => undefined), forget);
      }
      return await this.opening;
    } catch (error) {
      this.users -= 1;
      throw error;
    }
  }

  /**
   * Keeps `work` (an instance's clean-up: deleting its queues) running past the instance's close,
   * so the next instance need not wait for it; the connection closes only after it.
   */
  track(work: Promise<unknown>): void {
    const settled = work.catch(() => undefined).finally(() => this.pending.delete(settled));
    this.pending.add(settled);
  }

  /** Gives one user's hold back; the last one starts the linger. */
  release(): void {
    this.users = Math.max(0, this.users - 1);
    if (this.users > 0) return;
    if (this.lingerMs <= 0) {
      void this.close();
      return;
    }
    this.timer = setTimeout(() => void this.close(), this.lingerMs);
  }

  /** Closes the connection now (a later `acquire` opens a new one). Idempotent; never throws. */
  async close(): Promise<void> {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    await Promise.all([...this.pending]);
    if (this.users > 0) return;
    const opening = this.opening;
    this.opening = undefined;
    if (opening === undefined) return;
    const connection = await opening.catch(() => undefined);
    await connection?.close().catch(() => undefined);
  }
}

/** One SharedConnection per server URL, made on first use (instances on several servers); `close` closes them all. */
export class SharedConnections {
  private readonly byUrl = new Map<string, SharedConnection>();

  constructor(private readonly lingerMs: number = LINGER_MS) {}

  /** The shared connection to `url`. */
  of(url: string): SharedConnection {
    let connection = this.byUrl.get(url);
    if (connection === undefined) {
      connection = new SharedConnection(() => url, this.lingerMs);
      this.byUrl.set(url, connection);
    }
    return connection;
  }

  /** Closes every connection now (see SharedConnection.close). Never throws. */
  async close(): Promise<void> {
    await Promise.all([...this.byUrl.values()].map((c) => c.close()));
  }
}
