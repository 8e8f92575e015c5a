import { describe, expect, it } from 'vitest';
import type { Config, FailCommand, Reply } from '../../contract/index.ts';
import { RULE_IDS } from '../../contract/rules.ts';
import type { RuleId } from '../../contract/rules.ts';
import { JobEntry, JobStore, retryDelay } from '../../impl/index.ts';
import { jobStoreFactory } from '../stores/jobStore.ts';
import { catalogueVariant } from '../broken/catalogue.ts';
import { profileSchema } from './result.ts';
import type { Profile } from './result.ts';
import { runProfile } from './runProfile.ts';
import type { ProfileTarget } from './target.ts';

const RUNS = 8;

const target = (
  queue: string,
  factory: ProfileTarget['factory'],
  declarations: ProfileTarget['declarations'] = {},
): ProfileTarget => ({ queue, version: 'test', factory, declarations });
const broken = (name: string): ProfileTarget['factory'] => {
  const v = catalogueVariant(name);
  if (v === undefined) throw new Error(`no catalogue variant ${name}`);
  return v.factory;
};
const departing = (p: Profile): RuleId[] => p.rules.filter((r) => r.status === 'departs').map((r) => r.rule);

/**
 * A store whose retry delay is jittered: a whole number of ticks from 1 to the contract's delay,
 * picked from the token (deterministic, so shrinking replays). `tooLong` adds one tick to every
 * other retry, leaving the variant's bounds.
 */
function jitteredStore(tooLong: boolean): typeof JobStore {
  return class JitteredStore extends JobStore {
    protected override applyFail(c: FailCommand): Reply {
      const job = this.delivery(c);
      if (!(job instanceof JobEntry) || c.kind !== 'transient') return super.applyFail(c);
      const cfg = this.cfg as { -readonly [K in keyof Config]: Config[K] };
      const { backoffBase, backoffCap } = cfg;
      const full = retryDelay(backoffBase, backoffCap, job.attempts);
      const delay = 1 + ((c.token * 7) % full) + (tooLong && c.token % 2 === 1 ? full : 0);
      cfg.backoffBase = delay;
      cfg.backoffCap = delay;
      try {
        return super.applyFail(c);
      } finally {
        cfg.backoffBase = backoffBase;
        cfg.backoffCap = backoffCap;
      }
    }
  };
}

describe('runProfile', () => {
  it('finds the built-in JobStore conforming on every rule, each reached by commands', async () => {
    const p = await runProfile(target('JobStore', jobStoreFactory()), { runs: RUNS });
    expect(profileSchema.parse(JSON.parse(JSON.stringify(p)))).toEqual(p);
    expect(p.unattributed).toEqual([]);
    for (const r of p.rules) {
      expect(r.status, r.rule).toBe('conforms');
      expect(r.commands, r.rule).toBeGreaterThan(0);
    }
    expect(p.rules.map((r) => r.rule)).toEqual([...RULE_IDS]);
  });

  it("reaches the counters' edge from a restored snapshot, and leaves it not reached for an implementation that cannot be restored from one", async () => {
    /** A store that admits past the edge: at nextSeq 2^53-1 it starts again from 1 instead of refusing. */
    class CountersWrap extends JobStore {
      protected override applySubmit(c: Parameters<JobStore['applySubmit']>[0]): Reply {
        if (this.nextSeq >= Number.MAX_SAFE_INTEGER) this.nextSeq = 1;
        return super.applySubmit(c);
      }
    }
    const only = { runs: 4, rules: ['counters-stay-safe'] as RuleId[] };
    const wraps = await runProfile(target('counters-wrap', jobStoreFactory(CountersWrap)), only);
    expect(wraps.rules.find((r) => r.rule === 'counters-stay-safe')?.status).toBe('departs');
    const plain = jobStoreFactory();
    const noRestore: ProfileTarget['factory'] = async (config) => {
      const a = await plain(config);
      return {
        name: a.name,
        execute: (c) => a.execute(c),
        snapshot: () => a.snapshot(),
        restart: () => a.restart(),
        close: () => a.close(),
      };
    };
    const unreached = await runProfile(target('no-restore', noRestore), only);
    expect(unreached.rules.find((r) => r.rule === 'counters-stay-safe')).toMatchObject({
      status: 'not_reached',
      commands: 0,
    });
  });

  it('is deterministic for a seed', async () => {
    const options = { runs: 3, seed: 7, rules: ['account-head-only', 'backoff-capped'] as RuleId[] };
    const a = await runProfile(target('global-fifo', broken('global-fifo')), options);
    const b = await runProfile(target('global-fifo', broken('global-fifo')), options);
    expect(b).toEqual(a);
  });

  it('leaves a rule declared unsupported out, and says so', async () => {
    const p = await runProfile(
      target('capacity-forgets-running', broken('capacity-forgets-running'), {
        'capacity-counts-running': { kind: 'unsupported', why: 'no capacity limit' },
      }),
      {
        runs: 4,
        rules: ['capacity-counts-running', 'admission-in-seq-order'],
      },
    );
    expect(p.rules.find((r) => r.rule === 'capacity-counts-running')).toMatchObject({
      status: 'unsupported',
      why: 'no capacity limit',
    });
    expect(departing(p)).toEqual([]);
  });

  it('checks a declared variant instead of its rule: the broken store it describes conforms to it', async () => {
    const cases: [string, RuleId, string][] = [
      ['global-fifo', 'account-head-only', 'no-account-order'],
      ['backoff-not-capped', 'backoff-capped', 'uncapped-backoff'],
    ];
    for (const [store, rule, variant] of cases) {
      const p = await runProfile(
        target(store, broken(store), { [rule]: { kind: 'variant', variant, why: 'documented' } }),
        { runs: RUNS },
      );
      expect(departing(p), store).toEqual([]);
      expect(
        p.rules.find((r) => r.rule === rule),
        store,
      ).toMatchObject({ status: 'variant', variant });
      expect(p.rules.find((r) => r.rule === rule)?.commands, store).toBeGreaterThan(0);
    }
  });

  it('finds where a store keeps a variant only in part: dead-job-blocks forgets its dead heads on restart', async () => {
    const declarations = {
      'account-head-only': { kind: 'variant', variant: 'failed-job-keeps-blocking', why: 'documented' },
    } as const;
    const p = await runProfile(target('dead-job-blocks', broken('dead-job-blocks'), declarations), { runs: RUNS });
    expect(departing(p)).toEqual(['account-head-only']);
    const story = p.rules.find((r) => r.rule === 'account-head-only')?.departure?.story ?? '';
    expect(story).toContain('restart (snapshot -> JSON -> restore)');
    expect(story).toMatch(/kind=permanent/);
  });

  it('holds a jittered backoff within bounds against jittered-backoff, and departs from it outside them', async () => {
    const declarations = { 'backoff-capped': { kind: 'variant', variant: 'jittered-backoff', why: 'jitter' } } as const;
    const rules: RuleId[] = [
      'backoff-capped',
      'no-retry-after-deadline',
      'backoff-ends-at-not-before',
      'attempts-exhausted-dead',
    ];
    const within = jobStoreFactory(jitteredStore(false), 'jittered');
    expect(departing(await runProfile(target('jittered', within), { runs: RUNS, rules }))).toContain('backoff-capped');
    const held = await runProfile(target('jittered', within, declarations), { runs: RUNS, rules });
    expect(departing(held)).toEqual([]);
    expect(held.rules.find((r) => r.rule === 'backoff-capped')).toMatchObject({ status: 'variant' });
    const outside = await runProfile(
      target('jittered', jobStoreFactory(jitteredStore(true), 'jittered-too-long'), declarations),
      { runs: RUNS, rules },
    );
    expect(departing(outside)).toEqual(['backoff-capped']);
  });

  it('replays a departure from its rule and path', async () => {
    const p = await runProfile(target('global-fifo', broken('global-fifo')), {
      runs: RUNS,
      rules: ['account-head-only'],
    });
    const d = p.rules.find((r) => r.rule === 'account-head-only')?.departure;
    expect(d?.source).toBe('campaign');
    const again = await runProfile(target('global-fifo', broken('global-fifo')), {
      runs: RUNS,
      rules: ['account-head-only'],
      replay: { rule: 'account-head-only', path: d?.path ?? '' },
    });
    expect(again.rules.find((r) => r.rule === 'account-head-only')?.departure?.story).toBe(d?.story);
  });

  it('never calls a rule conforming when the time limit ran out first', async () => {
    const { Budget } = await import('../budget.ts');
    const budget = new Budget(1);
    await new Promise((r) => setTimeout(r, 5));
    const p = await runProfile(target('JobStore', jobStoreFactory()), { runs: RUNS, budget });
    budget.dispose();
    expect(p.verdict).toBe('incomplete');
    expect(p.rules.filter((r) => r.status === 'conforms')).toEqual([]);
  });
});
