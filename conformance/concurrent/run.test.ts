import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Config, Reply } from '../../contract/index.ts';
import { JobStore } from '../../impl/index.ts';
import { jobStoreFactory } from '../stores/jobStore.ts';
import { IndefiniteOutcome } from './adapter.ts';
import type { ConcurrentAdapter } from './adapter.ts';
import { runConcurrentCampaign } from './campaign.ts';
import { concurrentScenarioArb } from './generate.ts';
import type { ConcurrentScenario } from './generate.ts';
import { lockedJobStoreFactory, sequentialFactory } from './inProcess.ts';
import type { SchedulableFactory } from './inProcess.ts';
import { isSnapshotRequest } from './jobModel.ts';
import { Budget } from '../budget.ts';
import { runScenario } from './run.ts';
import { checkLinearizability } from './linearizability.ts';
import { jobModel } from './jobModel.ts';
import type { ConcurrentFactory } from './adapter.ts';
import type { ConcurrentRun } from './run.ts';

const config = { capacity: 2, maxAttempts: 2, leaseTicks: 2, backoffBase: 1, backoffCap: 2 };

const claimRace: ConcurrentScenario = {
  config,
  workers: 3,
  rounds: [
    {
      now: { at: 'same' },
      shuffle: 0,
      requests: [{ lane: 0, command: { kind: 'submit', id: 'a', account: 'x', key: 'k1', amount: 1, deadlineIn: 9 } }],
    },
    {
      now: { at: 'later', plus: 1 },
      shuffle: 0,
      requests: [0, 1, 2].map((lane) => ({ lane, command: { kind: 'claim' } as const })),
    },
    {
      now: { at: 'leaseUntil', delivery: { pick: 0, ended: false }, plus: 0 },
      shuffle: 0,
      requests: [
        { lane: 0, command: { kind: 'ack', delivery: { pick: 0, ended: false }, worker: 'holder' } },
        { lane: 1, command: { kind: 'claim' } },
      ],
    },
  ],
};

/**
 * The instants are real-time order and nothing more: a lane's request is invoked after its previous
 * one returned; a round that does not overlap starts after everything before it returned; every
 * request carries its round's `now`, and the snapshot comes after everything.
 */
function checkRounds(run: ConcurrentRun): void {
  const ops = new Map(run.history.operations.map((o) => [o.id, o]));
  let lastReturn = -1;
  const laneLast = new Map<number, number>();
  for (const round of run.rounds) {
    const mine = round.requests.map((r) => ops.get(r.id));
    const invokes = mine.map((o) => o?.invoked ?? Number.NaN);
    if (round.overlap !== true) expect(Math.min(...invokes)).toBeGreaterThan(lastReturn);
    for (const r of round.requests) {
      expect((r.command as { now: number }).now).toBe(round.now);
      const op = ops.get(r.id);
      expect(op?.invoked).toBeGreaterThan(laneLast.get(r.lane) ?? -1);
      laneLast.set(r.lane, op?.returned ?? Number.POSITIVE_INFINITY);
    }
    const returns = mine.flatMap((o) => (o?.returned === undefined ? [] : [o.returned]));
    lastReturn = Math.max(lastReturn, ...invokes, ...returns);
  }
  const snapshot = ops.get(run.snapshotId);
  expect(isSnapshotRequest(snapshot?.input)).toBe(true);
  expect(snapshot?.invoked).toBeGreaterThan(lastReturn);
}

/** An adapter over a JobStore that never answers the commands `hangs` picks (and optionally rejects others as indefinite). */
function hangingFactory(hangs: (command: unknown) => 'hang' | 'died' | 'answer'): SchedulableFactory {
  const make = (cfg: Config, pause: (label: string) => Promise<void>): Promise<ConcurrentAdapter> => {
    const store = new JobStore(cfg);
    return Promise.resolve({
      name: 'hanging',
      concurrent: true,
      async execute(lane: number, command: unknown): Promise<Reply> {
        await pause(`lane ${lane}`);
        const fate = hangs(command);
        if (fate === 'hang') return new Promise<Reply>(() => undefined);
        if (fate === 'died') throw new IndefiniteOutcome('process_died', 'the process died');
        return store.execute(command);
      },
      snapshot: () => Promise.resolve(store.snapshot()),
      close: () => Promise.resolve(),
    });
  };
  return Object.assign((cfg: Config) => make(cfg, () => new Promise<void>((r) => setImmediate(r))), {
    withPause: (cfg: Config, o: { readonly pause: (label: string) => Promise<void> }) => make(cfg, o.pause),
  });
}

describe('runScenario', () => {
  it('keeps each lane in order and starts a round that does not overlap after everything before it', async () => {
    await fc.assert(
      fc.asyncProperty(concurrentScenarioArb({ workers: 4 }), async (scenario) => {
        const adapter = await lockedJobStoreFactory()(scenario.config, { workers: scenario.workers });
        const run = await runScenario(scenario, adapter, { timeoutMs: 1000 });
        checkRounds(run);
        expect(run.errors).toEqual([]);
      }),
      { numRuns: 100 },
    );
  });

  it('sends a non-concurrent adapter one request at a time: its history is sequential', async () => {
    await fc.assert(
      fc.asyncProperty(concurrentScenarioArb({ workers: 4 }), async (scenario) => {
        const adapter = await sequentialFactory(jobStoreFactory())(scenario.config, { workers: scenario.workers });
        const run = await runScenario(scenario, adapter, { timeoutMs: 1000 });
        checkRounds(run);
        const spans = run.history.operations
          .map((o) => [o.invoked, o.returned ?? o.invoked] as const)
          .sort((a, b) => a[0] - b[0]);
        for (let i = 1; i < spans.length; i++)
          expect((spans[i] as readonly [number, number])[0]).toBeGreaterThan(
            (spans[i - 1] as readonly [number, number])[1],
          );
      }),
      { numRuns: 50 },
    );
  });

  it('resolves tokens and times from the replies of earlier rounds', async () => {
    const adapter = await lockedJobStoreFactory()(config, { workers: 3 });
    const run = await runScenario(claimRace, adapter, { timeoutMs: 1000 });
    const [submit, claims, race] = run.rounds;
    expect(submit?.now).toBe(0);
    expect(claims?.now).toBe(1);
    const ops = new Map(run.history.operations.map((o) => [o.id, o]));
    const won = claims?.requests
      .map((r) => ops.get(r.id)?.output as Reply)
      .find((o) => o.ok && o.type === 'claim' && o.job !== null);
    if (won === undefined || !won.ok || won.type !== 'claim' || won.job === null) throw new Error('no claim delivered');
    // The race round sits at the lease's end and acks the delivery that was handed out, as its holder.
    expect(race?.now).toBe(won.job.leaseUntil);
    const ack = race?.requests[0]?.command as { token: number; worker: string };
    expect(ack.token).toBe(won.job.token);
    const winner = claims?.requests.find((r) => (ops.get(r.id)?.output as Reply) === won)?.command as {
      worker: string;
    };
    expect(ack.worker).toBe(winner.worker);
  });

  it('records a request the adapter gives up on as indefinite, and one it never settles as an adapter defect (hung)', async () => {
    const factory = hangingFactory((c) =>
      (c as { type?: string }).type === 'claim' ? 'hang' : (c as { type?: string }).type === 'tick' ? 'died' : 'answer',
    );
    const adapter = await factory(config, { workers: 3 });
    const started = performance.now();
    const run = await runScenario(
      {
        ...claimRace,
        rounds: [
          ...claimRace.rounds,
          { now: { at: 'same' }, shuffle: 0, requests: [{ lane: 2, command: { kind: 'tick' } }] },
        ],
      },
      adapter,
      { timeoutMs: 50, hangGraceMs: 50 },
    );
    expect(performance.now() - started).toBeLessThan(5000);
    const claims = run.rounds[1]?.requests ?? [];
    expect(claims.map((r) => r.indefinite)).toEqual(['hung', 'hung', 'hung']);
    for (const r of claims) expect(run.history.operations.find((o) => o.id === r.id)?.returned).toBeUndefined();
    expect(run.rounds[3]?.requests[0]?.indefinite).toBe('process_died');
    const allClaims = run.rounds
      .flatMap((r) => r.requests)
      .filter((r) => (r.command as { type: string }).type === 'claim');
    expect(run.errors.map((e) => e.id)).toEqual(allClaims.map((r) => r.id));
    expect(run.errors[0]?.message).toMatch(/neither replied nor gave up within 100 ms/);
  });

  it('never passes a campaign whose adapter leaves requests unsettled (a module whose execute never returns)', async () => {
    const factory = hangingFactory((c) => ((c as { type?: string }).type === 'ack' ? 'hang' : 'answer'));
    const started = performance.now();
    const r = await runConcurrentCampaign({
      factory,
      workers: 3,
      numRuns: 20,
      seed: 7,
      timeoutMs: 20,
      hangGraceMs: 20,
    });
    expect(performance.now() - started).toBeLessThan(60_000);
    expect(r.verdict).toBe('failed');
    expect(r.failure?.kind).toBe('impl_error');
    expect(r.failure?.error).toMatch(/neither replied nor gave up/);
  }, 90_000);

  it('waits for a reply as long as the adapter does, and checks it: a lie told after 2.5 s is caught with the default timeout', async () => {
    const liar: SchedulableFactory | ConcurrentFactory = async (cfg: Config) => {
      const store = new JobStore(cfg);
      return {
        name: 'slow-liar',
        concurrent: true,
        async execute(_lane: number, command: unknown): Promise<Reply> {
          const reply = store.execute(command);
          if (!(reply.ok && reply.type === 'claim' && reply.job !== null)) return reply;
          await new Promise((r) => setTimeout(r, 2500));
          return { ...reply, job: { ...reply.job, token: reply.job.token + 1000 } };
        },
        snapshot: () => Promise.resolve(store.snapshot()),
        close: () => Promise.resolve(),
      };
    };
    const r = await runConcurrentCampaign({
      factory: liar,
      workers: 2,
      numRuns: 20,
      seed: 1,
      config,
      maxRounds: 3,
      budget: new Budget(20_000),
    });
    expect(r.verdict).toBe('failed');
    expect(r.failure?.kind).toBe('not_linearizable');
  }, 60_000);

  it('makes a run whose final snapshot never comes a failure of the campaign, never a pass', async () => {
    const adapter = await lockedJobStoreFactory()(config, { workers: 3 });
    const stuck: ConcurrentAdapter = {
      ...adapter,
      name: adapter.name,
      concurrent: true,
      execute: (l, c) => adapter.execute(l, c),
      snapshot: () => new Promise(() => undefined),
      close: () => adapter.close(),
    };
    const run = await runScenario(claimRace, stuck, { timeoutMs: 30, hangGraceMs: 30 });
    expect(run.history.operations.find((o) => o.id === run.snapshotId)?.returned).toBeUndefined();
    expect(run.snapshotMissing).toMatch(/final snapshot did not come/);
    const silent: ConcurrentFactory = async (cfg) => {
      const inner = await lockedJobStoreFactory()(cfg, { workers: 2 });
      return {
        ...inner,
        name: 'silent',
        concurrent: true,
        execute: (l, c) => inner.execute(l, c),
        snapshot: () => Promise.reject(new IndefiniteOutcome('timeout', 'no reply to snapshot')),
        close: () => inner.close(),
      };
    };
    const r = await runConcurrentCampaign({ factory: silent, workers: 2, numRuns: 3, seed: 3 });
    expect(r.verdict).toBe('failed');
    expect(r.failure?.error).toMatch(/final snapshot did not come: timeout: no reply to snapshot/);
  });

  it("keeps a lane's own order: a claim that finds nothing after its lane's submit was answered is not linearizable", async () => {
    // The missed history: lane 0 submits f and gets its seq, then claims and gets no job, though f is
    // the only ready job and nobody took it. Rounds are not atomic: the claim was sent after the reply.
    const store = new JobStore(config);
    const forgetful: ConcurrentAdapter = {
      name: 'forgetful',
      concurrent: true,
      execute: async (_lane, command) =>
        (command as { type?: string }).type === 'claim'
          ? { ok: true, type: 'claim', job: null }
          : store.execute(command),
      snapshot: () => Promise.resolve(store.snapshot()),
      close: () => Promise.resolve(),
    };
    const scenario: ConcurrentScenario = {
      config,
      workers: 2,
      rounds: [
        {
          now: { at: 'same' },
          shuffle: 0,
          requests: [
            { lane: 0, command: { kind: 'submit', id: 'f', account: 'x', key: 'k1', amount: 1, deadlineIn: 9 } },
            { lane: 0, command: { kind: 'claim' } },
          ],
        },
      ],
    };
    const run = await runScenario(scenario, forgetful, { timeoutMs: 1000 });
    const [submit, claim] = run.rounds[0]?.requests.map((r) => run.history.operations.find((o) => o.id === r.id)) ?? [];
    expect(claim?.invoked).toBeGreaterThan(submit?.returned ?? Number.POSITIVE_INFINITY);
    expect(checkLinearizability(jobModel(config), run.history).verdict).toBe('not_linearizable');
  });

  it('starts an overlapping round while the previous one is in flight: a claim at leaseUntil races an ack sent at leaseUntil - 1', async () => {
    const store = new JobStore(config);
    let release: (() => void) | undefined;
    const slowAck: ConcurrentAdapter = {
      name: 'slow-ack',
      concurrent: true,
      async execute(_lane, command) {
        if ((command as { type?: string }).type === 'ack') await new Promise<void>((r) => (release = r));
        return store.execute(command);
      },
      snapshot: () => Promise.resolve(store.snapshot()),
      close: () => Promise.resolve(),
    };
    const latest = { pick: 0, ended: false } as const;
    const scenario: ConcurrentScenario = {
      config,
      workers: 2,
      rounds: [
        {
          now: { at: 'same' },
          shuffle: 0,
          requests: [
            { lane: 0, command: { kind: 'submit', id: 'a', account: 'x', key: 'k1', amount: 1, deadlineIn: 9 } },
          ],
        },
        { now: { at: 'later', plus: 1 }, shuffle: 0, requests: [{ lane: 0, command: { kind: 'claim' } }] },
        {
          now: { at: 'leaseUntil', delivery: latest, plus: -1 },
          shuffle: 0,
          requests: [{ lane: 0, command: { kind: 'ack', delivery: latest, worker: 'holder' } }],
        },
        {
          now: { at: 'later', plus: 1 },
          shuffle: 0,
          overlap: true,
          requests: [
            { lane: 1, command: { kind: 'claim', as: 1 } },
            { lane: 1, command: { kind: 'claim', as: 0 } },
          ],
        },
      ],
    };
    const running = runScenario(scenario, slowAck, { timeoutMs: 5000 });
    await new Promise((r) => setTimeout(r, 50));
    release?.();
    const run = await running;
    const ops = new Map(run.history.operations.map((o) => [o.id, o]));
    const ack = ops.get(run.rounds[2]?.requests[0]?.id ?? -1);
    const [reclaim, again] = (run.rounds[3]?.requests ?? []).map((r) => ops.get(r.id));
    expect(run.rounds[3]?.overlap).toBe(true);
    expect(run.rounds[3]?.now).toBe(((ack?.input as { now: number } | undefined)?.now ?? Number.NaN) + 1);
    expect(reclaim?.invoked).toBeLessThan(ack?.returned ?? -1);
    // Lanes are not workers: w1, who holds the delivery acked on lane 0, also claims on lane 1.
    expect((again?.input as { worker: string } | undefined)?.worker).toBe('w1');
    expect(checkLinearizability(jobModel(config), run.history).verdict).toBe('linearizable');
  });

  it('records an adapter that throws (not an IndefiniteOutcome) as an error of the run', async () => {
    const adapter = await lockedJobStoreFactory()(config, { workers: 3 });
    const broken: ConcurrentAdapter = {
      name: 'thrower',
      concurrent: true,
      execute: () => Promise.reject(new Error('boom')),
      snapshot: () => adapter.snapshot(),
      close: () => adapter.close(),
    };
    const run = await runScenario(claimRace, broken, { timeoutMs: 100 });
    expect(run.errors.length).toBe(6); // every request of the three rounds
    expect(run.errors[0]?.message).toBe('boom');
  });
});
