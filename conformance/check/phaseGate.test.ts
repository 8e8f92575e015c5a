/**
 * Giving up early: a phase's gate refuses new stores and requests once closed, a reply timeout
 * closes it, and a check against a peer that answers `hello` and then nothing (the hostile peer's
 * `stall` mode) ends with a failure whose later items are reported as given up, not as the time
 * limit; with `failFast` everything after the first divergence is not run. How long the check
 * takes is measured in docs/cli.md, not asserted here.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { Adapter } from '../adapter.ts';
import { processAdapterFactory } from '../protocol/index.ts';
import type { ProcessAdapterFactory } from '../protocol/index.ts';
import { ProcessError } from '../protocol/processError.ts';
import { findPython, pythonCommand } from '../../examples/python/interpreter.ts';
import { CheckBudget, GivenUp, PhaseGate, runCheck } from './index.ts';

const python = findPython();
const STALL = python === undefined ? '' : `${pythonCommand(python, 'conformance/hostile/peers/peer.py')} stall`;

/** An adapter whose execute times out once, then would answer. */
function fakeAdapter(): Adapter & { calls: number } {
  const adapter = {
    name: 'fake',
    calls: 0,
    execute: async () => {
      adapter.calls += 1;
      throw new ProcessError('timeout', 'no reply within 1 ms', { command: 'fake' });
    },
    snapshot: async () => {
      adapter.calls += 1;
      return {} as never;
    },
    restart: async () => undefined,
    close: async () => undefined,
  };
  return adapter;
}

describe('PhaseGate', () => {
  it('lets stores and requests through while open, closes on a reply timeout, then refuses both as not run', async () => {
    const gate = new PhaseGate();
    const inner = fakeAdapter();
    const factory = gate.factory(async () => inner);
    const adapter = await factory({} as never);
    await expect(adapter.snapshot()).resolves.toEqual({});
    expect(gate.closed).toBeNull();
    await expect(adapter.execute({ type: 'tick', now: 0 })).rejects.toMatchObject({ code: 'timeout' });
    expect(gate.closed).toBe('timeout');
    await expect(adapter.snapshot()).rejects.toBeInstanceOf(GivenUp);
    await expect(factory({} as never)).rejects.toMatchObject({ code: 'time_limit', reason: 'timeout' });
    expect(inner.calls).toBe(2);
  });

  it('tells its listeners once when it closes, and keeps the first reason', () => {
    const gate = new PhaseGate();
    const heard: string[] = [];
    gate.onClose(() => heard.push('before'));
    gate.close('fail_fast');
    gate.close('timeout');
    gate.onClose(() => heard.push('after'));
    expect(gate.closed).toBe('fail_fast');
    expect(heard).toEqual(['before', 'after']);
  });
});

describe.skipIf(python === undefined)('a check against a peer that answers hello and then nothing', () => {
  let factory: ProcessAdapterFactory | undefined;
  afterEach(async () => {
    await factory?.close();
    factory = undefined;
  });

  /** The stall peer as a target, its waits on `budget` (500 ms a reply). */
  const stallTarget = (budget: CheckBudget) => {
    factory = processAdapterFactory(STALL, { replyTimeoutMs: 500, spares: 1, budget });
    return { factory, warmFactory: factory.warm, campaignFactory: factory.crash, parallel: 2 };
  };

  it('diverges, and gives up the later items of each phase after its first timeout instead of waiting out each', async () => {
    const budget = new CheckBudget(60_000);
    try {
      const report = await runCheck(stallTarget(budget), { runs: 20, seed: 3, budget });
      expect(report.verdict).toBe('diverge');
      expect(report.failure?.kind === 'fixture' || report.failure?.kind === 'divergence').toBe(true);
      expect(report.stoppedByTimeLimit).toBe(false);
      expect(report.stoppedByFailFast).toBe(false);
      expect(report.fixturesNotRun.length).toBeGreaterThan(0);
      expect(report.paths.notRun.length).toBeGreaterThan(0);
      const stops = new Map(report.stops.map((s) => [s.phase, s]));
      expect(stops.get('fixtures')?.reason).toBe('timeout');
      expect(stops.get('fixtures')?.note).toMatch(/^skipped after a timeout in the fixture story "/);
      expect(stops.get('paths')?.note).toMatch(/^skipped after a timeout in the path "/);
      expect(report.fixtures.filter((f) => !f.result.ok).length).toBeLessThanOrEqual(2);
    } finally {
      budget.dispose();
    }
  }, 60_000);

  it('with failFast, stops at the first divergence: the phases after it are not run, and the report says why', async () => {
    const budget = new CheckBudget(60_000);
    try {
      const report = await runCheck(stallTarget(budget), { runs: 20, seed: 3, budget, failFast: true });
      expect(report.verdict).toBe('diverge');
      expect(report.failure?.kind).toBe('fixture');
      expect(report.stoppedByFailFast).toBe(true);
      expect(report.stoppedByTimeLimit).toBe(false);
      expect(report.paths.outcomes).toHaveLength(0);
      expect(report.campaign.runs).toBe(0);
      expect(report.exploration).toBeNull();
      expect(report.stops.map((s) => [s.phase, s.reason])).toEqual(
        expect.arrayContaining([
          ['paths', 'fail_fast'],
          ['campaign', 'fail_fast'],
          ['explore', 'fail_fast'],
        ]),
      );
    } finally {
      budget.dispose();
    }
  }, 60_000);
});
