/**
 * The two adapters of a queue whose one object, its broker (the connections, a lane per worker),
 * takes every request with the lane it came on: the sequential adapter is lane 0 and restarts the
 * broker; the concurrent one hands each request its lane. BullMQ on Redis, Redis Streams and SQS
 * build on it; each adds nothing here, so what they translate stays in their broker.
 */
import type { Adapter } from '../conformance/adapter.ts';
import type { ConcurrentAdapter } from '../conformance/concurrent/adapter.ts';
import type { Reply, Snapshot } from '../contract/index.ts';

/** What a lane broker answers. */
export interface LaneBroker {
  readonly name: string;
  execute(lane: number, command: unknown): Promise<Reply>;
  snapshot(): Promise<Snapshot>;
  restart(): Promise<void>;
  close(): Promise<void>;
}

/** The sequential adapter: one lane. */
export class LaneAdapter<B extends LaneBroker> implements Adapter {
  constructor(readonly broker: B) {}
  get name(): string {
    return this.broker.name;
  }
  execute(command: unknown): Promise<Reply> {
    return this.broker.execute(0, command);
  }
  snapshot(): Promise<Snapshot> {
    return this.broker.snapshot();
  }
  restart(): Promise<void> {
    return this.broker.restart();
  }
  close(): Promise<void> {
    return this.broker.close();
  }
}

/** The concurrent adapter: a lane (its own connections) per competing worker. */
export class LaneConcurrentAdapter<B extends LaneBroker> implements ConcurrentAdapter {
  readonly concurrent = true;
  constructor(readonly broker: B) {}
  get name(): string {
    return this.broker.name;
  }
  execute(lane: number, command: unknown): Promise<Reply> {
    return this.broker.execute(lane, command);
  }
  snapshot(): Promise<Snapshot> {
    return this.broker.snapshot();
  }
  close(): Promise<void> {
    return this.broker.close();
  }
}
