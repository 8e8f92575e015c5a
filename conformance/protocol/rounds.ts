/**
 * Rounds of concurrent requests, for the tests of both ends of jobcheck/2: each round's requests
 * are sent at once (one per lane, all with the same `now`), and the round settles before the next
 * is sent. Because rounds never overlap, the history is linearizable exactly when each round's
 * replies are the model's for some order of that round's requests, from a state some order of the
 * earlier rounds reached; with a handful of requests per round every order can be tried. This is
 * a brute-force check for small tests, not the concurrent checker of conformance/concurrent/.
 */
import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import type { Config, Snapshot } from '../../contract/index.ts';
import { initialState, step, toSnapshot } from '../../model/index.ts';
import type { ModelState } from '../../model/index.ts';
import { comparableReply } from '../lockstep/compare.ts';
import type { ConcurrentAdapter } from '../concurrent/adapter.ts';

/** What running some rounds established. */
export type RoundsOutcome =
  | { readonly explained: true; readonly rounds: number }
  | {
      readonly explained: false;
      readonly round: number;
      readonly commands: readonly unknown[];
      readonly replies: readonly unknown[];
      readonly why: string;
    };

/** Every order of 0 .. n-1. Pure. */
function orders(n: number): number[][] {
  if (n === 0) return [[]];
  return orders(n - 1).flatMap((o) => Array.from({ length: n }, (_, at) => [...o.slice(0, at), n - 1, ...o.slice(at)]));
}

/**
 * Sends each round (its i-th command on lane i) and checks that some order of every round gives
 * the replies seen, and that the final snapshot is that of a state so reached. An indefinite
 * outcome or a process failure rejects: these tests expect every request answered.
 */
export async function runRounds(
  adapter: ConcurrentAdapter,
  config: Config,
  rounds: readonly (readonly unknown[])[],
): Promise<RoundsOutcome> {
  let states = new Map<string, ModelState>([[JSON.stringify(toSnapshot(initialState(config))), initialState(config)]]);
  for (const [r, commands] of rounds.entries()) {
    const replies = await Promise.all(commands.map((command, lane) => adapter.execute(lane, command)));
    const next = new Map<string, ModelState>();
    for (const start of states.values()) {
      for (const order of orders(commands.length)) {
        let state = start;
        const fits = order.every((i) => {
          const result = step(state, commands[i]);
          state = result.state;
          return isDeepStrictEqual(comparableReply(result.reply), comparableReply(replies[i]));
        });
        if (fits) next.set(JSON.stringify(toSnapshot(state)), state);
      }
    }
    if (next.size === 0)
      return { explained: false, round: r, commands, replies, why: 'no order of the round gives these replies' };
    states = next;
  }
  const snapshot: Snapshot = await adapter.snapshot();
  if (![...states.values()].some((s) => isDeepStrictEqual(toSnapshot(s), snapshot))) {
    return {
      explained: false,
      round: rounds.length,
      commands: [],
      replies: [snapshot],
      why: 'the final snapshot is no state the rounds could reach',
    };
  }
  return { explained: true, rounds: rounds.length };
}

const ids = fc.constantFrom('a', 'b', 'c', 'd');
const accounts = fc.constantFrom('acme', 'globex');
const keys = fc.constantFrom('k1', 'k2');

/** One command of a round on `lane` (its worker is `w<lane>`), at `now`. */
const commandOn = (lane: number, now: number): fc.Arbitrary<unknown> => {
  const worker = `w${lane}`;
  const token = fc.integer({ min: 1, max: 6 });
  return fc.oneof(
    {
      weight: 3,
      arbitrary: fc.record({
        type: fc.constant('submit'),
        id: ids,
        account: accounts,
        key: keys,
        amount: fc.integer({ min: -2, max: 3 }),
        deadline: fc.integer({ min: now + 1, max: now + 12 }),
        now: fc.constant(now),
      }),
    },
    { weight: 4, arbitrary: fc.constant({ type: 'claim', worker, now }) },
    { weight: 2, arbitrary: token.map((t) => ({ type: 'commit', worker, token: t, now })) },
    { weight: 2, arbitrary: token.map((t) => ({ type: 'ack', worker, token: t, now })) },
    {
      weight: 1,
      arbitrary: fc
        .tuple(token, fc.constantFrom('transient', 'permanent'))
        .map(([t, kind]) => ({ type: 'fail', worker, token: t, kind, error: 'boom', now })),
    },
    { weight: 1, arbitrary: fc.constant({ type: 'tick', now }) },
  );
};

/**
 * Rounds of 1 to `lanes` commands, the clock moving by 0 to 2 between rounds. Claims are frequent
 * and tokens small, so that deliveries, commits and acks of live tokens happen, and claims race.
 */
export function roundsArbitrary(lanes: number, maxRounds = 8): fc.Arbitrary<unknown[][]> {
  return fc
    .array(fc.tuple(fc.integer({ min: 0, max: 2 }), fc.integer({ min: 1, max: lanes })), {
      minLength: 1,
      maxLength: maxRounds,
    })
    .chain((shape) => {
      let now = 0;
      return fc.tuple(
        ...shape.map(([step, size]) => {
          now += step;
          const at = now;
          return fc.tuple(...Array.from({ length: size }, (_, lane) => commandOn(lane, at)));
        }),
      ) as fc.Arbitrary<unknown[][]>;
    });
}

/** Rounds that make claims race: `jobs` submitted in one round, then rounds of `lanes` claims at once. */
export function claimRace(lanes: number, jobs: number, claimRounds = 3): unknown[][] {
  const submits = Array.from({ length: Math.min(jobs, lanes) }, (_, i) => ({
    type: 'submit',
    id: `j${i}`,
    account: `acct${i}`,
    key: 'k',
    amount: 1,
    deadline: 50,
    now: 1,
  }));
  const claims = Array.from({ length: claimRounds }, (_, r) =>
    Array.from({ length: lanes }, (_, lane) => ({ type: 'claim', worker: `w${lane}`, now: 2 + r })),
  );
  return [submits, ...claims];
}
