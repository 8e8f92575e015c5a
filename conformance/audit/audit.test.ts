import { describe, expect, it } from 'vitest';
import { JobStore, withDecisions } from '../../impl/index.ts';
import { GlobalFifo, catalogueVariant } from '../broken/index.ts';
import { toJepsen } from '../concurrent/export.ts';
import { jobStoreRoundHistory } from '../concurrent/jobModel.ts';
import { auditHistory, contractHistoryLines, jepsenHistory, readHistory, readJepsen } from './index.ts';
import type { AuditOptions, AuditResult } from './index.ts';

const HEADER = { type: 'header', format: 'jobcheck-history/1', source: 'test' };

/** A complete history file from its event lines. */
function file(events: readonly object[], header: object = HEADER): string {
  const lines = [header, ...events].map((l) => JSON.stringify(l));
  return `${[...lines, JSON.stringify({ type: 'end', lines: lines.length })].join('\n')}\n`;
}

const audit = (text: string, options: AuditOptions = {}): Promise<AuditResult> =>
  auditHistory([readHistory([text], 'h.jsonl')], options);

const op = (id: string, o: string, t0: number, t1: number, fields: object, outcome = 'ok') => ({
  type: 'op',
  id,
  op: o,
  invokedAt: t0,
  returnedAt: t1,
  outcome,
  ...fields,
});

const violations = (r: AuditResult) => r.findings.filter((f) => f.kind === 'violation');

// One job, two deliveries: w1's lease runs out at 100, w2 claims it at 150.
const redelivered = [
  op('s', 'submit', 0, 1, { job: 'j', account: 'a', key: 'k' }),
  op('c1', 'claim', 10, 11, { job: 'j', worker: 'w1', token: 't1', leaseUntil: 100 }),
  op('c2', 'claim', 150, 151, { job: 'j', worker: 'w2', token: 't2', leaseUntil: 250 }),
];

describe('jobcheck audit finds each anomaly, told as a story with its lines', () => {
  it("finds a stale holder's ack that landed, and passes the history without it", async () => {
    const stale = await audit(
      file([...redelivered, op('a1', 'ack', 160, 161, { job: 'j', worker: 'w1', token: 't1' })]),
    );
    expect(stale.verdict).toBe('fail');
    const [v] = violations(stale);
    expect(v).toMatchObject({ rule: 'stale-ack-landed', subject: 'job j' });
    expect(v?.kind === 'violation' && v.story).toContain('h.jsonl:5');
    expect(v?.kind === 'violation' && v.story).toContain('current delivery is token "t2"');
    const refused = await audit(
      file([...redelivered, op('a1', 'ack', 160, 161, { job: 'j', worker: 'w1', token: 't1' }, 'stale_token')]),
    );
    expect(refused.verdict).toBe('pass');
  });

  it('finds a double effect across two deliveries, and passes when the second is reused', async () => {
    const commit = (id: string, worker: string, token: string, at: number, applied: boolean) =>
      op(id, 'commit', at, at + 1, { job: 'j', worker, token, account: 'a', key: 'k', applied });
    const twice = await audit(
      file([...redelivered, commit('m1', 'w1', 't1', 20, true), commit('m2', 'w2', 't2', 160, true)]),
    );
    expect(violations(twice)[0]).toMatchObject({ rule: 'double-effect' });
    const once = await audit(
      file([...redelivered, commit('m1', 'w1', 't1', 20, true), commit('m2', 'w2', 't2', 160, false)]),
    );
    expect(once.verdict).toBe('pass');
  });

  it('finds a run past the lease, and passes the same ack before it', async () => {
    const one = [redelivered[0] as object, redelivered[1] as object];
    const late = await audit(file([...one, op('a', 'ack', 120, 121, { job: 'j', worker: 'w1', token: 't1' })]));
    expect(violations(late)[0]).toMatchObject({ rule: 'run-past-lease' });
    const inTime = await audit(file([...one, op('a', 'ack', 90, 91, { job: 'j', worker: 'w1', token: 't1' })]));
    expect(inTime.verdict).toBe('pass');
  });

  it('finds an account-order jump, and passes when the head was resolved first', async () => {
    const jobs = (ackAt: number) => [
      op('s1', 'submit', 0, 1, { job: 'j1', account: 'a', key: 'k1' }),
      op('s2', 'submit', 2, 3, { job: 'j2', account: 'a', key: 'k2' }),
      op('c1', 'claim', 10, 11, { job: 'j1', account: 'a', worker: 'w1', token: 't1', leaseUntil: 100 }),
      op('a1', 'ack', ackAt, ackAt + 1, { job: 'j1', worker: 'w1', token: 't1' }),
      op('c2', 'claim', 30, 31, { job: 'j2', account: 'a', worker: 'w2', token: 't2', leaseUntil: 130 }),
    ];
    const jumped = await audit(file(jobs(50)));
    expect(violations(jumped)[0]).toMatchObject({ rule: 'account-order', subject: 'account a' });
    expect(await audit(file(jobs(20)))).toMatchObject({ verdict: 'pass' });
  });

  it('finds a capacity overrun, and passes when the first job was resolved before the second came', async () => {
    const jobs = (ackAt: number) => [
      op('s1', 'submit', 0, 1, { job: 'j1', account: 'a', key: 'k1' }),
      op('c1', 'claim', 2, 3, { job: 'j1', worker: 'w1', token: 't1', leaseUntil: 100 }),
      op('a1', 'ack', ackAt, ackAt + 1, { job: 'j1', worker: 'w1', token: 't1' }),
      op('s2', 'submit', 10, 11, { job: 'j2', account: 'b', key: 'k2' }),
    ];
    const over = await audit(file(jobs(50), { ...HEADER, capacity: 1 }));
    expect(violations(over)[0]).toMatchObject({ rule: 'capacity' });
    expect(await audit(file(jobs(5), { ...HEADER, capacity: 1 }))).toMatchObject({ verdict: 'pass' });
  });
});

describe('indefinite outcomes and the clock uncertainty', () => {
  it('judges a lost reply by both outcomes: an unknown ack may have landed, or not', async () => {
    const lost = op('a1', 'ack', 20, 21, { job: 'j', worker: 'w1', token: 't1' }, 'unknown');
    const one = [redelivered[0] as object, redelivered[1] as object];
    // Landed: then a second ack by the same holder must be refused; not landed: it may succeed.
    const ackAgain = (outcome: string) => op('a2', 'ack', 30, 31, { job: 'j', worker: 'w1', token: 't1' }, outcome);
    expect((await audit(file([...one, lost, ackAgain('ok')]))).verdict).toBe('pass');
    expect((await audit(file([...one, lost, ackAgain('stale_token')]))).verdict).toBe('pass');
    // Whichever it was, a second delivery while the lease runs breaks a rule: a double delivery, or
    // (had the ack landed) a delivery of a job already done.
    const early = op('c2', 'claim', 40, 41, { job: 'j', worker: 'w2', token: 't2', leaseUntil: 140 });
    const rules = violations(await audit(file([...one, lost, early]))).map((v) => v.kind === 'violation' && v.rule);
    expect(rules.length).toBe(1);
    expect(['double-delivery', 'resolved-job-changed']).toContain(rules[0]);
  });

  it('calls a verdict that hangs on less than the clock uncertainty INCONCLUSIVE, never a pass or a failure', async () => {
    const one = [redelivered[0] as object, redelivered[1] as object];
    const close = file([...one, op('a', 'ack', 102, 103, { job: 'j', worker: 'w1', token: 't1' })]);
    expect((await audit(close)).verdict).toBe('fail');
    const within = await audit(close, { clockUncertainty: 5 });
    expect(within.verdict).toBe('inconclusive');
    expect(within.findings[0]).toMatchObject({ kind: 'inconclusive', rule: 'run-past-lease' });
    expect((await audit(close, { clockUncertainty: 1 })).verdict).toBe('fail');
  });
});

describe('a history missing what it needs is named', () => {
  it('names a claim without its submit and a token never handed out', async () => {
    const r = await audit(
      file([
        op('c1', 'claim', 10, 11, { job: 'j', worker: 'w1', token: 't1', leaseUntil: 100 }),
        op('a1', 'ack', 20, 21, { job: 'j', worker: 'w1', token: 't1' }),
        op('s2', 'submit', 0, 1, { job: 'k' }),
        op('a2', 'ack', 20, 21, { job: 'k', worker: 'w1', token: 'tx' }),
      ]),
    );
    expect(r.verdict).toBe('inconclusive');
    expect(r.findings.map((f) => (f.kind === 'gap' ? [f.gap, f.subject] : f.kind))).toEqual([
      ['submit_missing', 'job j'],
      ['token_never_handed_out', 'job k'],
    ]);
  });
});

/** The memory store running a catalogue variant's broken decisions. */
function broken(name: string): typeof JobStore {
  const decisions = catalogueVariant(name)?.decisions;
  if (decisions === undefined) throw new Error(`${name}: no decision variant`);
  return withDecisions(JobStore, decisions);
}

const CONFIG = { capacity: 4, maxAttempts: 3, leaseTicks: 4, backoffBase: 1, backoffCap: 4 };
const recorded = (store: typeof JobStore | undefined, seed: number) => {
  const h = jobStoreRoundHistory({
    config: CONFIG,
    workers: 4,
    requests: 400,
    seed,
    snapshot: false,
    ...(store === undefined ? {} : { store }),
  });
  return { history: h, text: `${contractHistoryLines(h, { capacity: CONFIG.capacity }).join('\n')}\n` };
};

describe('histories recorded from the project stores', () => {
  it('passes the built-in store and finds each broken variant', async () => {
    for (const seed of [7, 8]) expect((await audit(recorded(undefined, seed).text)).verdict).toBe('pass');
    const cases: [typeof JobStore, string][] = [
      [broken('capacity-forgets-running'), 'capacity'],
      [broken('commit-not-idempotent'), 'double-effect'],
      [broken('lease-one-tick-late'), 'run-past-lease'],
      [GlobalFifo as unknown as typeof JobStore, 'account-order'],
    ];
    for (const [store, rule] of cases) {
      const r = await audit(recorded(store, 7).text);
      expect(r.verdict).toBe('fail');
      expect(violations(r).map((v) => v.kind === 'violation' && v.rule)).toContain(rule);
    }
  });

  it("reads jobcheck's own Jepsen export back: the same operations, the same verdict", async () => {
    const { history, text } = recorded(broken('lease-one-tick-late'), 7);
    const edn = toJepsen(history);
    const back = await jepsenHistory([edn], 'h.edn');
    const norm = (ops: typeof history.operations) =>
      [...ops]
        .sort((a, b) => a.id - b.id)
        .map((o) => ({ id: o.id, invoked: o.invoked, returned: o.returned, input: o.input, output: o.output }));
    expect(norm(back.operations)).toEqual(norm(history.operations));
    const viaJepsen = await auditHistory([readJepsen([edn], 'h.edn', { capacity: CONFIG.capacity })]);
    const direct = await audit(text);
    expect(viaJepsen.verdict).toBe('fail');
    expect(violations(viaJepsen).map((v) => v.summary)).toEqual(violations(direct).map((v) => v.summary));
  });
});
