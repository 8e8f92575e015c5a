/**
 * A TCP proxy for one worker, owned by the harness: it listens on 127.0.0.1 on a free port,
 * forwards each connection to the broker, and can be switched at any moment between `pass`, a
 * `partition` (`hold`: buffer both directions and deliver everything, in order, on heal; `drop`:
 * discard the bytes, and reset on heal every connection that lost some; `reset`: destroy every
 * connection with an RST, and reset new ones at once) and `latency` (each chunk delayed by N ms,
 * order kept). Plain `node:net`: no root, any OS.
 *
 * Invariants: bytes leave in the order they came, per direction; an end (FIN) or a reset from one
 * side travels behind that side's bytes, so it is held, delayed or dropped with them. Memory is
 * bounded: the bytes held or delayed, over every connection, never pass `maxHeldBytes`; bytes over
 * it are discarded, counted in `overflowBytes`, and their connection is reset on heal, as one that
 * lost bytes in `drop`. A connection opened during a partition is accepted (the listen queue cannot
 * be stopped from user space) and its bytes treated like the rest. `close()` ends every socket,
 * timer and the server; it is idempotent, and a closed proxy refuses `set`.
 */
import { createServer, type Server, type Socket, connect } from 'node:net';
import { performance } from 'node:perf_hooks';
import { NemesisError } from './errors.ts';
import { MAX_LATENCY_MS, type PartitionMode } from './fault.ts';

/** How the proxy treats the traffic now. */
export type ProxyMode =
  | { readonly kind: 'pass' }
  | { readonly kind: 'partition'; readonly mode: PartitionMode }
  | { readonly kind: 'latency'; readonly ms: number };

/** Where the proxy forwards to, and how much it may hold. */
export interface ProxyOptions {
  readonly upstream: { readonly host: string; readonly port: number };
  /** Most bytes held or delayed at once, over every connection (default 4 MiB). */
  readonly maxHeldBytes?: number;
}

/** What the proxy has done so far (`heldBytes`: now; the rest since it started). */
export interface ProxyCounts {
  readonly connections: number;
  readonly open: number;
  readonly forwardedBytes: number;
  readonly heldBytes: number;
  readonly droppedBytes: number;
  readonly overflowBytes: number;
  readonly resets: number;
}

/** A running proxy. */
export interface FaultProxy {
  readonly host: '127.0.0.1';
  readonly port: number;
  /** The mode now. */
  mode(): ProxyMode;
  /** Switches the mode for every connection, open or to come; throws `invalid_fault` or `closed`. */
  set(mode: ProxyMode): void;
  counts(): ProxyCounts;
  /** What was lost, in one line, or null when nothing was: `dropped 120 bytes; 3 bytes over the held cap of 1024`. */
  losses(): string | null;
  close(): Promise<void>;
}

/** The default cap on bytes held or delayed. */
export const DEFAULT_MAX_HELD_BYTES = 4 * 1024 * 1024;

type Item =
  | { readonly type: 'data'; readonly chunk: Buffer; due: number }
  | { readonly type: 'end' | 'reset'; due: number };

interface Tally {
  connections: number;
  forwardedBytes: number;
  heldBytes: number;
  droppedBytes: number;
  overflowBytes: number;
  resets: number;
}

const size = (item: Item): number => (item.type === 'data' ? item.chunk.length : 0);

/** Throws `invalid_fault` for a mode out of bounds. */
function checkMode(mode: ProxyMode): void {
  if (mode.kind === 'latency' && !(Number.isInteger(mode.ms) && mode.ms >= 1 && mode.ms <= MAX_LATENCY_MS))
    throw new NemesisError(
      'invalid_fault',
      `proxy: latency must be an integer from 1 to ${MAX_LATENCY_MS} ms (got ${String(mode.ms)})`,
    );
  if (mode.kind === 'partition' && !['hold', 'drop', 'reset'].includes(mode.mode))
    throw new NemesisError(
      'invalid_fault',
      `proxy: partition mode must be hold, drop or reset (got ${String(mode.mode)})`,
    );
}

/** One direction of one connection: the items on their way from `src` to `dst`. */
class Flow {
  private readonly queue: Item[] = [];
  private timer: NodeJS.Timeout | undefined;
  constructor(
    private readonly src: Socket,
    private readonly dst: Socket,
    private readonly link: Link,
  ) {}

  push(item: Item): void {
    const { proxy } = this.link;
    const mode = proxy.current;
    if (mode.kind === 'partition') {
      if (mode.mode !== 'hold') {
        proxy.tally.droppedBytes += size(item);
        this.link.lossy = true;
        return;
      }
      item.due = Number.POSITIVE_INFINITY;
    } else {
      const last = this.queue.at(-1)?.due ?? 0;
      item.due = Math.max(performance.now() + (mode.kind === 'latency' ? mode.ms : 0), last);
    }
    if (this.queue.length > 0 || item.due > performance.now()) {
      if (proxy.tally.heldBytes + size(item) > proxy.maxHeldBytes) {
        proxy.tally.overflowBytes += size(item);
        this.link.lossy = true;
        return;
      }
      proxy.tally.heldBytes += size(item);
    }
    this.queue.push(item);
    this.flush();
  }

  /** Holds every item (a partition in `hold`). */
  hold(): void {
    for (const item of this.queue) item.due = Number.POSITIVE_INFINITY;
    this.stop();
  }

  /** Discards every item (a partition in `drop`); true when some bytes were lost. */
  discard(): boolean {
    let bytes = 0;
    for (const item of this.queue) bytes += size(item);
    this.link.proxy.tally.heldBytes -= bytes;
    this.link.proxy.tally.droppedBytes += bytes;
    const lost = this.queue.length > 0;
    this.queue.length = 0;
    this.stop();
    return lost;
  }

  /** Releases held items: due now, or after `ms` (in order), then delivers what is due. */
  release(ms: number): void {
    const at = performance.now() + ms;
    for (const item of this.queue) if (item.due === Number.POSITIVE_INFINITY) item.due = at;
    this.flush();
  }

  stop(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private flush(): void {
    this.stop();
    const { tally } = this.link.proxy;
    while (this.queue.length > 0) {
      const head = this.queue[0] as Item;
      const wait = head.due - performance.now();
      if (wait === Number.POSITIVE_INFINITY) return;
      if (wait > 0) {
        this.timer = setTimeout(() => this.flush(), Math.max(1, Math.ceil(wait)));
        return;
      }
      this.queue.shift();
      tally.heldBytes -= Math.min(tally.heldBytes, size(head));
      this.deliver(head);
    }
  }

  private deliver(item: Item): void {
    if (this.dst.destroyed) return;
    if (item.type === 'reset') {
      this.link.proxy.tally.resets += 1;
      this.dst.resetAndDestroy();
    } else if (item.type === 'end') this.dst.end();
    if (item.type === 'data') {
      this.link.proxy.tally.forwardedBytes += item.chunk.length;
      if (!this.dst.write(item.chunk) && !this.src.isPaused()) {
        this.src.pause();
        this.dst.once('drain', () => this.src.resume());
      }
    }
  }
}

/** What every link shares with its proxy. */
interface ProxyState {
  current: ProxyMode;
  readonly maxHeldBytes: number;
  readonly tally: Tally;
}

/** One client connection and its upstream connection. */
class Link {
  lossy = false;
  readonly up: Flow;
  readonly down: Flow;
  constructor(
    readonly client: Socket,
    readonly upstream: Socket,
    readonly proxy: ProxyState,
  ) {
    this.up = new Flow(client, upstream, this);
    this.down = new Flow(upstream, client, this);
    this.wire(client, this.up);
    this.wire(upstream, this.down);
  }

  /** Everything `from` sends travels through `flow`: its bytes, its end, and its reset (an error). */
  private wire(from: Socket, flow: Flow): void {
    from.on('data', (chunk: Buffer) => flow.push({ type: 'data', chunk, due: 0 }));
    from.on('end', () => flow.push({ type: 'end', due: 0 }));
    // An error (ECONNRESET, ECONNREFUSED for the upstream) reaches the other side as a reset, behind the bytes.
    from.on('error', () => flow.push({ type: 'reset', due: 0 }));
  }

  reset(): void {
    this.up.stop();
    this.down.stop();
    for (const socket of [this.client, this.upstream])
      if (!socket.destroyed) {
        this.proxy.tally.resets += 1;
        socket.resetAndDestroy();
      }
  }

  destroy(): void {
    this.up.stop();
    this.down.stop();
    this.client.destroy();
    this.upstream.destroy();
  }

  get closed(): boolean {
    return this.client.destroyed && this.upstream.destroyed;
  }
}

/** Starts a proxy to `options.upstream` on 127.0.0.1, on a free port, in `pass`. */
export async function startProxy(options: ProxyOptions): Promise<FaultProxy> {
  const maxHeldBytes = options.maxHeldBytes ?? DEFAULT_MAX_HELD_BYTES;
  if (!Number.isInteger(maxHeldBytes) || maxHeldBytes < 1)
    throw new NemesisError(
      'invalid_fault',
      `proxy: maxHeldBytes must be a positive integer (got ${String(maxHeldBytes)})`,
    );
  const tally: Tally = {
    connections: 0,
    forwardedBytes: 0,
    heldBytes: 0,
    droppedBytes: 0,
    overflowBytes: 0,
    resets: 0,
  };
  const state: ProxyState = { current: { kind: 'pass' }, maxHeldBytes, tally };
  const links = new Set<Link>();
  let closing: Promise<void> | undefined;

  const server: Server = createServer({ allowHalfOpen: true, pauseOnConnect: false }, (client) => {
    tally.connections += 1;
    if (closing !== undefined || (state.current.kind === 'partition' && state.current.mode === 'reset')) {
      tally.resets += 1;
      client.on('error', () => {});
      client.resetAndDestroy();
      return;
    }
    const upstream = connect({ host: options.upstream.host, port: options.upstream.port, allowHalfOpen: true });
    const link = new Link(client, upstream, state);
    links.add(link);
    const forget = (): void => {
      if (link.closed) links.delete(link);
    };
    client.on('close', forget);
    upstream.on('close', forget);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as { port: number }).port;

  const set = (mode: ProxyMode): void => {
    if (closing !== undefined) throw new NemesisError('closed', `proxy on 127.0.0.1:${port}: set after close`);
    checkMode(mode);
    const before = state.current;
    state.current = mode;
    for (const link of links) {
      if (mode.kind === 'partition' && mode.mode === 'reset') link.reset();
      else if (mode.kind === 'partition' && mode.mode === 'drop') {
        if (link.up.discard()) link.lossy = true;
        if (link.down.discard()) link.lossy = true;
      } else if (mode.kind === 'partition') {
        link.up.hold();
        link.down.hold();
      } else if (link.lossy) link.reset();
      else {
        const ms = mode.kind === 'latency' ? mode.ms : 0;
        link.up.release(before.kind === 'partition' ? 0 : ms);
        link.down.release(before.kind === 'partition' ? 0 : ms);
      }
    }
  };

  const close = (): Promise<void> => {
    closing ??= new Promise<void>((resolve) => {
      for (const link of links) link.destroy();
      links.clear();
      tally.heldBytes = 0;
      server.close(() => resolve());
    });
    return closing;
  };

  return {
    host: '127.0.0.1',
    port,
    mode: () => state.current,
    set,
    counts: () => ({ ...tally, open: links.size }),
    losses: () => {
      const parts = [
        ...(tally.droppedBytes > 0 ? [`dropped ${tally.droppedBytes} bytes`] : []),
        ...(tally.overflowBytes > 0
          ? [`${tally.overflowBytes} bytes over the held cap of ${maxHeldBytes} discarded`]
          : []),
      ];
      return parts.length === 0 ? null : parts.join('; ');
    },
    close,
  };
}
