/**
 * Competing workers made of sequential adapters on one queue, a lane each: lane 0 owns what the
 * queue shares (its schema, its clock, the snapshot) and the other lanes joined it (pg-boss's and
 * BullMQ on PostgreSQL's concurrent.ts). A lane's requests go to its own adapter, whose
 * connections are its own; closing ends every other lane before the owner, which removes the queue.
 */
import type { Adapter } from '../conformance/adapter.ts';
import type { ConcurrentAdapter } from '../conformance/concurrent/adapter.ts';
import type { Reply, Snapshot } from '../contract/index.ts';

/** Lanes of one queue behind the concurrent interface; see the top of the file. */
export class OwnedLanes<A extends Adapter> implements ConcurrentAdapter {
  readonly concurrent = true;
  constructor(readonly lanes: readonly [A, ...A[]]) {}

  get name(): string {
    return this.lanes[0].name;
  }
  execute(lane: number, command: unknown): Promise<Reply> {
    return (this.lanes[lane % this.lanes.length] as A).execute(command);
  }
  snapshot(): Promise<Snapshot> {
    return this.lanes[0].snapshot();
  }
  /** Closes every other lane, then the owner. Idempotent when each lane's close is. */
  async close(): Promise<void> {
    await Promise.allSettled(this.lanes.slice(1).map((l) => l.close()));
    await this.lanes[0].close();
  }
}

/** The owner and `workers − 1` lanes joined to it (`join(i)` makes lane i); on a failure, closes what was opened and throws. */
export async function openLanes<A extends Adapter>(
  owner: A,
  workers: number,
  join: (lane: number) => Promise<A>,
): Promise<OwnedLanes<A>> {
  const lanes: [A, ...A[]] = [owner];
  try {
    for (let i = 1; i < Math.max(1, workers); i++) lanes.push(await join(i));
  } catch (error) {
    await new OwnedLanes(lanes).close();
    throw error;
  }
  return new OwnedLanes(lanes);
}
