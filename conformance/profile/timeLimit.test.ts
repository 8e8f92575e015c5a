/**
 * A profile the time limit cuts short says what it found and no more: a wall-clock departure whose
 * replays the limit stopped is neither flaky nor conforming, and fixtures the limit stopped judge
 * no rule. The limit falls at a chosen instance: the engine is deterministic for a seed, so a
 * first run counts the instances a profile makes and a second expires its budget as one of them
 * closes (the replays are the last three instances).
 */
import { describe, expect, it } from 'vitest';
import type { RuleId } from '../../contract/rules.ts';
import { catalogueVariant } from '../broken/index.ts';
import { Budget } from '../budget.ts';
import { jobStoreFactory } from '../stores/jobStore.ts';
import { renderProfileMarkdown, renderProfileText } from './render.ts';
import { profileSchema } from './result.ts';
import type { Profile, RuleResult } from './result.ts';
import { REPLAYS, REPLAYS_NEEDED, replayStatus, runProfile } from './runProfile.ts';
import type { ProfileTarget } from './target.ts';

const RUNS = 8;

/** A budget without a limit that runs out when told (`expire`). */
class Switch extends Budget {
  private off = false;
  constructor() {
    super(undefined);
  }
  expire(): void {
    this.off = true;
  }
  override get expired(): boolean {
    return this.off || super.expired;
  }
  override remainingMs(): number {
    return this.off ? 0 : super.remainingMs();
  }
}

/**
 * A factory whose instances are global-fifo's for the first `brokenFor` and the built-in store's
 * after, and whose `expireAt`-th instance (counting from 1) expires `budget` as it closes.
 */
function counted(
  brokenFor: number,
  budget?: Switch,
  expireAt?: number,
): { factory: ProfileTarget['factory']; made: () => number } {
  const bad = catalogueVariant('global-fifo')?.factory;
  if (bad === undefined) throw new Error('no catalogue variant global-fifo');
  const good = jobStoreFactory();
  let made = 0;
  return {
    made: () => made,
    factory: async (config) => {
      const n = ++made;
      const a = await (n <= brokenFor ? bad(config) : good(config));
      return {
        name: a.name,
        execute: (c) => a.execute(c),
        snapshot: () => a.snapshot(),
        restart: () => a.restart(),
        ...(a.restoreFrom === undefined ? {} : { restoreFrom: (s) => a.restoreFrom?.(s) ?? Promise.resolve() }),
        close: async () => {
          await a.close();
          if (n === expireAt) budget?.expire();
        },
      };
    },
  };
}

const onWall = (factory: ProfileTarget['factory']): ProfileTarget => ({
  queue: 'global-fifo',
  version: 'test',
  factory,
  declarations: {},
  clock: { kind: 'wall', tickMs: 1 },
});
const rules: RuleId[] = ['account-head-only'];
const ruleOf = (p: Profile): RuleResult | undefined => p.rules.find((r) => r.rule === 'account-head-only');

describe('a profile cut short by its time limit', () => {
  it('decides a wall-clock departure from the replays that ran: departs at 2, flaky past reach, else undecided', () => {
    expect([REPLAYS, REPLAYS_NEEDED]).toEqual([3, 2]);
    expect(replayStatus({ runs: 3, departed: 2 })).toBe('departs');
    expect(replayStatus({ runs: 2, departed: 2 })).toBe('departs');
    expect(replayStatus({ runs: 3, departed: 1 })).toBe('flaky');
    expect(replayStatus({ runs: 2, departed: 0 })).toBe('flaky');
    expect(replayStatus({ runs: 2, departed: 1 })).toBe('budget_exhausted');
    expect(replayStatus({ runs: 1, departed: 0 })).toBe('budget_exhausted');
    expect(replayStatus({ runs: 0, departed: 0 })).toBe('budget_exhausted');
  });

  describe('during the replays of a wall-clock departure', () => {
    /** The instances a whole profile makes: the last REPLAYS are the replays. */
    const instances = async (): Promise<number> => {
      const count = counted(Number.POSITIVE_INFINITY);
      const p = await runProfile(onWall(count.factory), { runs: RUNS, rules });
      expect(ruleOf(p)).toMatchObject({ status: 'departs', replays: { runs: 3, departed: 3 } });
      return count.made();
    };
    /** The profile whose budget expires as instance `expireAt` closes; its first `brokenFor` instances are global-fifo's. */
    const cut = async (brokenFor: number, expireAt: number): Promise<Profile> => {
      const budget = new Switch();
      const p = await runProfile(onWall(counted(brokenFor, budget, expireAt).factory), { runs: RUNS, rules, budget });
      expect(profileSchema.parse(JSON.parse(JSON.stringify(p)))).toEqual(p);
      return p;
    };

    it('keeps the departure found but calls the rule budget_exhausted when no replay ran', async () => {
      const n = await instances();
      const p = await cut(Number.POSITIVE_INFINITY, n - REPLAYS);
      const r = ruleOf(p);
      expect(r?.status).toBe('budget_exhausted');
      expect(r?.replays).toBeUndefined();
      expect(r?.departure?.story).toContain('disagrees with the model');
      expect(p.verdict).toBe('incomplete');
    });

    it('counts the one replay that ran, and leaves the rule budget_exhausted', async () => {
      const n = await instances();
      const p = await cut(Number.POSITIVE_INFINITY, n - REPLAYS + 1);
      expect(ruleOf(p)).toMatchObject({ status: 'budget_exhausted', replays: { runs: 1, departed: 1 } });
      expect(p.verdict).toBe('incomplete');
      // Told as found and undecided, never as a departure.
      expect(renderProfileText(p)).toContain('unconfirmed (budget exhausted) on account-head-only:');
      expect(renderProfileText(p)).not.toContain('departs on account-head-only');
      expect(renderProfileMarkdown(p)).toContain('Unconfirmed departure: `account-head-only`');
      expect(renderProfileMarkdown(p)).toContain('departed 1 time of 1 before the time limit stopped the rest');
    });

    it('calls 2 departures in the 2 replays that ran a departure', async () => {
      const n = await instances();
      const p = await cut(Number.POSITIVE_INFINITY, n - 1);
      expect(ruleOf(p)).toMatchObject({ status: 'departs', replays: { runs: 2, departed: 2 } });
      expect(p.verdict).toBe('departs');
    });

    it('calls 2 replays that ran without departing flaky: the third could not make 2', async () => {
      const n = await instances();
      const p = await cut(n - REPLAYS, n - 1);
      expect(ruleOf(p)).toMatchObject({ status: 'flaky', replays: { runs: 2, departed: 0 } });
    });
  });

  it('judges no rule on fixtures it stopped: a rule without its own campaign is budget_exhausted, not conforming', async () => {
    const budget = new Switch();
    const count = counted(0, budget, 3);
    const target: ProfileTarget = { queue: 'JobStore', version: 'test', factory: count.factory, declarations: {} };
    const p = await runProfile(target, { runs: RUNS, rules, budget });
    expect(count.made()).toBe(3);
    expect(p.rules.filter((r) => r.status !== 'budget_exhausted')).toEqual([]);
    expect(p.verdict).toBe('incomplete');
  });
});
