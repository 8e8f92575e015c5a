/**
 * The pg-boss recorder on a real PostgreSQL: a small run (send, fetch, complete, a fail retried,
 * a stale complete that pg-boss refuses, touch, cancel, an empty fetch) is recorded as valid
 * `jobcheck-history/1`, and its audit passes. Needs PGHOST (`bash scripts/pg.sh npx vitest run <this file>`).
 */
import { randomBytes } from 'node:crypto';
import { PgBoss } from 'pg-boss';
import { afterAll, describe, expect, it } from 'vitest';
import { postgresMissing, postgresRequired } from '../../conformance/postgresEnv.ts';
import { loadPg } from '../../impl/postgres/loadPg.ts';
import { HistoryWriter } from '../historyWriter.ts';
import { audit, historyLines, scratch } from '../recorderAudit.ts';
import { recordPgBoss } from './recorder.ts';

const missing = postgresMissing();
const QUEUE = 'rec';

describe.skipIf(missing !== undefined && !postgresRequired())('the pg-boss recorder', () => {
  const files = scratch();
  const schema = `jcrec_${randomBytes(6).toString('hex')}`;
  let boss: PgBoss | undefined;
  afterAll(async () => {
    await boss?.stop({ graceful: false, close: true });
    const pool = new (loadPg('the pg-boss recorder test').Pool)({ max: 1 });
    await pool.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await pool.end();
    files.remove();
  });

  it('records a small run whose audit passes, every line valid', async () => {
    if (missing !== undefined) throw new Error(missing);
    boss = new PgBoss({ schema, supervise: false, schedule: false, max: 2 } as ConstructorParameters<typeof PgBoss>[0]);
    boss.on('error', () => undefined);
    await boss.start();
    await boss.createQueue(QUEUE, { expireInSeconds: 30, retryLimit: 2, retryDelay: 0 });
    const writer = HistoryWriter.open({ path: files.file('run.jsonl'), source: 'pg-boss' });
    const p = recordPgBoss(boss, writer, { worker: 'p' });
    const w = recordPgBoss(boss, writer, { worker: 'w1' });
    const ids: string[] = [];
    for (const n of [1, 2, 3]) ids.push((await p.send(QUEUE, { n })) as string);
    const [a] = await w.fetch<{ n: number }>(QUEUE);
    expect(a?.data).toEqual({ n: 1 });
    await w.complete(QUEUE, a as { id: string; retryCount: number });
    const [b] = await w.fetch(QUEUE);
    await w.fail(QUEUE, b as { id: string; retryCount: number }, { message: 'transient' });
    const two = await w.fetch(QUEUE, { batchSize: 2 });
    const again = two.find((j) => j.id === ids[1]);
    const c = two.find((j) => j.id === ids[2]);
    expect(again?.retryCount).toBe(1);
    // The first attempt's complete names an attempt pg-boss has moved past: it affects nothing.
    expect(await w.complete(QUEUE, b as { id: string; retryCount: number })).toMatchObject({ affected: 0 });
    await w.complete(QUEUE, (again as { id: string }).id);
    await w.touch(QUEUE, (c as { id: string }).id);
    await w.cancel(QUEUE, c as { id: string; retryCount: number });
    expect(await w.fetch(QUEUE)).toEqual([]);
    await writer.close();

    const ops = historyLines(files.file('run.jsonl')).flatMap((l) => (l.type === 'op' ? [l] : []));
    const name = (id: string | undefined): string => (id === undefined ? '-' : `j${ids.indexOf(id) + 1}`);
    expect(
      ops.map((o) => `${o.op}:${name(o.job)}:${o.token === undefined ? '-' : o.token.slice(-2)}:${o.outcome}`),
    ).toEqual([
      'submit:j1:-:ok',
      'submit:j2:-:ok',
      'submit:j3:-:ok',
      'claim:j1::0:ok',
      'ack:j1::0:ok',
      'claim:j2::0:ok',
      'fail:j2::0:ok',
      ...two.map((j) => (j.id === ids[1] ? 'claim:j2::1:ok' : 'claim:j3::0:ok')),
      'ack:j2::0:not_affected',
      'ack:j2::1:ok',
      'extend:j3::0:ok',
      'fail:j3::0:ok',
      'claim:-:-:ok',
    ]);
    const result = await audit([files.file('run.jsonl')]);
    expect(result.verdict, JSON.stringify(result.findings)).toBe('pass');
    expect(result.jobs).toBe(3);
  });
});
