import { describe, expect, it } from 'vitest';
import type { Reply, Snapshot } from '../contract/index.ts';
import type { Fixture, FixtureDriver } from './fixtures.ts';
import {
  FixtureError,
  isSubset,
  listFixtures,
  loadFixture,
  modelDriver,
  parseFixture,
  runFixture,
} from './fixtures.ts';

const STORIES = [
  // 000: the job-store capstone
  'commit-restart-redeliver',
  'ack-before-commit',
  'exact-lease-equality',
  'last-attempt-expiry',
  'future-same-account-retry',
  'conflict-reuse',
  'snapshot-aliasing',
  // 003: the queue-delivery lab
  'normal',
  'early-ack',
  'lost-ack-safe-replay',
  'changed-operation-key',
  'changed-payload-same-key',
  'lease-boundary-now4-now5',
];

describe('the failure-story fixtures', () => {
  it('are exactly the thirteen stories of the two source texts', () => {
    expect(listFixtures()).toEqual([...STORIES].sort());
  });

  it.each(listFixtures())('%s passes against the reference model', async (name) => {
    const fixture = loadFixture(name);
    const result = await runFixture(fixture, modelDriver(fixture.config));
    expect(result).toEqual({ ok: true, fixture: name, steps: fixture.steps.length });
  });

  it('use the names of the queue-delivery lab for its stories', () => {
    for (const name of listFixtures()) {
      const f = loadFixture(name);
      if (f.source === '003') expect(f.focus.account).toBe('north');
    }
    expect(JSON.stringify(loadFixture('normal').steps[0])).toContain('J-12:draft:v1');
  });
});

/** A copy of a fixture with one expectation changed by `edit`. */
function edited(
  name: string,
  edit: (f: { steps: Record<string, unknown>[]; final: { balances: Record<string, number> } }) => void,
): Fixture {
  const copy = structuredClone(loadFixture(name)) as unknown as Parameters<typeof edit>[0];
  edit(copy);
  return copy as unknown as Fixture;
}

describe('runFixture', () => {
  it('reports a wrong reply as a mismatch with its step number, not an exception', async () => {
    const f = edited('lease-boundary-now4-now5', (x) => {
      x.steps[4] = { ...x.steps[4], expect: { ok: true, type: 'commit' } };
    });
    const result = await runFixture(f, modelDriver(f.config));
    expect(result).toMatchObject({ ok: false, step: 5, check: 'reply', expected: { ok: true, type: 'commit' } });
    expect(result.ok ? undefined : result.actual).toMatchObject({ ok: false, code: 'stale_token' });
  });

  it('reports a wrong job expectation after a step', async () => {
    const f = edited('lease-boundary-now4-now5', (x) => {
      x.steps[4] = { ...x.steps[4], expectJobs: { 'J-12': { status: 'running' } } };
    });
    const result = await runFixture(f, modelDriver(f.config));
    expect(result).toMatchObject({ ok: false, step: 5, check: 'jobs' });
  });

  it('reports wrong final balances', async () => {
    const f = edited('normal', (x) => {
      x.final.balances = { north: 2 };
    });
    expect(await runFixture(f, modelDriver(f.config))).toMatchObject({ ok: false, step: 'final', check: 'balances' });
  });

  it('never compares the message of a rejection', async () => {
    const f = edited('early-ack', (x) => {
      x.steps[3] = { ...x.steps[3], expect: { ok: false, code: 'stale_token', message: 'anything at all' } };
    });
    expect(await runFixture(f, modelDriver(f.config))).toMatchObject({ ok: false, step: 4, check: 'reply' });
  });

  it('catches a driver that keeps an alias to the snapshot it returned', async () => {
    const fixture = loadFixture('snapshot-aliasing');
    const inner = modelDriver(fixture.config);
    let last: Snapshot | undefined;
    // A leaky store: hands out the same object until the next command.
    const leaky: FixtureDriver = {
      execute: async (c: unknown): Promise<Reply> => {
        last = undefined;
        return inner.execute(c);
      },
      snapshot: async () => (last ??= await inner.snapshot()),
      restart: () => inner.restart(),
      restoreFrom: (s) => inner.restoreFrom(s),
    };
    const result = await runFixture(fixture, leaky);
    expect(result).toMatchObject({ ok: false, step: 7, check: 'aliasSnapshot' });
  });

  it('catches a driver that keeps an alias to the object it was restored from', async () => {
    const fixture = loadFixture('snapshot-aliasing');
    const inner = modelDriver(fixture.config);
    let restoredFrom: Snapshot | undefined;
    const leaky: FixtureDriver = {
      execute: (c) => inner.execute(c),
      snapshot: async () => restoredFrom ?? inner.snapshot(),
      restart: () => inner.restart(),
      restoreFrom: async (s) => {
        restoredFrom = s as Snapshot;
        await inner.restoreFrom(s);
      },
    };
    expect(await runFixture(fixture, leaky)).toMatchObject({ ok: false, step: 8, check: 'aliasRestore' });
  });

  it('catches a restart that forgets the effect ledger', async () => {
    const fixture = loadFixture('commit-restart-redeliver');
    const inner = modelDriver(fixture.config);
    const forgetful: FixtureDriver = {
      ...inner,
      restart: async () => {
        const s = await inner.snapshot();
        await inner.restoreFrom({ ...s, balances: {}, effects: {} });
      },
    };
    const result = await runFixture(fixture, forgetful);
    expect(result).toMatchObject({ ok: false, step: 5, check: 'reply', expected: { applied: false, balance: 7 } });
  });
});

describe('loadFixture', () => {
  it('refuses an unknown name with a typed error', () => {
    expect(() => loadFixture('no-such-story')).toThrow(FixtureError);
    try {
      loadFixture('no-such-story');
    } catch (e) {
      expect((e as FixtureError).code).toBe('unknown_fixture');
    }
  });

  it('refuses a malformed fixture naming the bad field', () => {
    const bad = structuredClone(loadFixture('normal')) as unknown as { steps: Record<string, unknown>[] };
    bad.steps[1] = { restart: 'yes' };
    expect(() => parseFixture(bad)).toThrow(/steps\.1/);
    const noConfig = { ...loadFixture('normal'), config: { capacity: 0 } };
    expect(() => parseFixture(noConfig)).toThrow(FixtureError);
  });
});

describe('isSubset', () => {
  it('matches nested partial objects and nothing weaker', () => {
    expect(isSubset({ a: { b: 1 } }, { a: { b: 1, c: 2 }, d: 3 })).toBe(true);
    expect(isSubset({ a: { b: 1 } }, { a: { b: 2 } })).toBe(false);
    expect(isSubset({ job: null }, { job: { id: 'x' } })).toBe(false);
    expect(isSubset({ job: null }, {})).toBe(false);
    expect(isSubset({ a: undefined }, {})).toBe(false);
  });
});
