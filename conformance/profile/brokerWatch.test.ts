/**
 * A profile whose broker is lost mid-run (no real broker: a store that throws BrokerLostError from
 * its n-th call on, as lossAware makes a client's dead socket) leaves every rule it had not judged
 * `unknown` with the loss as its reason, the profile incomplete and its loss said once, asks the
 * broker nothing after the loss, and never counts what the loss did as a departure or flaky; a
 * call that never settles ends at the time limit.
 */
import { describe, expect, it } from 'vitest';
import type { Adapter, AdapterFactory } from '../adapter.ts';
import { Budget } from '../budget.ts';
import { jobStoreFactory } from '../stores/jobStore.ts';
import { BrokerLostError } from './BrokerLostError.ts';
import { BrokerWatch } from './brokerWatch.ts';
import { lossAwareFactory } from './lossAware.ts';
import { renderProfileText } from './render.ts';
import { profileSchema } from './result.ts';
import { runConcurrentProfile } from './concurrentProfile.ts';
import { runProfile } from './runProfile.ts';
import type { ProfileTarget } from './target.ts';
import { lockedJobStoreFactory } from '../concurrent/inProcess.ts';

const WHERE = { broker: 'Queue', address: '127.0.0.1:9' };

/** The built-in store whose calls, from the `after`-th on (counting every instance's), throw what a lost connection throws; counts the calls made after. */
function dying(after: number, wall = false): { target: ProfileTarget; asked: () => number } {
  let calls = 0;
  let askedAfter = 0;
  const inner = jobStoreFactory();
  const lost = (): boolean => {
    calls += 1;
    if (calls < after) return false;
    askedAfter += 1;
    return true;
  };
  const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), { code: 'ECONNREFUSED' });
  const factory: AdapterFactory = async (config) => {
    if (lost()) throw refused;
    const a = await inner(config);
    const guard =
      <A extends unknown[], R>(f: (...args: A) => Promise<R>) =>
      async (...args: A): Promise<R> => {
        if (lost()) throw refused;
        return f(...args);
      };
    const store: Adapter = {
      name: a.name,
      execute: guard((c: unknown) => a.execute(c)),
      snapshot: guard(() => a.snapshot()),
      restart: guard(() => a.restart()),
      close: () => a.close(),
    };
    return store;
  };
  return {
    target: {
      queue: 'dying',
      version: '1',
      factory: lossAwareFactory(factory, { where: () => WHERE }),
      declarations: {},
      ...(wall ? { clock: { kind: 'wall' as const, tickMs: 1 } } : {}),
    },
    asked: () => askedAfter,
  };
}

describe('a broker lost mid-profile', () => {
  it('leaves the rules not judged unknown, the profile incomplete, and says the loss once', async () => {
    const { target, asked } = dying(400);
    const profile = await runProfile(target, { runs: 5, seed: 3 });
    expect(profile.verdict).toBe('incomplete');
    expect(profile.lost).toContain('Queue at 127.0.0.1:9: connection refused (ECONNREFUSED)');
    const unknown = profile.rules.filter((r) => r.status === 'unknown');
    expect(unknown.length).toBeGreaterThan(0);
    for (const r of unknown) expect(r.reason).toBe(profile.lost);
    // What the loss did is no departure, no flaky rule, no divergence of its own.
    expect(profile.rules.filter((r) => ['departs', 'flaky', 'not_reached'].includes(r.status))).toEqual([]);
    expect(profile.unattributed).toEqual([]);
    // Asked once more at most per run in flight (one at a time here): the call that found the loss.
    expect(asked()).toBe(1);
    const text = renderProfileText(profile);
    expect(text.match(/127\.0\.0\.1:9/g)).toHaveLength(1);
    expect(profileSchema.parse(JSON.parse(JSON.stringify(profile)))).toEqual(profile);
  });

  it('judges what ran before the loss: a broker that is never lost conforms', async () => {
    const { target } = dying(Number.POSITIVE_INFINITY);
    const profile = await runProfile(target, { runs: 3, seed: 3 });
    expect(profile.verdict).toBe('conforms');
    expect(profile.lost).toBeUndefined();
  });

  it('shares the loss with competing workers: they ask nothing and are unknown', async () => {
    const { target } = dying(200);
    const watch = new BrokerWatch();
    const profile = await runProfile(target, { runs: 3, seed: 3, watch });
    expect(watch.lost).toBeInstanceOf(BrokerLostError);
    let created = 0;
    const concurrentFactory = lockedJobStoreFactory();
    const section = await runConcurrentProfile(
      {
        ...target,
        concurrentFactory: (config, o) => {
          created += 1;
          return concurrentFactory(config, o);
        },
      },
      { workers: 2, runs: 3, watch, staleAck: true, races: true },
    );
    expect(profile.verdict).toBe('incomplete');
    expect(section.verdict).toBe('unknown');
    expect(section.reason).toContain('the broker was lost: Queue at 127.0.0.1:9');
    expect(section.staleAck?.verdict ?? 'unknown').toBe('unknown');
    expect(created).toBe(0);
  });

  it('ends a call that never settles at the time limit', async () => {
    const budget = new Budget(300);
    const never: AdapterFactory = () => new Promise(() => undefined);
    const t0 = performance.now();
    const profile = await runProfile(
      { queue: 'never', version: '1', factory: never, declarations: {} },
      { runs: 2, budget },
    );
    budget.dispose();
    expect(performance.now() - t0).toBeLessThan(5_000);
    expect(profile.verdict).toBe('incomplete');
    expect(profile.rules.some((r) => r.status === 'budget_exhausted')).toBe(true);
  });
});
