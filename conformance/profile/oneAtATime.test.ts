import { describe, expect, it } from 'vitest';
import type { NotLinearizable } from '../concurrent/result.ts';
import { inFlightTogether, sentOrderIds } from './oneAtATime.ts';

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
