import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { concurrentScenarioArb } from './generate.ts';
import { FAR_DEADLINE_IN, restrictScenario, restrictedScenarioArb, restrictionBroken } from './restriction.ts';
import type { ScenarioRestriction } from './restriction.ts';

const RESTRICTIONS: readonly [string, ScenarioRestriction][] = [
  ['capacityAtLeast', { capacityAtLeast: 7 }],
  ['noDeadlines', { noDeadlines: true }],
  ['holdersOnly', { holdersOnly: true }],
  ['noOverlap', { noOverlap: true }],
  ['all at once', { capacityAtLeast: 7, noDeadlines: true, holdersOnly: true, noOverlap: true }],
];

const scenarios = fc.sample(concurrentScenarioArb({ workers: 4, maxRounds: 12 }), { numRuns: 400, seed: 7 });

describe('restrictScenario', () => {
  for (const [name, r] of RESTRICTIONS) {
    it(`makes every sampled scenario hold ${name}, which many of them break unrestricted`, () => {
      expect(scenarios.filter((s) => restrictionBroken(s, r) !== undefined).length).toBeGreaterThan(20);
      for (const s of scenarios) expect(restrictionBroken(restrictScenario(s, r), r)).toBeUndefined();
    });
  }

  it('keeps what the restriction does not touch: lanes, round count, request kinds (a resubmit may become a submit)', () => {
    const r: ScenarioRestriction = { capacityAtLeast: 7, noDeadlines: true, holdersOnly: true, noOverlap: true };
    for (const s of scenarios) {
      const t = restrictScenario(s, r);
      expect(t.workers).toBe(s.workers);
      expect(t.rounds.map((x) => x.requests.map((q) => q.lane))).toEqual(
        s.rounds.map((x) => x.requests.map((q) => q.lane)),
      );
      const kind = (k: string): string => (k === 'resubmit' ? 'submit' : k);
      expect(t.rounds.map((x) => x.requests.map((q) => kind(q.command.kind)))).toEqual(
        s.rounds.map((x) => x.requests.map((q) => kind(q.command.kind))),
      );
    }
  });

  it('sets the deadlines out of reach and leaves an empty restriction the identity', () => {
    const s = scenarios.find((x) => x.rounds.some((r) => r.requests.some((q) => q.command.kind === 'submit')));
    expect(s).toBeDefined();
    if (s === undefined) return;
    expect(restrictScenario(s, {})).toBe(s);
    const t = restrictScenario(s, { noDeadlines: true });
    for (const q of t.rounds.flatMap((r) => r.requests))
      if (q.command.kind === 'submit') expect(q.command.deadlineIn).toBe(FAR_DEADLINE_IN);
  });

  it('still shrinks when mapped over the arbitrary: a failing property ends at a small restricted scenario', () => {
    const r: ScenarioRestriction = { holdersOnly: true, noOverlap: true };
    const out = fc.check(
      fc.property(restrictedScenarioArb(concurrentScenarioArb({ workers: 3 }), r), (s) => s.rounds.length < 3),
      { seed: 3, numRuns: 200 },
    );
    expect(out.failed).toBe(true);
    const shrunk = out.counterexample?.[0];
    // Rounds come in groups of up to four (the stale-ack setup), so the smallest failing one has 3 or 4.
    expect(shrunk?.rounds.length).toBeLessThanOrEqual(4);
    if (shrunk !== undefined) expect(restrictionBroken(shrunk, r)).toBeUndefined();
  });
});
