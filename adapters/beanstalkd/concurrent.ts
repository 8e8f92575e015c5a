/**
 * Competing workers against beanstalkd: one adapter, one tube, and separate TCP connections, as a
 * fleet of worker processes has them. beanstalkd's only worker is a connection: a reservation
 * belongs to the connection that made it (a `delete`, `release`, `bury` or `touch` from another
 * answers NOT_FOUND). So each contract worker (`w1`, `w2`, ...) has its own connection, and a
 * request in a worker's name goes on it whatever lane carries it (the generator sends settlements
 * "in the holder's name" on any lane): two lanes sending for one worker pipeline on its connection,
 * as one worker process with several requests out does. A submit goes on its lane's producer
 * connection. Routing by lane would have settlements refused for a connection that never reserved
 * the job, which no worker does: the adapter's departure, not beanstalkd's.
 *
 * The clock is libfaketime's, one file for the server, moved by the adapter (clock.ts). beanstalkd
 * handles each request while the file holds the request's `now`: the file moves to a later tick
 * once every request of earlier ticks is answered, and a request for a tick below the latest asked
 * for is refused `clock_regressed` (adapter.ts, `advance`). So an ack sent at `leaseUntil - 1`,
 * still in flight when another lane's claim asks for `leaseUntil`, is handled before the TTR runs
 * out: a request takes effect at the time it names. The stale acknowledgement beanstalkd does allow
 * is the one sent after the redelivery (README.md).
 */
import type { ConcurrentAdapter, ConcurrentFactory } from '../../conformance/concurrent/adapter.ts';
import type { Reply, Snapshot } from '../../contract/index.ts';
import { BeanstalkdAdapter, beanstalkdLoss } from './adapter.ts';
import { lossAwareConcurrentFactory } from '../../conformance/profile/lossAware.ts';
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
  return lossAwareConcurrentFactory(
    async (config) => new BeanstalkdConcurrentAdapter(await BeanstalkdAdapter.create(config, options)),
    beanstalkdLoss(options),
  );
}
