/**
 * Competing workers against JetStream: one adapter whose lanes are separate NATS connections, as
 * separate worker processes would have, all pulling from the same durable consumer. A lane's
 * request goes out on its own connection at once, so the broker sees the lanes' pulls, acks and
 * naks interleaved as it receives them; the adapter's own records (tokens, the effect ledger) are
 * shared, as one worker fleet's database would be. A request that gets no reply within the
 * adapter's broker timeout rejects with IndefiniteOutcome.
 */
import type { ConcurrentAdapter, ConcurrentFactory } from '../../conformance/concurrent/adapter.ts';
import { IndefiniteOutcome } from '../../conformance/concurrent/adapter.ts';
import type { Reply, Snapshot } from '../../contract/index.ts';
import { NatsJetStreamAdapter, natsLoss } from './adapter.ts';
import { lossAwareConcurrentFactory } from '../../conformance/profile/lossAware.ts';
import type { NatsFactoryOptions } from './adapter.ts';
import { messageOf } from '../../contract/index.ts';

/** JetStream behind the concurrent interface; see the top of the file. */
export class NatsConcurrentAdapter implements ConcurrentAdapter {
  readonly concurrent = true;
  constructor(readonly adapter: NatsJetStreamAdapter) {}

  get name(): string {
    return this.adapter.name;
  }

  async execute(lane: number, command: unknown): Promise<Reply> {
    try {
      return await this.adapter.executeOn(lane, command);
    } catch (error) {
      // A timeout or a closed connection: whether the broker acted on the request is unknown.
      const text = error instanceof Error ? `${error.name} ${error.message}` : '';
      if (/timeout/i.test(text)) throw new IndefiniteOutcome('timeout', `lane ${lane}: ${messageOf(error)}`);
      if (/closed|disconnect/i.test(text)) throw new IndefiniteOutcome('closed', `lane ${lane}: ${messageOf(error)}`);
      throw error;
    }
  }

  snapshot(): Promise<Snapshot> {
    return this.adapter.snapshot();
  }

  close(): Promise<void> {
    return this.adapter.close();
  }
}

/** A factory of concurrent JetStream adapters: a new stream each, with one connection per worker. */
export function natsConcurrentFactory(options: NatsFactoryOptions = {}): ConcurrentFactory {
  return lossAwareConcurrentFactory(
    async (config, { workers }) =>
      new NatsConcurrentAdapter(await NatsJetStreamAdapter.create(config, options, Math.max(1, workers))),
    natsLoss(options),
  );
}
