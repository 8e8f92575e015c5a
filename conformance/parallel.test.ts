import { describe, expect, it } from 'vitest';
import { CATALOGUE } from './broken/index.ts';
import { jobStoreFactory } from './stores/jobStore.ts';
import type { Adapter, AdapterFactory } from './adapter.ts';
import { runCampaign } from './random/campaign.ts';
import { inOrder } from './parallel.ts';

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * An adapter whose every answer comes after 0 to 3 turns of the event loop, so that
 * parallel runs finish out of order (a later run can fail before an earlier one does).
 */
function jittered(factory: AdapterFactory): AdapterFactory {
  let n = 0;
  return async (config) => {
    const inner = await factory(config);
    const wait = async (): Promise<void> => {
      for (let hops = (n++ * 7919) % 4; hops > 0; hops--) await new Promise((resolve) => setImmediate(resolve));
    };
    const adapter: Adapter = {
      name: inner.name,
      execute: async (c) => {
        await wait();
        return inner.execute(c);
      },
      snapshot: async () => {
        await wait();
        return inner.snapshot();
      },
      restart: async () => {
        await wait();
        return inner.restart();
      },
      close: () => inner.close(),
    };
    return adapter;
  };
}

describe('runs in flight at once', () => {
  it('inOrder returns outcomes by index, never has more than `lanes` in flight, and starts nothing once told to stop', async () => {
    let inFlight = 0;
    let most = 0;
    const started: number[] = [];
    const out = await inOrder(
      20,
      3,
      async (i) => {
        started.push(i);
        inFlight += 1;
        most = Math.max(most, inFlight);
        await sleep((i * 5) % 4);
        inFlight -= 1;
        return i * 10;
      },
      (i) => i >= 12,
    );
    expect(most).toBe(3);
    expect(started).toEqual([...Array(12).keys()]);
    expect(out).toEqual([...[...Array(12).keys()].map((i) => i * 10), ...Array(8).fill(undefined)]);
  });

  it.each(['lease-one-tick-late', 'global-fifo', 'restart-forgets-ledger'])(
    'a campaign against %s finds, shrinks and tells the same failure with 1 or 5 runs at once',
    async (name) => {
      const variant = CATALOGUE.find((v) => v.name === name);
      if (variant === undefined) throw new Error(name);
      const one = await runCampaign({ factory: jittered(variant.factory), runs: 100, seed: 11, parallel: 1 });
      const five = await runCampaign({ factory: jittered(variant.factory), runs: 100, seed: 11, parallel: 5 });
      expect(one.verdict).toBe('diverge');
      const same = (r: typeof one): unknown => ({
        path: r.path,
        story: r.story,
        runs: r.runs,
        commands: r.commands,
        toFirst: r.commandsToFirstFailure,
        length: r.firstFailureLength,
        coverage: r.coverage.items,
      });
      expect(same(five)).toEqual(same(one));
    },
    30_000,
  );

  it('a campaign that agrees covers and counts the same with 1 or 5 runs at once', async () => {
    const one = await runCampaign({ factory: jittered(jobStoreFactory()), runs: 40, seed: 5, parallel: 1 });
    const five = await runCampaign({ factory: jittered(jobStoreFactory()), runs: 40, seed: 5, parallel: 5 });
    expect(five.verdict).toBe('agree');
    expect({
      runs: five.runs,
      commands: five.commands,
      discarded: five.commandsDiscarded,
      items: five.coverage.items,
    }).toEqual({ runs: one.runs, commands: one.commands, discarded: 0, items: one.coverage.items });
  }, 30_000);
});
