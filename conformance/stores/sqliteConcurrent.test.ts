/**
 * The SQLite store behind concurrent lanes, each a worker thread with its own connection to one
 * file: two lanes claiming in the same round get distinct jobs, and a hand-made contention (eight
 * claims at once on one ready job) delivers it once from the correct store, while the broken
 * variant that claims in a deferred transaction answers some of them with a store-error reply
 * (SQLITE_BUSY): a departure the harness sees, never a silent retry.
 */
import { describe, expect, it } from 'vitest';
import { SqliteStore } from '../../impl/sqlite/index.ts';
import { sqliteVariant } from '../broken/index.ts';
import type { SqliteVariant } from '../broken/index.ts';
import {
  CONTENTION_CONFIG as config,
  claimContention,
  contentionProblems,
  twoLaneClaimProblems,
} from './laneContention.ts';
import { sqliteConcurrentFactory } from './sqliteConcurrent.ts';

const deferredClaim = sqliteVariant('deferred-claim') as SqliteVariant;

describe('the SQLite store behind concurrent lanes (a thread and a connection per lane)', () => {
  it('gives two lanes claiming in the same round distinct jobs, held by the lane that was told so', async () => {
    expect(await twoLaneClaimProblems(sqliteConcurrentFactory())).toEqual([]);
  }, 30_000);

  it('delivers one ready job once when eight lanes claim it at once, and answers the others with no job', async () => {
    expect(contentionProblems(await claimContention(sqliteConcurrentFactory(), 8, 6))).toEqual([]);
  }, 30_000);

  it('shows the deferred claim as store-error replies (SQLITE_BUSY) under the same contention, never a silent retry', async () => {
    // Campaigns of 30 rounds, up to 10 of them, until one shows an error: on a loaded machine (or
    // a fast disk) the lanes' threads may take turns for many rounds, no two claims overlapping.
    let r = await claimContention(
      sqliteConcurrentFactory({ Store: deferredClaim.Store, module: deferredClaim.module }),
      8,
      30,
    );
    for (let campaign = 1; campaign < 10 && r.errors.length === 0; campaign++)
      r = await claimContention(
        sqliteConcurrentFactory({ Store: deferredClaim.Store, module: deferredClaim.module }),
        8,
        30,
      );
    expect(r.errors.length).toBeGreaterThan(0);
    expect(r.errors[0]).toMatch(/^SQLITE_BUSY/);
    expect(contentionProblems(r)).not.toEqual([]);
  }, 30_000);

  it('refuses a store class its lanes cannot load, a lane out of range and a bad lane count with typed errors naming the value', async () => {
    expect(() => sqliteConcurrentFactory({ Store: deferredClaim.Store })).toThrow(
      expect.objectContaining({ code: 'store_not_loadable', message: expect.stringContaining('DeferredClaim') }),
    );
    class Unexported extends SqliteStore {}
    await expect(
      sqliteConcurrentFactory({ Store: Unexported, module: deferredClaim.module })(config, { workers: 2 }),
    ).rejects.toMatchObject({ code: 'store_not_loadable', message: expect.stringContaining('"Unexported"') });
    await expect(sqliteConcurrentFactory()(config, { workers: 0 })).rejects.toMatchObject({
      code: 'bad_workers',
      message: expect.stringContaining('0'),
    });
    const adapter = await sqliteConcurrentFactory()(config, { workers: 1 });
    try {
      await expect(adapter.execute(3, { type: 'tick', now: 0 })).rejects.toMatchObject({
        code: 'bad_lane',
        message: expect.stringContaining('lane 3'),
      });
    } finally {
      await adapter.close();
    }
  }, 30_000);
});
