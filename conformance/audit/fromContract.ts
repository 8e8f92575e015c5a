/**
 * A history of contract commands (the concurrent runner's, jobStoreRoundHistory's, a Jepsen
 * export read back) written as `jobcheck-history/1` lines: how the project's own stores are
 * recorded for an audit. The broker's clock is the commands' `now`; an operation's time is
 * `now + instant / (last instant + 1)`, so that time keeps the history's real-time order while a
 * comparison with a lease or a deadline (whole ticks) is the contract's own (`now >= leaseUntil`).
 *
 * A commit, ack or fail names its job through the token's claim; a token whose claim got no reply
 * names the job `token:<n>`, which the audit reports as a token never handed out. A tick and the
 * final snapshot are no client operations and are not written (the broker's clock is implicit);
 * a request with no reply is an invoke line without its return (outcome unknown). Pure.
 */
import { HISTORY_FORMAT, type HistoryHeader } from '../../contract/history.ts';
import type { History } from '../concurrent/history.ts';

type Obj = Record<string, unknown>;
const asObj = (v: unknown): Obj => (typeof v === 'object' && v !== null ? (v as Obj) : {});

/** What the header says beside the format. */
export type ContractHeader = Omit<HistoryHeader, 'type' | 'format'>;

/** The lines (without newlines) of `history` in `jobcheck-history/1`, header and end line included. Pure. */
export function contractHistoryLines(history: History<unknown, unknown>, header: ContractHeader = {}): string[] {
  const ops = [...history.operations].sort((a, b) => a.invoked - b.invoked || a.id - b.id);
  let last = 0;
  for (const op of ops) last = Math.max(last, op.invoked, op.returned ?? 0);
  const scale = last + 1;
  const jobOfToken = new Map<number, string>();
  const payloadOf = new Map<string, Obj>();
  for (const op of ops) {
    const c = asObj(op.input);
    const r = asObj(op.output);
    if (c.type === 'submit' && r.ok === true && typeof c.id === 'string' && !payloadOf.has(c.id))
      payloadOf.set(c.id, c);
    const job = asObj(r.job);
    if (c.type === 'claim' && r.ok === true && typeof job.id === 'string' && typeof job.token === 'number')
      jobOfToken.set(job.token, job.id);
  }
  const lines: string[] = [JSON.stringify({ type: 'header', format: HISTORY_FORMAT, timeUnit: 'tick', ...header })];
  for (const op of ops) {
    const c = asObj(op.input);
    const now = typeof c.now === 'number' ? c.now : 0;
    const at = (instant: number): number => now + instant / scale;
    const fields = lineFields(c, asObj(op.output), op.returned !== undefined, jobOfToken, payloadOf);
    if (fields === undefined) continue;
    const id = `op${op.id}`;
    if (op.returned === undefined)
      lines.push(JSON.stringify({ type: 'invoke', id, op: c.type, at: at(op.invoked), ...fields.request }));
    else
      lines.push(
        JSON.stringify({
          type: 'op',
          id,
          op: c.type,
          invokedAt: at(op.invoked),
          returnedAt: at(op.returned),
          outcome: fields.outcome,
          ...fields.request,
          ...fields.reply,
        }),
      );
  }
  lines.push(JSON.stringify({ type: 'end', lines: lines.length }));
  return lines;
}

const def = <T>(k: string, v: T | undefined): Obj => (v === undefined ? {} : { [k]: v });

function lineFields(
  c: Obj,
  r: Obj,
  returned: boolean,
  jobOfToken: ReadonlyMap<number, string>,
  payloadOf: ReadonlyMap<string, Obj>,
): { request: Obj; reply: Obj; outcome: string } | undefined {
  const outcome = !returned ? 'unknown' : r.ok === true ? 'ok' : typeof r.code === 'string' ? r.code : 'refused';
  const worker = typeof c.worker === 'string' ? { worker: c.worker } : {};
  const payloadHash = (p: Obj): string => JSON.stringify([p.account, p.key, p.amount, p.deadline]);
  switch (c.type) {
    case 'submit':
      return {
        request: {
          job: c.id,
          ...def('account', c.account),
          ...def('key', c.key),
          ...def('deadline', c.deadline),
          payloadHash: payloadHash(c),
        },
        reply: {},
        outcome,
      };
    case 'claim': {
      const d = asObj(r.job);
      if (typeof d.id !== 'string') return { request: worker, reply: {}, outcome };
      const p = asObj(d.payload);
      return {
        request: worker,
        reply: {
          job: d.id,
          token: String(d.token),
          ...def('attempt', d.attempt),
          ...def('leaseUntil', d.leaseUntil),
          ...def('account', p.account),
          ...def('key', p.key),
          ...def('deadline', p.deadline),
        },
        outcome,
      };
    }
    case 'commit':
    case 'ack':
    case 'fail': {
      const token = typeof c.token === 'number' ? c.token : -1;
      const job = jobOfToken.get(token) ?? `token:${token}`;
      const p = payloadOf.get(job) ?? {};
      const reply =
        c.type === 'commit' && r.ok === true
          ? { applied: r.applied === true }
          : c.type === 'fail' && r.ok === true
            ? { next: r.status === 'dead' ? 'dead' : 'retry' }
            : {};
      return {
        request: { ...worker, job, token: String(token), ...def('account', p.account), ...def('key', p.key) },
        reply,
        outcome,
      };
    }
    default:
      return undefined;
  }
}
