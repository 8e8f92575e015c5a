/**
 * The beanstalkd recorder on a real server: a small run (put, reserve, delete, a release and its
 * second reservation, touch, bury, a reserve that times out, a delete of a job already gone) is
 * recorded as valid `jobcheck-history/1`, and its audit passes. Needs JOBCHECK_BEANSTALKD_ADDR
 * (`bash scripts/brokers.sh beanstalkd -- npx vitest run <this file>`).
 */
import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { HistoryWriter } from '../historyWriter.ts';
import { audit, historyLines, scratch } from '../recorderAudit.ts';
import { BeanstalkdConnection } from './BeanstalkdConnection.ts';
import { beanstalkdMissing } from './beanstalkdEnv.ts';
import { recordBeanstalkd } from './recorder.ts';

const missing = beanstalkdMissing();
const required = (process.env['CI'] ?? '') !== '';

describe.skipIf(missing !== undefined && !required)('the beanstalkd recorder', () => {
  const files = scratch();
  const opened: BeanstalkdConnection[] = [];
  afterAll(async () => {
    for (const c of opened) await c.close();
    files.remove();
  });

  it('records a small run whose audit passes, every line valid', async () => {
    if (missing !== undefined) throw new Error(missing);
    const [host, port] = (process.env['JOBCHECK_BEANSTALKD_ADDR'] as string).split(':') as [string, string];
    const tube = `rec-${randomBytes(6).toString('hex')}`;
    const writer = HistoryWriter.open({ path: files.file('run.jsonl'), source: 'beanstalkd' });
    const open = async (worker: string, ttrSeconds?: number) => {
      const c = await BeanstalkdConnection.open(host, Number(port));
      opened.push(c);
      const r = recordBeanstalkd(c, writer, ttrSeconds === undefined ? { worker } : { worker, ttrSeconds });
      await r.send(`use ${tube}`);
      await r.send(`watch ${tube}`);
      await r.send('ignore default');
      return r;
    };
    const p = await open('p');
    const w = await open('w1', 60);
    const ids: string[] = [];
    for (const n of [1, 2, 3]) ids.push((await p.send(`put 0 0 60 5`, `job-${n}`)).head.split(' ')[1] as string);
    const reserve = async (): Promise<string> => (await w.send('reserve-with-timeout 0')).head;
    expect(await reserve()).toBe(`RESERVED ${ids[0]} 5`);
    expect((await w.send(`delete ${ids[0]}`)).head).toBe('DELETED');
    expect(await reserve()).toBe(`RESERVED ${ids[1]} 5`);
    expect((await w.send(`release ${ids[1]} 0 0`)).head).toBe('RELEASED');
    expect(await reserve()).toBe(`RESERVED ${ids[1]} 5`);
    expect((await w.send(`delete ${ids[1]}`)).head).toBe('DELETED');
    expect(await reserve()).toBe(`RESERVED ${ids[2]} 5`);
    expect((await w.send(`touch ${ids[2]}`)).head).toBe('TOUCHED');
    expect((await w.send(`bury ${ids[2]} 0`)).head).toBe('BURIED');
    expect(await reserve()).toBe('TIMED_OUT');
    expect((await w.send(`delete ${ids[1]}`)).head).toBe('NOT_FOUND');
    await writer.close();

    const lines = historyLines(files.file('run.jsonl'));
    const ops = lines.flatMap((l) => (l.type === 'op' ? [l] : []));
    const name = (id: string | undefined): string => (id === undefined ? '-' : `j${ids.indexOf(id) + 1}`);
    expect(ops.map((o) => `${o.op}:${name(o.job)}:${o.outcome}`)).toEqual([
      'submit:j1:ok',
      'submit:j2:ok',
      'submit:j3:ok',
      'claim:j1:ok',
      'ack:j1:ok',
      'claim:j2:ok',
      'fail:j2:ok',
      'claim:j2:ok',
      'ack:j2:ok',
      'claim:j3:ok',
      'extend:j3:ok',
      'fail:j3:ok',
      'claim:-:ok',
      'ack:j2:not_found',
    ]);
    // Two reservations of one job are two tokens; a settle names its reservation's.
    expect(ops[7]?.token).not.toBe(ops[5]?.token);
    expect([ops[6]?.token, ops[8]?.token]).toEqual([ops[5]?.token, ops[7]?.token]);
    // The lease is the reserve's return + the ttr the worker named (60 s).
    expect((ops[3]?.leaseUntil ?? 0) - (ops[3]?.returnedAt ?? 0)).toBe(60_000);
    const result = await audit([files.file('run.jsonl')]);
    expect(result.verdict, JSON.stringify(result.findings)).toBe('pass');
    expect(result.jobs).toBe(3);
  });
});
