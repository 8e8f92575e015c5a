/**
 * What a group's BEGIN read (impl/postgres/Prefetch.ts) answers after the transaction's own
 * writes, and where it must miss rather than guess: past a LIMIT's cut, for a row made claimable
 * whose columns were not read, after a write it cannot follow. Pure; no server needed.
 */
import { describe, expect, it } from 'vitest';
import { Prefetch } from '../../impl/postgres/Prefetch.ts';
import type { Job } from '../../impl/durable/index.ts';

const job = (seq: number, over: Partial<Job> = {}): Job => ({
  seq,
  id: `j${seq}`,
  account: `a${seq}`,
  key: `k${seq}`,
  amount: 1,
  deadline: 1000,
  status: 'ready',
  attempts: 0,
  token: null,
  owner: null,
  leaseUntil: null,
  notBefore: null,
  reason: null,
  lastError: null,
  claimable: true,
  ...over,
});

const claimed = (j: Job, token: number): Job => ({
  ...j,
  status: 'running',
  attempts: 1,
  token,
  owner: 'w',
  leaseUntil: 50,
  claimable: false,
});

describe('what BEGIN read, after the transaction wrote', () => {
  it('answers the next claimable head after each claim, and misses once the LIMIT is used up', () => {
    const p = new Prefetch();
    p.setClaimable([job(1), job(2)], 2);
    expect(p.claimHead()?.seq).toBe(1);
    p.wrote(claimed(job(1), 7));
    expect(p.claimHead()?.seq).toBe(2);
    p.wrote(claimed(job(2), 8));
    expect(p.claimHead()).toBeUndefined();
  });

  it('misses when the claimable job it knows comes after the cut, where an unread one may come first', () => {
    const p = new Prefetch();
    p.setClaimable([job(5)], 1);
    p.wrote(claimed(job(5), 7));
    p.wrote(job(9));
    expect(p.claimHead()).toBeUndefined();
  });

  it('answers no claimable job when BEGIN read fewer rows than its LIMIT and every one was claimed', () => {
    const p = new Prefetch();
    p.setClaimable([job(1)], 3);
    p.wrote(claimed(job(1), 7));
    expect(p.claimHead()).toBeNull();
  });

  it('puts a job written claimable before the rows read, and misses for one made claimable by seq alone that was not read', () => {
    const p = new Prefetch();
    p.setClaimable([job(5)], 2);
    p.wrote(job(3));
    expect(p.claimHead()?.seq).toBe(3);
    p.madeClaimable(2);
    expect(p.claimHead()).toBeUndefined();
  });

  it('finds a delivery by its token in the written jobs, and none once the ack ended it', () => {
    const p = new Prefetch();
    p.setToken(7, undefined);
    expect(p.byToken(7)).toBeNull();
    p.wrote(claimed(job(1), 7));
    expect(p.byToken(7)?.seq).toBe(1);
    p.wrote({ ...job(1), status: 'done', attempts: 1, claimable: false });
    expect(p.byToken(7)).toBeNull();
  });

  it("answers an account's next unresolved job after its first was acked, and misses past the cut", () => {
    const p = new Prefetch();
    p.setHeads(
      'a',
      [
        { seq: 1, status: 'running' },
        { seq: 4, status: 'ready' },
      ],
      2,
    );
    expect(p.accountHead('a')?.seq).toBe(1);
    p.wrote({ ...job(1, { account: 'a' }), status: 'done', attempts: 1, claimable: false });
    expect(p.accountHead('a')).toEqual({ seq: 4, status: 'ready' });
    p.wrote({ ...job(4, { account: 'a' }), status: 'dead', reason: 'deadline', claimable: false });
    expect(p.accountHead('a')).toBeUndefined();
  });

  it('lists the jobs due by an earlier now from the rows read for a later one, with the written ones as written', () => {
    const p = new Prefetch();
    p.setDue(10, [job(1, { deadline: 5 }), job(2, { deadline: 9 })]);
    expect(p.due(6)?.map((j) => j.seq)).toEqual([1]);
    p.wrote({ ...job(1, { deadline: 5 }), status: 'dead', reason: 'deadline', claimable: false });
    expect(p.due(10)?.map((j) => j.seq)).toEqual([2]);
    expect(p.due(11)).toBeUndefined();
  });

  it('answers nothing after a write it cannot follow', () => {
    const p = new Prefetch();
    p.setClaimable([job(1)], 2);
    p.setToken(7, undefined);
    p.unknownWrite();
    expect(p.claimHead()).toBeUndefined();
    expect(p.byToken(7)).toBeUndefined();
  });
});
