/**
 * A recorder for beanstalkd: `recordBeanstalkd(connection)` wraps a connection that speaks the
 * text protocol one command a call (`send(line, body?)`, as BeanstalkdConnection does; a client
 * of another shape maps onto it), so that its producers and workers write `jobcheck-history/1`
 * (docs/history-format.md, "Recording"): `put` as a submit, `reserve`, `reserve-with-timeout` and
 * `reserve-job` as a claim, `delete` as ack, `release` as a fail to retry, `bury` as a fail to dead,
 * `touch` as extend. Every other command passes unrecorded.
 *
 * The mapping: the job is beanstalkd's job id; beanstalkd has no delivery token and a reservation
 * belongs to a connection, so the token names the reservation: the recorded connection's id with a
 * count of its reservations; the lease ends at the reserve's return + the job's `ttr` (known from
 * the team's `ttrSeconds`, or from a `put` this recorder saw), moved by `touch`. The attempt (the
 * job's `reserves`) needs a `stats-job` the worker did not send, so it is left out. The outcome is
 * `ok` for the reply the command hopes for (`INSERTED`, `RESERVED`, `DELETED`, ...), a reserve that
 * timed out is a claim of no job, another reply is its own word (`not_found`, `job_too_big`), and a
 * connection that failed is `unknown`. Every call goes to the connection unchanged.
 */
import type { HistoryWriter, OpFields } from '../historyWriter.ts';
import { outcomeCode, payloadHash } from '../historyWriter.ts';

/** What the recorder needs of a beanstalkd client: one command, its reply. */
export interface BeanstalkdClient {
  send(line: string, body?: string): Promise<{ readonly head: string; readonly body?: string }>;
}

/** Who records, and the time-to-run of the jobs it reserves. */
export interface BeanstalkdRecorderOptions {
  /** The worker (or producer) every line names. */
  readonly worker: string;
  /** The `ttr` of the jobs this worker reserves, in seconds, when the team knows it. */
  readonly ttrSeconds?: number;
}

/** The command word, the contract op it is, and the reply it hopes for. */
const RECORDED: Record<string, { op: OpFields['op']; ok: string; next?: 'retry' | 'dead' }> = {
  put: { op: 'submit', ok: 'INSERTED' },
  reserve: { op: 'claim', ok: 'RESERVED' },
  'reserve-with-timeout': { op: 'claim', ok: 'RESERVED' },
  'reserve-job': { op: 'claim', ok: 'RESERVED' },
  delete: { op: 'ack', ok: 'DELETED' },
  release: { op: 'fail', ok: 'RELEASED', next: 'retry' },
  bury: { op: 'fail', ok: 'BURIED', next: 'dead' },
  touch: { op: 'extend', ok: 'TOUCHED' },
};

/** `connection` with its jobs' commands recorded; the same object type. */
export function recordBeanstalkd<C extends BeanstalkdClient>(
  connection: C,
  writer: HistoryWriter,
  options: BeanstalkdRecorderOptions,
): C {
  const { worker } = options;
  const connectionId = writer.id(`${worker}.conn`);
  let reservations = 0;
  /** The token and ttr of each job reserved on this connection and not yet settled. */
  const held = new Map<string, { token: string; ttrMs?: number }>();
  /** The ttr of each job this recorder put, in ms. */
  const ttrs = new Map<string, number>();

  const send = async (line: string, body?: string): Promise<{ readonly head: string; readonly body?: string }> => {
    const words = line.split(' ');
    const command = RECORDED[words[0] ?? ''];
    if (command === undefined) return connection.send(line, body);
    const invokedAt = writer.now();
    let reply: { readonly head: string; readonly body?: string };
    try {
      reply = await connection.send(line, body);
    } catch (error) {
      const job = command.op === 'submit' || command.op === 'claim' ? undefined : words[1];
      writer.op({
        op: command.op,
        worker,
        invokedAt,
        returnedAt: writer.now(),
        outcome: 'unknown',
        ...(job === undefined ? {} : jobFields(job)),
      });
      throw error;
    }
    const returnedAt = writer.now();
    try {
      record(command, words, body, reply, invokedAt, returnedAt);
    } catch {
      // The recorder's own mistake never reaches the worker.
    }
    return reply;
  };

  const jobFields = (job: string): Partial<OpFields> => {
    const h = held.get(job);
    return h === undefined ? { job } : { job, token: h.token };
  };

  function record(
    command: { op: OpFields['op']; ok: string; next?: 'retry' | 'dead' },
    words: string[],
    body: string | undefined,
    reply: { readonly head: string; readonly body?: string },
    invokedAt: number,
    returnedAt: number,
  ): void {
    const [word, id] = reply.head.split(' ');
    const ok = word === command.ok;
    const base = { op: command.op, worker, invokedAt, returnedAt };
    switch (command.op) {
      case 'submit': {
        const fields: Partial<OpFields> = { payloadHash: payloadHash(body ?? '') };
        if (id !== undefined) fields.job = id;
        if (ok && id !== undefined) ttrs.set(id, Number(words[3]) * 1000);
        writer.op({ ...base, outcome: ok ? 'ok' : outcomeCode(word), ...fields });
        return;
      }
      case 'claim': {
        if (!ok || id === undefined) {
          writer.op({ ...base, outcome: word === 'TIMED_OUT' ? 'ok' : outcomeCode(word) });
          return;
        }
        reservations += 1;
        const ttrMs = options.ttrSeconds === undefined ? ttrs.get(id) : options.ttrSeconds * 1000;
        const token = `${connectionId}:${reservations}`;
        held.set(id, ttrMs === undefined ? { token } : { token, ttrMs });
        const fields: Partial<OpFields> = { job: id, token, payloadHash: payloadHash(reply.body ?? '') };
        if (ttrMs !== undefined) fields.leaseUntil = returnedAt + ttrMs;
        writer.op({ ...base, outcome: 'ok', ...fields });
        return;
      }
      default: {
        const job = words[1] ?? '';
        const fields = jobFields(job);
        const ttrMs = held.get(job)?.ttrMs;
        if (command.op === 'extend' && ok && ttrMs !== undefined) fields.leaseUntil = returnedAt + ttrMs;
        if (command.next !== undefined) fields.next = command.next;
        if (ok && command.op !== 'extend') held.delete(job);
        writer.op({ ...base, outcome: ok ? 'ok' : outcomeCode(word), ...fields });
      }
    }
  }

  return new Proxy(connection, {
    get: (t, p) => {
      if (p === 'send') return send;
      const v = Reflect.get(t, p, t);
      return typeof v === 'function' ? v.bind(t) : v;
    },
  });
}
