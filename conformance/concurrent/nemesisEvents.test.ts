/**
 * Faults in a concurrent history: a run stamps what its nemesis reports between rounds with
 * instants of the history's own sequence; the linearizability checker ignores them (same outcome
 * with and without); the story's lanes and the timeline show their windows. The nemesis here only
 * reports (the store is in process): what is tested is how faults are recorded and shown.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { Config } from '../../contract/index.ts';
import { type Fault, type NemesisAction, nemesisEventSchema } from '../nemesis/fault.ts';
import type { ConcurrentScenario } from './generate.ts';
import { lockedJobStoreFactory } from './inProcess.ts';
import { jobModel } from './jobModel.ts';
import { checkLinearizability } from './linearizability.ts';
import { type ConcurrentRun, runScenario } from './run.ts';
import { renderLanes } from './story.ts';
import { faultWindows, renderTimeline } from './timeline.ts';

const CONFIG: Config = { capacity: 2, maxAttempts: 2, leaseTicks: 5, backoffBase: 1, backoffCap: 4 };
const SCENARIO: ConcurrentScenario = {
  config: CONFIG,
  workers: 2,
  rounds: [
    {
      now: { at: 'same' },
      shuffle: 0,
      requests: [
        { lane: 0, command: { kind: 'submit', id: 'a', account: 'alice', key: 'a:k', amount: 7, deadlineIn: 100 } },
      ],
    },
    {
      now: { at: 'later', plus: 1 },
      shuffle: 0,
      requests: [
        { lane: 0, command: { kind: 'claim' } },
        { lane: 1, command: { kind: 'claim' } },
      ],
    },
    { now: { at: 'later', plus: 1 }, shuffle: 0, requests: [{ lane: 1, command: { kind: 'tick' } }] },
  ],
};
const HOLD: Fault = { kind: 'partition', target: { kind: 'worker', lane: 1 }, mode: 'hold' };
const PAUSE: Fault = { kind: 'pause', target: { kind: 'broker' } };

/** A run whose nemesis cuts lane 1 off before round 2 and heals it before round 3, then pauses the broker before the snapshot. */
async function runWithFaults(): Promise<{ run: ConcurrentRun; asked: number[] }> {
  const asked: number[] = [];
  const nemesis = async (round: number): Promise<NemesisAction[]> => {
    asked.push(round);
    if (round === 1) return [{ phase: 'start', fault: HOLD }];
    if (round === 2) return [{ phase: 'end', fault: HOLD, note: 'held 40 bytes' }];
    if (round === 3) return [{ phase: 'start', fault: PAUSE }];
    return [];
  };
  const adapter = await lockedJobStoreFactory()(CONFIG, { workers: 2 });
  const run = await runScenario(SCENARIO, adapter, { timeoutMs: 2000, nemesis }).finally(() => adapter.close());
  return { run, asked };
}

describe('faults in a concurrent history', () => {
  it('asks the nemesis before each round and before the snapshot, and stamps its events between the rounds', async () => {
    const { run, asked } = await runWithFaults();
    expect(asked).toEqual([0, 1, 2, 3]);
    const events = run.history.nemesis ?? [];
    expect(events.map((e) => [e.phase, e.fault.kind])).toEqual([
      ['start', 'partition'],
      ['end', 'partition'],
      ['start', 'pause'],
    ]);
    const opsOf = (round: number) =>
      (run.rounds[round]?.requests ?? []).map((r) => run.history.operations.find((o) => o.id === r.id));
    const [start, end, pause] = events as [(typeof events)[0], (typeof events)[0], (typeof events)[0]];
    for (const op of opsOf(0)) expect(op?.returned).toBeLessThan(start.at);
    for (const op of opsOf(1)) {
      expect(op?.invoked).toBeGreaterThan(start.at);
      expect(op?.returned).toBeLessThan(end.at);
    }
    for (const op of opsOf(2)) expect(op?.invoked).toBeGreaterThan(end.at);
    const snapshot = run.history.operations.find((o) => o.id === run.snapshotId);
    expect(snapshot?.invoked).toBeGreaterThan(pause.at);
    expect(z.array(nemesisEventSchema).parse(events)).toEqual(events);
  });

  it('gives the checker the same outcome with and without the faults: they are no operations', async () => {
    const { run } = await runWithFaults();
    const model = jobModel(CONFIG);
    const withFaults = checkLinearizability(model, run.history);
    expect(withFaults.verdict).toBe('linearizable');
    expect(withFaults).toEqual(checkLinearizability(model, { operations: run.history.operations }));
  });

  it("tells each fault on a line of its own between the rounds of the story's lanes", async () => {
    const { run } = await runWithFaults();
    const lines = renderLanes(run);
    const at = (pattern: RegExp): number => lines.findIndex((l) => pattern.test(l));
    const roundRow = (n: number): RegExp => new RegExp(`^\\s*${n}\\s`);
    expect(lines[at(/fault starts: partition/)]).toMatch(
      /^ {2}!! \[\d+\] fault starts: partition \(hold\) of worker lane 1$/,
    );
    expect(lines[at(/fault ends: partition/)]).toMatch(
      /^ {2}!! \[\d+\] fault ends: partition \(hold\) of worker lane 1 \(held 40 bytes\)$/,
    );
    expect(at(roundRow(1))).toBeLessThan(at(/fault starts: partition/));
    expect(at(/fault starts: partition/)).toBeLessThan(at(roundRow(2)));
    expect(at(roundRow(2))).toBeLessThan(at(/fault ends: partition/));
    expect(at(/fault ends: partition/)).toBeLessThan(at(roundRow(3)));
    expect(at(/fault starts: pause of the broker/)).toBeLessThan(at(/^ {3}end /));
  });

  it('shades each fault window on the timeline behind the lanes it hit, open-ended when it never healed', async () => {
    const { run } = await runWithFaults();
    const windows = faultWindows(run.history.nemesis ?? []);
    expect(windows.map((w) => [w.fault.kind, w.to === undefined, w.notes])).toEqual([
      ['partition', false, ['held 40 bytes']],
      ['pause', true, []],
    ]);
    const html = renderTimeline(run.history);
    const groups = [...html.matchAll(/<g class="fault" data-kind="([a-z-]+)"><title>([^<]*)<\/title>([\s\S]*?)<\/g>/g)];
    expect(groups.map((g) => g[1])).toEqual(['partition', 'pause']);
    const lanesOf = (body: string): string[] =>
      [...body.matchAll(/<rect [^>]*data-lane="(\d+)"/g)].map((m) => m[1] ?? '');
    expect(lanesOf(groups[0]?.[3] ?? '')).toEqual(['1']);
    expect(lanesOf(groups[1]?.[3] ?? '')).toEqual(['0', '1']);
    expect(groups[0]?.[2]).toMatch(/^partition \(hold\) of worker lane 1: from instant \d+ to \d+\nheld 40 bytes$/);
    expect(groups[1]?.[2]).toMatch(/never healed in this history/);
  });
  it('stamps an event the nemesis tells as it happens before the replies that come while it goes on', async () => {
    // Round 1 overlaps round 0, so the nemesis acts while round 0's submit is on its way: once the
    // submit is sent it tells a kill at once, lets the reply come, and returns the restart after it.
    const KILL: Fault = { kind: 'kill', target: { kind: 'broker' } };
    const store = await lockedJobStoreFactory()(CONFIG, { workers: 2 });
    let sent!: () => void;
    const submitSent = new Promise<void>((resolve) => {
      sent = resolve;
    });
    let open!: () => void;
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    const held: typeof store = {
      ...store,
      execute: async (lane, command) => {
        const reply = await store.execute(lane, command);
        if ((command as { type?: string }).type === 'submit') {
          sent();
          await gate;
        }
        return reply;
      },
    };
    const scenario: ConcurrentScenario = {
      ...SCENARIO,
      rounds: [
        SCENARIO.rounds[0] as ConcurrentScenario['rounds'][number],
        { ...(SCENARIO.rounds[1] as ConcurrentScenario['rounds'][number]), overlap: true },
      ],
    };
    const nemesis = async (round: number, stamp: (action: NemesisAction) => void): Promise<NemesisAction[]> => {
      if (round !== 1) return [];
      await submitSent;
      stamp({ phase: 'start', fault: KILL });
      open();
      // The run records the reply a turn of the event loop after it comes.
      await new Promise((r) => setImmediate(r));
      await new Promise((r) => setImmediate(r));
      return [{ phase: 'end', fault: KILL, note: 'restarted' }];
    };
    const run = await runScenario(scenario, held, { timeoutMs: 2000, nemesis }).finally(() => store.close());
    const [start, end] = run.history.nemesis ?? [];
    const submit = run.history.operations.find((o) => o.id === run.rounds[0]?.requests[0]?.id);
    expect([start?.phase, end?.phase]).toEqual(['start', 'end']);
    expect(submit?.invoked).toBeLessThan(start?.at ?? -1);
    expect(submit?.returned).toBeGreaterThan(start?.at ?? Number.POSITIVE_INFINITY);
    expect(submit?.returned).toBeLessThan(end?.at ?? -1);
  });
});
