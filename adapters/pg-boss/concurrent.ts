/**
 * Competing workers against pg-boss: one queue, and a pg-boss instance with a pool of its own per
 * lane, as a fleet of worker processes has them. Lane 0 owns the schema, the TestClock and the
 * maintenance pass (`supervise`), which a deployment runs in one place; every other lane's pg-boss
 * reads the same time (its sessions read the clock table, its JavaScript the owner's clock) and
 * sends everything its commands do (the fetch, the fenced touch and complete, the adapter's own
 * rows) over its own connections: `laneUrls` may send one lane's through a proxy. Moving the clock
 * is not a worker's message and goes over lane 0's connections. The adapter's numbering (seq,
 * tokens, the ledger) is assigned under one in-process lock, so that its order is the order pg-boss
 * took the commands in; a request takes effect at the clock pg-boss reads when it runs.
 */
import type { ConcurrentFactory } from '../../conformance/concurrent/adapter.ts';
import { lossAwareConcurrentFactory } from '../../conformance/profile/lossAware.ts';
import { openLanes } from '../ownedLanes.ts';
import type { OwnedLanes } from '../ownedLanes.ts';
import { postgresLoss } from '../postgresLoss.ts';
import { PgBossAdapter } from './adapter.ts';
import type { PgBossFactoryOptions } from './adapter.ts';

/** Options of the concurrent factory. */
export interface PgBossConcurrentOptions extends PgBossFactoryOptions {
  /** Per lane, another postgres:// URL for that lane's connections (a fault proxy), else `target`. */
  readonly laneUrls?: readonly (string | undefined)[];
}

/** pg-boss behind the concurrent interface: a PgBossAdapter per lane, lane 0 the owner. */
export type PgBossConcurrentAdapter = OwnedLanes<PgBossAdapter>;

/** A factory of concurrent pg-boss adapters: a new schema each, with a pg-boss instance per worker. */
export function pgBossConcurrentFactory(options: PgBossConcurrentOptions = {}): ConcurrentFactory {
  const target = options.target ?? '';
  const url = (lane: number): string => options.laneUrls?.[lane] ?? target;
  return lossAwareConcurrentFactory(async (config, { workers }) => {
    const owner = await PgBossAdapter.create(config, { ...options, target: url(0) });
    return openLanes(owner, workers, (lane) => owner.lane(url(lane)));
  }, postgresLoss(target));
}
