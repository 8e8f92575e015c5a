/**
 * The guarded writes of impl/postgres/Tx.ts: a write made under a delivery its row no longer holds
 * fails its command with `lost_guard`, and nothing of that command's transaction is committed. A
 * transaction with one guarded write sends it with COMMIT and the server checks it (the statements
 * after the failed one, COMMIT among them, do not run): the ack and commit tests below. One with
 * several sends its writes first and checks their row counts before COMMIT: the group test, where
 * the failure lands on its own command alone and the group's other commands take effect. The
 * store's locking rules such a write out, so a subclass here writes under a wrong token or worker
 * on purpose.
 *
 * Needs a server (PGHOST; `npm run pg` starts one): in CI a missing server fails the file,
 * elsewhere it is skipped with that message.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Reply } from '../../contract/index.ts';
import type { Guard } from '../core/index.ts';
import type { Job } from '../durable/index.ts';
import type { PgPool } from './PgPool.ts';
import { PostgresStore } from './PostgresStore.ts';
import { PostgresStoreError } from './PostgresStoreError.ts';
import { postgresPool } from './schema.ts';
import { failedGuard, guardedSql } from './Tx.ts';
import type { Tx } from './Tx.ts';

const missing =
  (process.env['PGHOST'] ?? '') === '' ? 'no PostgreSQL server: PGHOST is not set (run `npm run pg`)' : undefined;
const config = { capacity: 100, maxAttempts: 3, leaseTicks: 100, backoffBase: 1, backoffCap: 4 };

/** Writes every guarded job row and ledger row of worker `bad` under a token its row never held. */
class WrongGuard extends PostgresStore {
  protected override save(tx: Tx, job: Job, guard?: Guard): Promise<void> {
    return super.save(tx, job, guard?.worker === 'bad' ? { ...guard, token: guard.token + 1000 } : guard);
  }

  protected override recordEffect(tx: Tx, job: Job, guard: Guard, balance: number, replaces?: boolean): Promise<void> {
    return super.recordEffect(
      tx,
      job,
      guard.worker === 'bad' ? { ...guard, worker: 'other' } : guard,
      balance,
      replaces,
    );
  }
}

const tokenOf = (reply: Reply): number => {
  if (!reply.ok || reply.type !== 'claim' || reply.job === null)
    throw new Error(`no delivery: ${JSON.stringify(reply)}`);
  return reply.job.token;
};

describe('a guarded write checked by the server', () => {
  it('fails when its write returns no row, naming the write, and passes when it returns one', () => {
    expect(guardedSql('UPDATE t SET a = 1 RETURNING a', 3)).toContain("'jobcheck_guard:3:'");
    const error = Object.assign(new Error('invalid input syntax for type integer: "jobcheck_guard:3:0"'), {
      code: '22P02',
    });
    expect(failedGuard(error)).toBe(3);
    expect(failedGuard(Object.assign(new Error('invalid input syntax for type integer: "x"'), { code: '22P02' }))).toBe(
      undefined,
    );
  });
});

if (missing !== undefined && (process.env['CI'] ?? '') !== '') {
  describe('PostgreSQL in CI', () => {
    it('has a server (the PostgreSQL tests never skip in CI)', () => {
      expect.fail(`${missing}; .ci/run wraps the tests in scripts/pg.sh`);
    });
  });
}

describe.skipIf(missing !== undefined)(
  `guarded writes on the server${missing === undefined ? '' : ` (skipped: ${missing})`}`,
  () => {
    let pool: PgPool;
    beforeAll(() => {
      pool = postgresPool('', { max: 2 });
    });
    afterAll(async () => {
      await pool.end();
    });

    const submitted = async (store: PostgresStore, worker: string, n = 1): Promise<number[]> => {
      const tokens: number[] = [];
      for (let i = 0; i < n; i++) {
        await store.execute({
          type: 'submit',
          id: `${worker}${i}`,
          account: `${worker}${i}`,
          key: 'k',
          amount: 5,
          deadline: 1000,
          now: 1,
        });
        tokens.push(tokenOf(await store.execute({ type: 'claim', worker, now: 1 })));
      }
      return tokens;
    };

    it('fails an ack whose job row no longer holds its token with lost_guard, and commits nothing of it', async () => {
      const store = await WrongGuard.create(pool, config);
      try {
        const [token] = await submitted(store, 'bad');
        const before = await store.snapshot();
        const error = await store
          .execute({ type: 'ack', worker: 'bad', token: token as number, now: 7 })
          .catch((e: unknown) => e);
        expect(error).toBeInstanceOf(PostgresStoreError);
        expect((error as PostgresStoreError).code).toBe('lost_guard');
        // Neither the clock (moved from 1 to 7 by this command) nor the counters nor the job changed.
        expect(await store.snapshot()).toEqual(before);
      } finally {
        await store.drop();
      }
    });

    it('fails a commit whose ledger insert finds its delivery gone with lost_guard, and leaves the balance as it was', async () => {
      const store = await WrongGuard.create(pool, config);
      try {
        const [token] = await submitted(store, 'bad');
        const before = await store.snapshot();
        const error = await store
          .execute({ type: 'commit', worker: 'bad', token: token as number, now: 3 })
          .catch((e: unknown) => e);
        expect((error as PostgresStoreError).code).toBe('lost_guard');
        expect(await store.snapshot()).toEqual(before);
      } finally {
        await store.drop();
      }
    });

    it('lands the failure on its own command when it ran in a group, and the group’s other commands take effect', async () => {
      const store = await WrongGuard.create(pool, config);
      try {
        const [good] = await submitted(store, 'good');
        const [bad] = await submitted(store, 'bad');
        // Sent together: the second waits while the first's group runs, or both form one group.
        const outcomes = await Promise.allSettled([
          store.execute({ type: 'ack', worker: 'good', token: good as number, now: 2 }),
          store.execute({ type: 'ack', worker: 'bad', token: bad as number, now: 2 }),
          store.execute({ type: 'tick', now: 2 }),
        ]);
        expect(outcomes[0]).toEqual({ status: 'fulfilled', value: { ok: true, type: 'ack', id: 'good0' } });
        expect(outcomes[1]?.status).toBe('rejected');
        expect(outcomes[2]).toEqual({ status: 'fulfilled', value: { ok: true, type: 'tick', clock: 2 } });
        const after = await store.snapshot();
        expect(after.jobs['good0']?.status).toBe('done');
        expect(after.jobs['bad0']?.status).toBe('running');
      } finally {
        await store.drop();
      }
    });
  },
);
