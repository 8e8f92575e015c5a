/**
 * Competing workers against beanstalkd: one adapter, one tube, and separate TCP connections, as a
 * fleet of worker processes has them. beanstalkd knows no worker names: its only worker is a
 * connection, and a reservation belongs to the connection that made it (a `delete`, `release`,
 * `bury` or `touch` from another connection answers NOT_FOUND). A worker process therefore settles
 * a job on the connection it reserved it on. So each contract worker (`w1`, `w2`, ...) has its own
 * connection, and a request in a worker's name goes on that connection whatever lane carries it
 * (the concurrent generator sends a settlement "in the holder's name" on any lane): two lanes
 * sending for one worker pipeline on its connection, as one worker process with several requests
 * out does. A submit goes on its lane's own producer connection. Routing by lane instead would have
 * every settlement sent on another lane refused for a connection that never reserved the job,
 * which no worker does; that would be the adapter's departure, not beanstalkd's.
 *
 * The clock is libfaketime's, one file for the server, moved by the adapter (clock.ts). A round's
 * requests carry its `now`; beanstalkd handles each request while the file holds that `now`: the
 * file moves to a later tick once every request of earlier ticks has been answered, and a request
 * for a tick below the latest one asked for is refused `clock_regressed` (adapter.ts, `advance`).
 * So an acknowledgement sent at `leaseUntil - 1` and still in flight when another lane's claim
 * asks for `leaseUntil` is handled at `leaseUntil - 1`, before the TTR runs out: under a clock the
 * adapter sets, a request takes effect at the time it names. The stale acknowledgement beanstalkd
 * does allow is the one sent after the redelivery (README.md).
 */
import type { ConcurrentAdapter, ConcurrentFactory } from '../../conformance/concurrent/adapter.ts';
import type { Reply, Snapshot } from '../../contract/index.ts';
import { BeanstalkdAdapter } from './adapter.ts';
import type { BeanstalkdFactoryOptions } from './adapter.ts';

/** beanstalkd behind the concurrent interface; see the top of the file. */
export class BeanstalkdConcurrentAdapter implements ConcurrentAdapter {
  readonly concurrent = true;
  constructor(readonly adapter: BeanstalkdAdapter) {}

  get name(): string {
    return this.adapter.name;
  }

  /** Executes one command carried by `lane` (on the connection of its worker, or the lane's producer). */
  execute(lane: number, command: unknown): Promise<Reply> {
    return this.adapter.executeOn(lane, command);
  }

  snapshot(): Promise<Snapshot> {
    return this.adapter.snapshot();
  }

  /** Deletes what is left in the tube and closes every connection. Idempotent. */
  close(): Promise<void> {
    return this.adapter.close();
  }
}

/** A factory of concurrent beanstalkd adapters, each in a new tube. Connects only when called. */
export function beanstalkdConcurrentFactory(options: BeanstalkdFactoryOptions = {}): ConcurrentFactory {
  return async (config) => new BeanstalkdConcurrentAdapter(await BeanstalkdAdapter.create(config, options));
}
