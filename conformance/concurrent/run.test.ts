import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Config, Reply } from '../../contract/index.ts';
import { JobStore } from '../../impl/index.ts';
import { jobStoreFactory } from '../adapters/jobStore.ts';
import { IndefiniteOutcome } from './adapter.ts';
import type { ConcurrentAdapter } from './adapter.ts';
import { runConcurrentCampaign } from './campaign.ts';
import { concurrentScenarioArb } from './generate.ts';
import type { ConcurrentScenario } from './generate.ts';
import { lockedJobStoreFactory, sequentialFactory } from './inProcess.ts';
import type { SchedulableFactory } from './inProcess.ts';
import { isSnapshotRequest } from './jobModel.ts';
import { runScenario } from './run.ts';
import type { ConcurrentRun } from './run.ts';

const config = { capacity: 2, maxAttempts: 2, leaseTicks: 2, backoffBase: 1, backoffCap: 2 };

const claimRace: ConcurrentScenario = {
  config,
  workers: 3,
  rounds: [
    { now: { at: 'same' }, shuffle: 0, requests: [{ lane: 0, command: { kind: 'submit', id: 'a', account: 'x', key: 'k1', amount: 1, deadlineIn: 9 } }] },
    { now: { at: 'later', plus: 1 }, shuffle: 0, requests: [0, 1, 2].map((lane) => ({ lane, command: { kind: 'claim' } as const })) },
    { now: { at: 'leaseUntil', delivery: { pick: 0, ended: false }, plus: 0 }, shuffle: 0, requests: [{ lane: 0, command: { kind: 'ack', delivery: { pick: 0, ended: false }, worker: 'holder' } }, { lane: 1, command: { kind: 'claim' } }] },
  ],
};

/** Every operation of round r returns before any of round r+1 is invoked, and a round's invokes come before its returns. */
function checkRounds(run: ConcurrentRun, concurrent: boolean): void {
  const ops = new Map(run.history.operations.map((o) => [o.id, o]));
  let lastReturn = -1;
  for (const round of run.rounds) {
    const mine = round.requests.map((r) => ops.get(r.id));
    const invokes = mine.map((o) => o?.invoked ?? Number.NaN);
    const returns = mine.flatMap((o) => (o?.returned === undefined ? [] : [o.returned]));
    expect(Math.min(...invokes)).toBeGreaterThan(lastReturn);
    if (concurrent && returns.length > 0) expect(Math.max(...invokes)).toBeLessThan(Math.min(...returns));
    for (const r of round.requests) expect((r.command as { now: number }).now).toBe(round.now);
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
  it('numbers all invokes of a round before its returns, and ends each round before the next', async () => {
    await fc.assert(
      fc.asyncProperty(concurrentScenarioArb({ workers: 4 }), async (scenario) => {
        const adapter = await lockedJobStoreFactory()(scenario.config, { workers: scenario.workers });
        const run = await runScenario(scenario, adapter, { timeoutMs: 1000 });
        checkRounds(run, true);
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
        checkRounds(run, false);
        const spans = run.history.operations.map((o) => [o.invoked, o.returned ?? o.invoked] as const).sort((a, b) => a[0] - b[0]);
        for (let i = 1; i < spans.length; i++) expect((spans[i] as readonly [number, number])[0]).toBeGreaterThan((spans[i - 1] as readonly [number, number])[1]);
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
    const won = claims?.requests.map((r) => ops.get(r.id)?.output as Reply).find((o) => o.ok && o.type === 'claim' && o.job !== null);
    if (won === undefined || !won.ok || won.type !== 'claim' || won.job === null) throw new Error('no claim delivered');
    // The race round sits at the lease's end and acks the delivery that was handed out, as its holder.
    expect(race?.now).toBe(won.job.leaseUntil);
    const ack = race?.requests[0]?.command as { token: number; worker: string };
    expect(ack.token).toBe(won.job.token);
    const winner = claims?.requests.find((r) => (ops.get(r.id)?.output as Reply) === won)?.command as { worker: string };
    expect(ack.worker).toBe(winner.worker);
  });

  it('makes a request that never replies indefinite, and does not hang', async () => {
    const factory = hangingFactory((c) => ((c as { type?: string }).type === 'claim' ? 'hang' : (c as { type?: string }).type === 'tick' ? 'died' : 'answer'));
    const adapter = await factory(config, { workers: 3 });
    const started = performance.now();
    const run = await runScenario({ ...claimRace, rounds: [...claimRace.rounds, { now: { at: 'same' }, shuffle: 0, requests: [{ lane: 2, command: { kind: 'tick' } }] }] }, adapter, { timeoutMs: 50 });
    expect(performance.now() - started).toBeLessThan(2000);
    const claims = run.rounds[1]?.requests ?? [];
    expect(claims.map((r) => r.indefinite)).toEqual(['timeout', 'timeout', 'timeout']);
    for (const r of claims) expect(run.history.operations.find((o) => o.id === r.id)?.returned).toBeUndefined();
    expect(run.rounds[3]?.requests[0]?.indefinite).toBe('process_died');
    expect(run.errors).toEqual([]);
    checkRounds(run, true);
  });

  it('lets a campaign under the scheduler finish with requests that never reply, and finds the history linearizable', async () => {
    const factory = hangingFactory((c) => ((c as { type?: string }).type === 'ack' ? 'hang' : 'answer'));
    const started = performance.now();
    const r = await runConcurrentCampaign({ factory, workers: 3, numRuns: 20, seed: 7, timeoutMs: 20 });
    expect(performance.now() - started).toBeLessThan(30_000);
    expect(r.verdict).toBe('passed');
  }, 60_000);

  it('ends with an indefinite snapshot when the snapshot never replies', async () => {
    const adapter = await lockedJobStoreFactory()(config, { workers: 3 });
    const stuck: ConcurrentAdapter = { ...adapter, name: adapter.name, concurrent: true, execute: (l, c) => adapter.execute(l, c), snapshot: () => new Promise(() => undefined), close: () => adapter.close() };
    const run = await runScenario(claimRace, stuck, { timeoutMs: 30 });
    expect(run.history.operations.find((o) => o.id === run.snapshotId)?.returned).toBeUndefined();
  });

  it('records an adapter that throws (not an IndefiniteOutcome) as an error of the run', async () => {
    const adapter = await lockedJobStoreFactory()(config, { workers: 3 });
    const broken: ConcurrentAdapter = { name: 'thrower', concurrent: true, execute: () => Promise.reject(new Error('boom')), snapshot: () => adapter.snapshot(), close: () => adapter.close() };
    const run = await runScenario(claimRace, broken, { timeoutMs: 100 });
    expect(run.errors.length).toBe(6); // every request of the three rounds
    expect(run.errors[0]?.message).toBe('boom');
  });
});
