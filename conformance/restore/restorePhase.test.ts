/**
 * The restore phase: the snapshots it offers are each refused by the model, cover every kind of
 * refusal of contract section 10, and break only what they say; the phase agrees for the model,
 * impl/JobStore, the SQLite store (and the PostgreSQL store beside a server) and the Python
 * example over the protocol; and it fails, with a story, a store that takes them, refuses them
 * with another code, or refuses them while changing its store, and says NOT EXERCISED for stores
 * that cannot be offered one.
 */
import { describe, expect, it } from 'vitest';
import type { Snapshot } from '../../contract/index.ts';
import { JobcheckError } from '../../contract/index.ts';
import { STORE_INVARIANTS, fromSnapshot, violatedInvariant } from '../../model/index.ts';
import type { Adapter, AdapterFactory, RestoreAnswer } from '../adapter.ts';
import type { Budget } from '../budget.ts';
import { catalogueVariant } from '../broken/index.ts';
import { PhaseGate, runCheck } from '../check/index.ts';
import { ProcessError } from '../protocol/processError.ts';
import { findPython, pythonCommand } from '../../examples/python/interpreter.ts';
import { postgresMissing } from '../postgresEnv.ts';
import { processAdapterFactory } from '../protocol/index.ts';
import { jobStoreFactory } from '../stores/jobStore.ts';
import { modelFactory } from '../stores/model.ts';
import { postgresFactory } from '../stores/postgres.ts';
import { sqliteFactory } from '../stores/sqlite.ts';
import {
  BASE_SNAPSHOT,
  REFUSAL_KINDS,
  invalidSnapshots,
  modelRefusal,
  renderRestoreStory,
  runRestorePhase,
} from './index.ts';

/** An adapter over impl/JobStore whose offered restores go through `offer` instead. */
function withOffer(offer: (inner: Adapter, text: string) => Promise<RestoreAnswer>): AdapterFactory {
  const inner = jobStoreFactory();
  return async (config) => {
    const a = await inner(config);
    return {
      name: 'test store',
      execute: (c) => a.execute(c),
      snapshot: () => a.snapshot(),
      restart: () => a.restart(),
      offerRestore: (text) => offer(a, text),
      close: () => a.close(),
    };
  };
}

describe('the invalid snapshots', () => {
  const all = invalidSnapshots();

  it('start from a valid snapshot with a job of every status, an effect and its balance', () => {
    expect(() => fromSnapshot(BASE_SNAPSHOT)).not.toThrow();
    expect(violatedInvariant(fromSnapshot(BASE_SNAPSHOT), STORE_INVARIANTS)).toBeUndefined();
    expect(new Set(Object.values(BASE_SNAPSHOT.jobs).map((j) => j.status))).toEqual(
      new Set(['ready', 'waiting', 'running', 'done', 'dead']),
    );
    expect(BASE_SNAPSHOT.balances).toEqual({ acme: 5 });
  });

  it('are each refused by the model with invalid_snapshot, once each, and cover every kind of refusal', () => {
    expect(all.length).toBeGreaterThan(100);
    for (const s of all) expect(modelRefusal(s.text), s.name).toMatchObject({ code: 'invalid_snapshot' });
    expect(new Set(all.map((s) => s.text)).size).toBe(all.length);
    expect(new Set(all.map((s) => s.name)).size).toBe(all.length);
    for (const kind of REFUSAL_KINDS) expect(all.filter((s) => s.kind === kind).length, kind).toBeGreaterThan(0);
  });

  it("break what they say: each cross-field change is refused at the field it changes, for that field's rule", () => {
    const refusedAt = (name: string): string | undefined => all.find((s) => s.name === name)?.expected.path;
    expect(refusedAt('status_fields: jobs.b.leaseUntil left out')).toBe('jobs.b.leaseUntil');
    expect(refusedAt('tokens: jobs.b.token = 5')).toBe('jobs.b.token');
    expect(all.find((s) => s.name === 'tokens: jobs.c running with token 4, as jobs.b is')?.expected.message).toMatch(
      /must be unique among running jobs/,
    );
    expect(refusedAt('seq: jobs.e.seq = 4')).toBe('jobs.e.seq');
    expect(all.find((s) => s.name === 'capacity: config.capacity = 2')?.expected.message).toMatch(/more than capacity/);
    expect(
      all.find((s) => s.name === 'account_order: jobs.e waiting behind jobs.b in account acme')?.expected.message,
    ).toMatch(/not the account's earliest unresolved job/);
    expect(refusedAt('ledger: balances.acme = 6')).toBe('balances.acme');
    expect(refusedAt('unknown_field: __proto__ = {"status":"done"}')).toBe('__proto__');
  });

  it('hold hostile numbers as JSON text: too large for a safe integer, or for any JavaScript number', () => {
    const texts = all.map((s) => s.text);
    expect(texts.some((t) => t.includes('"clock":1e400'))).toBe(true);
    expect(texts.some((t) => t.includes('"nextToken":9007199254740993'))).toBe(true);
  });
});

describe('the restore phase', () => {
  it.each([
    ['the model', modelFactory],
    ['impl/JobStore', jobStoreFactory()],
    ['the SQLite store', sqliteFactory()],
  ] as const)(
    'agrees for %s: every snapshot refused with invalid_snapshot, the store unchanged',
    async (_, factory) => {
      const r = await runRestorePhase(factory);
      expect(r.outcomes.filter((o) => !o.ok).map((o) => o.snapshot.name)).toEqual([]);
      expect(r).toMatchObject({ verdict: 'agree', notRun: [], setup: null, notExercised: null });
      expect(r.outcomes.length).toBe(invalidSnapshots().length);
    },
  );

  it('fails restore-accepts-anything: every snapshot taken, told as a story of two steps', async () => {
    const variant = catalogueVariant('restore-accepts-anything');
    expect(variant).toBeDefined();
    const r = await runRestorePhase(variant?.factory as AdapterFactory);
    expect(r.verdict).toBe('diverge');
    expect(r.outcomes.every((o) => o.seen.answer === 'accepted')).toBe(true);
    const story = renderRestoreStory(r.outcomes[0] as (typeof r.outcomes)[number], r.adapter);
    expect(story).toContain('took a snapshot the contract refuses');
    expect(story).toContain('  2. restore the snapshot of step 1 with jobs.b.leaseUntil left out');
    expect(story).toMatch(
      /model: \{"ok":false,"code":"invalid_snapshot"\} {2}-- invalid snapshot: jobs\.b\.leaseUntil/,
    );
    expect(story).toContain('impl:  {"ok":true,"type":"restore"}');
  });

  it('fails a refusal with another code, and one that changes the store, saying which', async () => {
    const wrongCode = await runRestorePhase(
      withOffer(async (a, text) => {
        const answer = await (a.offerRestore as (t: string) => Promise<RestoreAnswer>)(text);
        return answer.answer === 'refused' ? { ...answer, code: 'invalid_argument' } : answer;
      }),
    );
    expect(wrongCode.verdict).toBe('diverge');
    expect(wrongCode.outcomes[0]?.seen).toMatchObject({ answer: 'refused', code: 'invalid_argument' });
    expect(renderRestoreStory(wrongCode.outcomes[0] as never, 'x')).toContain(
      '>> reply differs at reply.code: model "invalid_snapshot", impl "invalid_argument"',
    );

    // A refusal that empties the store first: the refusal is right, the store is not as it was.
    const halfApplied = await runRestorePhase(
      withOffer(async (a, text) => {
        const answer = await (a.offerRestore as (t: string) => Promise<RestoreAnswer>)(text);
        if (answer.answer === 'refused')
          await a.restoreFrom?.({ ...BASE_SNAPSHOT, jobs: {}, balances: {}, effects: {} });
        return answer;
      }),
    );
    expect(halfApplied.verdict).toBe('diverge');
    const first = halfApplied.outcomes[0];
    expect(first?.changed?.difference.path).toMatch(/^(jobs|balances|effects)/);
    expect(renderRestoreStory(first as never, 'x')).toContain(
      '  3. snapshot: a refused restore leaves the store as it was',
    );
  });

  it('is not exercised, and says why, for stores that cannot be offered a snapshot', async () => {
    const bare: AdapterFactory = async (config) => {
      const a = await jobStoreFactory()(config);
      return {
        name: 'bare',
        execute: (c) => a.execute(c),
        snapshot: () => a.snapshot(),
        restart: () => a.restart(),
        close: () => a.close(),
      };
    };
    const none = await runRestorePhase(bare);
    expect(none).toMatchObject({ verdict: 'not_exercised', outcomes: [] });
    expect(none.notExercised).toMatch(/neither offerRestore nor restoreFrom/);
    const unsupported = await runRestorePhase(
      withOffer(async () => ({ answer: 'unsupported', why: 'no restoreFrom' })),
    );
    expect(unsupported).toMatchObject({ verdict: 'not_exercised', notExercised: 'no restoreFrom' });
  });

  it('offers through restoreFrom when there is no offerRestore: a coded error is the refusal', async () => {
    const viaRestoreFrom: AdapterFactory = async (config) => {
      const a = await jobStoreFactory()(config);
      return {
        name: 'restoreFrom only',
        execute: (c) => a.execute(c),
        snapshot: () => a.snapshot(),
        restart: () => a.restart(),
        restoreFrom: (s: Snapshot) =>
          a.restoreFrom?.(s) ?? Promise.reject(new JobcheckError('invalid_snapshot', '', 'no')),
        close: () => a.close(),
      };
    };
    expect((await runRestorePhase(viaRestoreFrom)).verdict).toBe('agree');
  });

  it('leaves what the time limit kept from it not run, never a pass', async () => {
    let offered = 0;
    // The phase reads only whether the budget has run out: here, after the 20th snapshot offered.
    const budget = {
      get expired() {
        return offered >= 20;
      },
    } as unknown as Budget;
    const r = await runRestorePhase(
      withOffer(async (a, text) => {
        offered += 1;
        return (a.offerRestore as (t: string) => Promise<RestoreAnswer>)(text);
      }),
      { budget },
    );
    expect(r.verdict).toBe('incomplete');
    expect(r.outcomes.length).toBe(19);
    expect(r.notRun.length).toBe(invalidSnapshots().length - 19);
  });

  it('replaces a store that cannot go back to the valid snapshot (as a starter that took null), and offers every snapshot', async () => {
    // A store that takes anything, and after taking `null` has no state left to restore into.
    const starterLike: AdapterFactory = async (config) => {
      const a = await jobStoreFactory()(config);
      let gone = false;
      return {
        name: 'starter-like',
        execute: (c) => a.execute(c),
        snapshot: () => a.snapshot(),
        restart: () => a.restart(),
        offerRestore: async (text) => {
          if (gone) return { answer: 'refused', code: 'invalid_argument', message: 'send hello first' };
          gone = text === 'null';
          // A valid snapshot is restored; an invalid one is said to be taken, and changes nothing.
          await (a.offerRestore as (t: string) => Promise<RestoreAnswer>)(text);
          return { answer: 'accepted' };
        },
        close: () => a.close(),
      };
    };
    const r = await runRestorePhase(starterLike);
    expect(r).toMatchObject({ verdict: 'diverge', notRun: [], setup: null });
    expect(r.outcomes).toHaveLength(invalidSnapshots().length);
    expect(r.outcomes.every((o) => o.seen.answer === 'accepted')).toBe(true);
  });

  it("gives up behind its phase's gate after a reply timeout, instead of waiting out one for every snapshot", async () => {
    let offered = 0;
    const gate = new PhaseGate();
    const r = await runRestorePhase(
      gate.factory(
        withOffer(async (a, text) => {
          if (++offered === 3) throw new ProcessError('timeout', 'no reply within 1 ms', { command: 'x' });
          return (a.offerRestore as (t: string) => Promise<RestoreAnswer>)(text);
        }),
      ),
    );
    expect(gate.closed).toBe('timeout');
    expect(offered).toBe(3);
    expect(r.verdict).toBe('diverge');
    expect(r.outcomes.map((o) => o.seen.answer)).toEqual(['refused', 'failed']);
    expect(r.notRun).toHaveLength(invalidSnapshots().length - 2);
  });

  it('replaces a store that failed, and goes on with a fresh one', async () => {
    let offered = 0;
    const r = await runRestorePhase(
      withOffer(async (a, text) => {
        if (++offered === 3) throw new Error('connection lost');
        return (a.offerRestore as (t: string) => Promise<RestoreAnswer>)(text);
      }),
    );
    expect(r.verdict).toBe('diverge');
    expect(r.outcomes.filter((o) => !o.ok)).toHaveLength(1);
    expect(r.outcomes[1]?.seen).toEqual({ answer: 'failed', error: 'connection lost' });
    expect(r.outcomes.length).toBe(invalidSnapshots().length);
  });
});

describe('the restore phase in a check', () => {
  it('diverges for restore-accepts-anything, which every other phase passes, with the restore story shown', async () => {
    const variant = catalogueVariant('restore-accepts-anything');
    const report = await runCheck(
      { factory: variant?.factory as AdapterFactory },
      { runs: 20, seed: 1, noExplore: true },
    );
    expect(report.verdict).toBe('diverge');
    expect(report.fixtures.every((f) => f.result.ok)).toBe(true);
    expect(report.paths.failures).toEqual([]);
    expect(report.campaign.verdict).toBe('agree');
    expect(report.failure).toMatchObject({ kind: 'restore', source: 'restore', steps: 2 });
  });

  it("shows a story of the behaviour before the restore phase's, even a longer one (restart-resets-tokens)", async () => {
    const variant = catalogueVariant('restart-resets-tokens');
    const report = await runCheck(
      { factory: variant?.factory as AdapterFactory },
      { runs: 20, seed: 1, noExplore: true },
    );
    // Its restore of the valid snapshot comes back with another nextToken: the phase diverges in 2 steps ...
    expect(report.restore).toMatchObject({ verdict: 'diverge', outcomes: [] });
    expect(report.restore?.setup?.changed?.difference.path).toBe('nextToken');
    // ... and the story shown is still one that replays, from a phase of the behaviour.
    expect(report.failure?.kind).not.toBe('restore');
    expect(report.failure?.steps).toBeGreaterThan(2);
  });

  it('is left out on purpose with noRestore, and the check can then agree', async () => {
    const variant = catalogueVariant('restore-accepts-anything');
    const report = await runCheck(
      { factory: variant?.factory as AdapterFactory },
      { runs: 10, seed: 1, noExplore: true, noRestore: true },
    );
    expect(report).toMatchObject({ verdict: 'agree', restore: null, restoreLeftOut: true });
  });
});

const python = findPython();
describe.skipIf(python === undefined)('the restore phase over the protocol', () => {
  it('agrees for the Python example, and fails its variant whose refusal empties the store', async () => {
    const good = processAdapterFactory(pythonCommand(python as string, 'examples/python/jobstore.py'));
    const bad = processAdapterFactory(
      pythonCommand(python as string, 'examples/python/broken/restore_half_applied.py'),
    );
    try {
      expect((await runRestorePhase(good)).verdict).toBe('agree');
      const r = await runRestorePhase(bad);
      expect(r.verdict).toBe('diverge');
      expect(r.outcomes.every((o) => o.seen.answer === 'refused' && o.changed !== undefined)).toBe(true);
    } finally {
      await Promise.all([good.close(), bad.close()]);
    }
  }, 60_000);
});

const missing = postgresMissing();
describe.skipIf(missing !== undefined)(
  `the restore phase on PostgreSQL${missing === undefined ? '' : ` (skipped: ${missing})`}`,
  () => {
    it('agrees for the PostgreSQL store: every refusal before its new schema is made', async () => {
      const r = await runRestorePhase(postgresFactory());
      expect(r.outcomes.filter((o) => !o.ok).map((o) => o.snapshot.name)).toEqual([]);
      expect(r.verdict).toBe('agree');
    }, 120_000);
  },
);
