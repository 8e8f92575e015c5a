/**
 * Competing workers against BullMQ's PostgreSQL backend: one queue, and BullMQ's clients (a Queue,
 * a Worker per contract worker) with a pool of their own per lane, as a fleet of worker processes
 * has them. Lane 0 owns the schema and runs BullMQ's stalled-job sweep, which a deployment runs in
 * one place; it also sets the adapter's clock row. Every other lane sends everything its commands
 * do (the fetch, the finish calls, the adapter's own rows) over its own connections: `laneUrls` may
 * send one lane's through a proxy. BullMQ takes every instant from the client (clock.ts), so a
 * lane's command runs at its own `now`. The adapter's numbering (seq, tokens, the ledger) is
 * assigned under one in-process lock, so that its order is the order BullMQ took the commands in.
 */
import type { ConcurrentFactory } from '../../conformance/concurrent/adapter.ts';
import { lossAwareConcurrentFactory } from '../../conformance/profile/lossAware.ts';
import { openLanes } from '../ownedLanes.ts';
import type { OwnedLanes } from '../ownedLanes.ts';
import { postgresLoss } from '../postgresLoss.ts';
import { BullmqPostgresAdapter } from './adapter.ts';
import type { BullmqFactoryOptions } from './adapter.ts';

/** Options of the concurrent factory. */
export interface BullmqConcurrentOptions extends BullmqFactoryOptions {
  /** Per lane, another postgres:// URL for that lane's connections (a fault proxy), else `target`. */
  readonly laneUrls?: readonly (string | undefined)[];
}

/** BullMQ (PostgreSQL) behind the concurrent interface: a BullmqPostgresAdapter per lane, lane 0 the owner. */
export type BullmqPostgresConcurrentAdapter = OwnedLanes<BullmqPostgresAdapter>;

/** A factory of concurrent adapters over BullMQ's PostgreSQL backend: a new schema each, with BullMQ's clients per worker. */
export function bullmqPostgresConcurrentFactory(
  version: string,
  options: BullmqConcurrentOptions = {},
): ConcurrentFactory {
  const target = options.target ?? '';
  const url = (lane: number): string => options.laneUrls?.[lane] ?? target;
  return lossAwareConcurrentFactory(async (config, { workers }) => {
    const owner = await BullmqPostgresAdapter.create(config, { ...options, target: url(0) }, version);
    return openLanes(owner, workers, (lane) => owner.lane(url(lane)));
  }, postgresLoss(target));
}
