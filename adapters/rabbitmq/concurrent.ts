/**
 * Competing workers against RabbitMQ: each worker of the concurrent campaign (w1, w2, …: the
 * worker a request names) holds a channel of its own, on one connection, so that requests of
 * different workers are in flight at the broker at once, as in a fleet of worker processes.
 *
 * Channels are per worker, not per lane, because that is what a real worker does: it acks on the
 * channel it received the delivery on. The campaign's lanes are the harness's connections, and a
 * settlement travels on any lane in its holder's name (conformance/concurrent/generate.ts): sent
 * on the channel of the lane that carried it, a tag would name nothing, or another delivery, only
 * because the harness picked another lane, which no worker does. A worker whose channel the server
 * closed (consumer_timeout) opens a new one at its next claim, whose delivery tags start again at
 * 1, as a worker's reconnect loop does; an ack it still sends for the old delivery goes to that new
 * channel (adapter.ts). With `laneUrls`, a worker's channel opened for a request on lane i is on a
 * connection of lane i's own to laneUrls[i] (a fault proxy that cuts one worker off), else on the
 * shared one.
 */
import type { ConcurrentAdapter, ConcurrentFactory } from '../../conformance/concurrent/adapter.ts';
import { RabbitmqAdapter, rabbitmqLoss } from './adapter.ts';
import { lossAwareConcurrentFactory } from '../../conformance/profile/lossAware.ts';
import type { RabbitmqFactoryOptions } from './adapter.ts';
import { SharedConnections } from './SharedConnection.ts';

/**
 * A factory of concurrent RabbitMQ adapters whose workers are channels, the instances on a server
 * all on one connection (`options.connections`, or the factory's own). Connects only when called.
 */
export function rabbitmqConcurrentFactory(options: RabbitmqFactoryOptions = {}): ConcurrentFactory {
  const connections = options.connections ?? new SharedConnections();
  return lossAwareConcurrentFactory(async (config): Promise<ConcurrentAdapter> => {
    const adapter = await RabbitmqAdapter.create(config, { ...options, connections });
    return {
      name: adapter.name,
      concurrent: true,
      // The request's worker picks the channel (execute's default), whichever lane carries it; the
      // lane picks the connection a channel it opens is on.
      execute: (lane, command) => adapter.execute(command, undefined, lane),
      snapshot: () => adapter.snapshot(),
      close: () => adapter.close(),
    };
  }, rabbitmqLoss(options));
}
