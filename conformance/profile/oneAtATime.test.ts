import { describe, expect, it } from 'vitest';
import type { Config } from '../../contract/index.ts';
import type { AdapterFactory } from '../adapter.ts';
import type { NotLinearizable } from '../concurrent/result.ts';
import { jobStoreFactory } from '../stores/jobStore.ts';
import { closestOrderIds, departsOneAtATime, inFlightTogether, sentOrderIds } from './oneAtATime.ts';

/** A failure whose history holds operations sent and answered at the given instants (returned undefined: no reply). */
const failureOf = (spans: readonly (readonly [number, number | undefined])[]): NotLinearizable =>
  ({
    kind: 'not_linearizable',
    run: {
      history: {
        operations: spans.map(([invoked, returned], id) => ({
          id,
          lane: id % 2,
          input: { type: 'tick', now: 0 },
          invoked,
          ...(returned === undefined ? {} : { returned, output: { ok: true } }),
        })),
      },
    },
  }) as unknown as NotLinearizable;

describe('inFlightTogether', () => {
  it('says a history whose requests each came back before the next was sent is sequential', () => {
    expect(
      inFlightTogether(
        failureOf([
          [0, 1],
          [2, 3],
          [4, 5],
        ]),
      ),
    ).toBe(false);
    // Listed out of order, still sequential.
    expect(
      inFlightTogether(
        failureOf([
          [2, 3],
          [0, 1],
        ]),
      ),
    ).toBe(false);
  });

  it('finds two requests in flight together, in whatever order the history lists them', () => {
    expect(
      inFlightTogether(
        failureOf([
          [4, 7],
          [0, 1],
          [5, 6],
        ]),
      ),
    ).toBe(true);
  });

  it('counts a request that never got a reply as in flight from its sending on', () => {
    expect(
      inFlightTogether(
        failureOf([
          [0, undefined],
          [9, 10],
        ]),
      ),
    ).toBe(true);
    expect(inFlightTogether(failureOf([[0, undefined]]))).toBe(false);
  });
});

describe('sentOrderIds', () => {
  it('orders the requests as they were sent', () => {
    expect(
      sentOrderIds(
        failureOf([
          [4, 7],
          [0, 1],
          [2, 3],
        ]),
      ),
    ).toEqual([1, 2, 0]);
  });
});

describe('departsOneAtATime', () => {
  const config: Config = { capacity: 2, maxAttempts: 2, leaseTicks: 3, backoffBase: 1, backoffCap: 1 };
  const submit = { type: 'submit', id: 'a', account: 'x', key: 'k1', amount: 1, deadline: 9, now: 0 };
  const claim = { type: 'claim', worker: 'w2', now: 0 };
  const ack = { type: 'ack', worker: 'w1', token: 1, now: 0 };
  /**
   * A claim sent before the submit and answered after it with the submitted job, then another
   * worker's ack of that delivery, answered `stale_token` where the contract says `not_owner`.
   */
  const failure = {
    kind: 'not_linearizable',
    scenario: { config, workers: 2, rounds: [] },
    run: {
      history: {
        operations: [
          { id: 0, lane: 0, input: submit, invoked: 1, returned: 2, output: { ok: true } },
          { id: 1, lane: 1, input: claim, invoked: 0, returned: 3, output: { ok: true } },
          { id: 2, lane: 0, input: ack, invoked: 4, returned: 5, output: { ok: false, code: 'stale_token' } },
        ],
      },
    },
    witness: { longestOrder: [0, 1], stuck: [] },
  } as unknown as NotLinearizable;

  /** The reference store, except that an ack by anyone but the holder is answered `stale_token` (as a broker that knows channels, not workers). */
  const ownerBlind: AdapterFactory = async (c) => {
    const store = await jobStoreFactory()(c);
    return {
      ...store,
      name: 'owner-blind',
      execute: async (command: unknown) => {
        const reply = await store.execute(command);
        return !reply.ok && reply.code === 'not_owner'
          ? { ok: false, code: 'stale_token', message: 'another channel' }
          : reply;
      },
      snapshot: () => store.snapshot(),
      close: () => store.close(),
    };
  };

  it('puts the longest explained prefix first, then the other answered requests as sent', () => {
    expect(sentOrderIds(failure)).toEqual([1, 0, 2]);
    expect(closestOrderIds(failure)).toEqual([0, 1, 2]);
  });

  it('finds a departure that the order sent hides and the closest order shows, and none in the reference store', async () => {
    expect(await departsOneAtATime(ownerBlind, failure)).toBe('departs');
    expect(await departsOneAtATime(jobStoreFactory(), failure)).toBe('agrees');
  });
});
