/**
 * A recorder for pg-boss: `recordPgBoss(boss)` wraps the PgBoss instance a team already uses, so
 * that its producers and workers write `jobcheck-history/1` (docs/history-format.md,
 * "Recording"): `send` as a submit, each job `fetch` returns as a claim (a fetch that returns none
 * as a claim naming no job), `complete` as ack, `fail` as fail, `cancel` as a fail to dead, `touch`
 * as extend, one line per job each call names.
 *
 * The mapping: pg-boss has no delivery token, so the token is the job's id with its `retryCount`
 * (the attempt a fetch handed out; a settle given a bare id is named by the attempt this recorder
 * saw fetched); the attempt is `retryCount` + 1; the lease ends at the fetch's return +
 * `expireInSeconds` (the latest it can end). A settle's outcome is pg-boss's count: `ok` when every
 * job it named was affected, `not_affected` when none was, `unknown` when some were (pg-boss says
 * not which); `send` answering no id is `not_created`. An error with a SQLSTATE is that refusal
 * (`pg_<code>`), any other `unknown` (the statement may have committed). Every call goes to pg-boss
 * unchanged, with its result and its error. `work()` handlers are not recorded (pg-boss settles
 * their jobs inside): record workers that fetch.
 */
import type { PgBoss } from 'pg-boss';
import type { HistoryWriter, OpFields } from '../historyWriter.ts';
import { outcomeCode, payloadHash } from '../historyWriter.ts';

/** Who records. */
export interface PgBossRecorderOptions {
  /** The worker (or producer) every line names. */
  readonly worker: string;
}

/** What a settle names: a bare id, an attempt, or a list of either. */
type Target = string | { readonly id: string; readonly retryCount: number };

/** The outcome of a failed call: a SQLSTATE refusal, or `unknown`. Pure. */
export function pgBossOutcome(error: unknown): string {
  const code: unknown = (error as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) ? outcomeCode(`pg_${code}`) : 'unknown';
}

/** How many jobs a settle affected, when pg-boss said. Pure. */
const affectedOf = (response: unknown): number | undefined => {
  const n: unknown = (response as { affected?: unknown } | undefined)?.affected;
  return typeof n === 'number' ? n : undefined;
};

/** `boss` with its submits, claims and settles recorded; the same instance type. */
export function recordPgBoss<B extends PgBoss>(boss: B, writer: HistoryWriter, options: PgBossRecorderOptions): B {
  const { worker } = options;
  /** The attempt and lease length of each job this recorder saw fetched and not yet settled. */
  const fetched = new Map<string, { retryCount: number; expireMs: number }>();

  const send = (...args: unknown[]): Promise<string | null> => {
    const request = typeof args[0] === 'object' && args[0] !== null ? (args[0] as Record<string, unknown>) : undefined;
    const data = request === undefined ? args[1] : request['data'];
    const opts = (request === undefined ? args[2] : request['options']) as { id?: unknown } | null | undefined;
    const base: Partial<OpFields> & { op: 'submit'; worker: string } = {
      op: 'submit',
      worker,
      payloadHash: payloadHash(JSON.stringify(data ?? null)),
    };
    if (typeof opts?.id === 'string') base.job = opts.id;
    return writer.recordCall(
      base,
      () => (boss.send as (...a: unknown[]) => Promise<string | null>)(...args),
      (id) => (id === null ? { outcome: 'not_created' } : { job: id }),
      pgBossOutcome,
    );
  };

  const fetch = async (...args: unknown[]): Promise<unknown> => {
    const invokedAt = writer.now();
    let jobs: unknown;
    try {
      jobs = await (boss.fetch as (...a: unknown[]) => Promise<unknown>)(...args);
    } catch (error) {
      writer.op({ op: 'claim', worker, invokedAt, returnedAt: writer.now(), outcome: pgBossOutcome(error) });
      throw error;
    }
    const returnedAt = writer.now();
    const list = Array.isArray(jobs)
      ? (jobs as { id: string; retryCount: number; expireInSeconds?: number; data?: unknown }[])
      : [];
    if (list.length === 0) writer.op({ op: 'claim', worker, invokedAt, returnedAt, outcome: 'ok' });
    for (const job of list) {
      const fields: Partial<OpFields> = {
        job: job.id,
        token: `${job.id}:${job.retryCount}`,
        attempt: job.retryCount + 1,
        payloadHash: payloadHash(JSON.stringify(job.data ?? null)),
      };
      if (typeof job.expireInSeconds === 'number') {
        fields.leaseUntil = returnedAt + job.expireInSeconds * 1000;
        fetched.set(job.id, { retryCount: job.retryCount, expireMs: job.expireInSeconds * 1000 });
      }
      writer.op({ op: 'claim', worker, invokedAt, returnedAt, outcome: 'ok', ...fields });
    }
    return jobs;
  };

  /** A settle of every job `target` names, one line each. */
  const settle =
    (method: 'complete' | 'fail' | 'cancel' | 'touch', line: () => { op: 'ack' | 'fail' | 'extend'; next?: 'dead' }) =>
    async (name: string, target: Target | Target[], ...rest: unknown[]): Promise<unknown> => {
      const targets = (Array.isArray(target) ? target : [target]).map((t) => {
        const id = typeof t === 'string' ? t : t.id;
        const retryCount = typeof t === 'string' ? fetched.get(id)?.retryCount : t.retryCount;
        return { id, ...(retryCount === undefined ? {} : { token: `${id}:${retryCount}` }) };
      });
      const invokedAt = writer.now();
      const record = (outcome: string): void => {
        const returnedAt = writer.now();
        for (const t of targets) {
          const extend = line().op === 'extend' ? fetched.get(t.id)?.expireMs : undefined;
          writer.op({
            ...line(),
            worker,
            invokedAt,
            returnedAt,
            outcome,
            job: t.id,
            ...(t.token === undefined ? {} : { token: t.token }),
            ...(extend === undefined ? {} : { leaseUntil: returnedAt + extend }),
          });
          if (outcome === 'ok' && method !== 'touch') fetched.delete(t.id);
        }
      };
      let response: unknown;
      try {
        response = await (boss[method] as (...a: unknown[]) => Promise<unknown>)(name, target, ...rest);
      } catch (error) {
        record(pgBossOutcome(error));
        throw error;
      }
      const affected = affectedOf(response);
      record(
        affected === undefined
          ? 'unknown'
          : affected >= targets.length
            ? 'ok'
            : affected === 0
              ? 'not_affected'
              : 'unknown',
      );
      return response;
    };

  const own: Record<PropertyKey, unknown> = {
    send,
    fetch,
    complete: settle('complete', () => ({ op: 'ack' })),
    fail: settle('fail', () => ({ op: 'fail' })),
    cancel: settle('cancel', () => ({ op: 'fail', next: 'dead' })),
    touch: settle('touch', () => ({ op: 'extend' })),
  };
  return new Proxy(boss, {
    get: (t, p) => {
      if (Object.hasOwn(own, p)) return own[p];
      const v = Reflect.get(t, p, t);
      return typeof v === 'function' ? v.bind(t) : v;
    },
  });
}
