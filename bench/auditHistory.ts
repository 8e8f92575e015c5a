/**
 * A correct recorded history of a busy queue for the audit benchmark, written as a stream in
 * bounded memory (what is held is the jobs in flight): `accounts` accounts, each submitting a job
 * about every `meanGapMs` and its jobs claimed one at a time in submission order; 16 workers;
 * leases of 30 s. Most jobs are submit, claim, commit (applied), ack; some fail and are retried
 * after a backoff; some are held by a worker that dies, so the lease runs out (the broker reports
 * the expiry or stays silent), another worker gets the job and the first one's late ack is
 * refused; some lose the ack's reply (`unknown`); a few fail for good. Lines are written in the
 * order of their return time shuffled by up to 200 ms (several workers writing one file), well
 * within the audit's window. Seeded: the same arguments write the same file.
 */
import { createWriteStream } from 'node:fs';
import { seededRandom } from '../conformance/concurrent/jobModel.ts';
import { MinHeap } from '../impl/memory/heap.ts';

/** The shape of the generated traffic. */
export interface TrafficShape {
  readonly ops: number;
  readonly accounts: number;
  readonly meanGapMs: number;
  readonly seed: number;
}

/** 100 jobs a second over 6,000 accounts: 1,000,000 operations are about 40 minutes of traffic. */
export const BUSY_QUEUE: Omit<TrafficShape, 'ops'> = { accounts: 6000, meanGapMs: 60_000, seed: 45 };

/** What the generated file holds. */
export interface Written {
  readonly operations: number;
  readonly jobs: number;
  readonly lines: number;
  readonly spanMs: number;
}

/** Writes the history to `file`. */
export async function writeTraffic(file: string, shape: TrafficShape): Promise<Written> {
  const rnd = seededRandom(shape.seed);
  const int = (lo: number, hi: number): number => lo + Math.floor(rnd() * (hi - lo + 1));
  const out = createWriteStream(file);
  let chunk: string[] = [];
  let lines = 0;
  const flushChunk = async (): Promise<void> => {
    const text = chunk.join('');
    chunk = [];
    if (!out.write(text)) await new Promise<void>((resolve) => out.once('drain', () => resolve()));
  };
  const emit = async (line: object): Promise<void> => {
    chunk.push(`${JSON.stringify(line)}\n`);
    lines++;
    if (chunk.length >= 4096) await flushChunk();
  };
  await emit({ type: 'header', format: 'jobcheck-history/1', source: 'bench', capacity: 5000 });
  const pending = new MinHeap<object>();
  const accounts = new MinHeap<number>();
  const free = new Float64Array(shape.accounts);
  for (let a = 0; a < shape.accounts; a++) accounts.push(int(0, shape.meanGapMs), a, 0);
  let operations = 0;
  let jobs = 0;
  let id = 0;
  let now = 0;
  while (operations < shape.ops) {
    now = accounts.peekKey();
    const a = accounts.peekValue();
    accounts.pop();
    const job = `j${jobs++}`;
    const account = `acct-${a}`;
    const ops: [number, object][] = [];
    const op = (o: string, t0: number, dt: number, outcome: string, fields: object): number => {
      ops.push([
        t0 + dt,
        { type: 'op', id: `o${id++}`, op: o, invokedAt: t0, returnedAt: t0 + dt, outcome, job, ...fields },
      ]);
      return t0 + dt;
    };
    const worker = (): string => `w${int(0, 15)}`;
    let t = op('submit', now, int(1, 5), 'ok', { account, key: `k-${job}`, payloadHash: `p${jobs % 977}` });
    // Claimed once the account's previous job is resolved (its order), and after a short wait.
    t = Math.max(t, free[a] as number) + int(5, 400);
    const shapeOf = rnd();
    let attempt = 1;
    let resolved: number;
    for (;;) {
      const w = worker();
      const token = `${job}.${attempt}`;
      const dt = int(1, 5);
      const lease = t + dt + 30_000;
      const claimed = op('claim', t, dt, 'ok', { account, worker: w, token, attempt, leaseUntil: lease });
      const held = { worker: w, token, account };
      if (shapeOf < 0.05 && attempt === 1) {
        // The worker dies: the lease runs out; its late ack is refused once another holds the job.
        if (rnd() < 0.5) ops.push([lease + 2, { type: 'broker', event: 'expired', job, token, at: lease + 2 }]);
        t = lease + int(10, 2000);
        const w2 = worker();
        const token2 = `${job}.2`;
        const dt2 = int(1, 5);
        const c2 = op('claim', t, dt2, 'ok', {
          account,
          worker: w2,
          token: token2,
          attempt: 2,
          leaseUntil: t + dt2 + 30_000,
        });
        op('ack', c2 + int(1, 50), int(1, 5), 'stale_token', held);
        const m = op('commit', c2 + int(60, 1500), int(1, 5), 'ok', {
          ...held,
          worker: w2,
          token: token2,
          key: `k-${job}`,
          applied: true,
        });
        resolved = op('ack', m + 1, int(1, 5), 'ok', { worker: w2, token: token2, account });
        break;
      }
      const run = claimed + int(20, 1500);
      if (shapeOf < 0.13 && attempt === 1) {
        t = op('fail', run, int(1, 5), 'ok', { ...held, next: 'retry' }) + int(500, 5000);
        attempt++;
        continue;
      }
      if (shapeOf > 0.99) {
        resolved = op('fail', run, int(1, 5), 'ok', { ...held, next: 'dead' });
        break;
      }
      const m = op('commit', run, int(1, 5), 'ok', { ...held, key: `k-${job}`, applied: true });
      if (shapeOf > 0.95) {
        // The ack's reply is lost: the recorder writes it as unknown when it gives up.
        op('ack', m + 1, 5000, 'unknown', { worker: w, token, account });
        resolved = m + 1;
      } else resolved = op('ack', m + 1, int(1, 5), 'ok', { worker: w, token, account });
      break;
    }
    free[a] = resolved;
    for (const [at, line] of ops) pending.push(at + rnd() * 200, line, 0);
    operations += ops.length;
    accounts.push(now + int(shape.meanGapMs / 2, (shape.meanGapMs * 3) / 2), a, 0);
    while (pending.size > 0 && pending.peekKey() < now) {
      await emit(pending.peekValue());
      pending.pop();
    }
  }
  while (pending.size > 0) {
    await emit(pending.peekValue());
    pending.pop();
  }
  await emit({ type: 'end', lines });
  await flushChunk();
  await new Promise<void>((resolve) => out.end(resolve));
  return { operations, jobs, lines, spanMs: now };
}
