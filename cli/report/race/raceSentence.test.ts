/**
 * The race's sentence for each kind of race the in-process catalogue holds, each caught by a real
 * check of its competing workers with a fixed seed (a fraction of a second each), and the neutral
 * sentence where no reading fits. Each expected sentence was checked by hand against the race's
 * story (its lanes, replies and witness as the text output prints them). The Python stores' races (a double effect, a lane's own order,
 * a stale ack over a process) are held to theirs in examples/python/racy.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { concurrentBrokenVariant } from '../../../conformance/broken/index.ts';
import { runCheck } from '../../../conformance/check/index.ts';
import type { RaceFailure } from '../../../conformance/check/failure.ts';
import { jobStoreFactory } from '../../../conformance/stores/jobStore.ts';
import { raceSentence } from './raceSentence.ts';

/** The race a check of `name`'s competing workers (3 lanes) finds with `seed`, as `jobcheck check --concurrent only` does. */
async function race(name: string, seed: number, runs: number): Promise<RaceFailure> {
  const variant = concurrentBrokenVariant(name);
  if (variant === undefined) throw new Error(`no racy variant named ${name}`);
  const target = `broken/${name}`;
  const report = await runCheck(
    { name: target, factory: jobStoreFactory(variant.Store, target), concurrentFactory: variant.factory },
    { seed, runs: 1, concurrent: { workers: 3, runs, when: 'only' } },
  );
  if (report.failure?.kind !== 'race') throw new Error(`${name} was not caught with seed ${seed}`);
  return report.failure;
}

describe('raceSentence', () => {
  it.each([
    [
      'claim-reads-then-writes',
      1,
      100,
      /^Two overlapping claims both got job d: #10 by w1 \(token 3, lease until 4\) and #9 by w2 \(token 4\) at now 3, before that lease ran out\.$/,
    ],
    [
      'capacity-check-then-insert',
      3,
      100,
      /^Overlapping submits #1 and #2 were both admitted, where the model refuses #1 \(job a\) with capacity_exceeded \(capacity 1\)\.$/,
    ],
    [
      'ack-checks-then-settles',
      3,
      1000,
      /^The ack #5 with the old token 1 settled job a, and the claim #6 by w2 took job a again \(token 2\): no order accepts both\.$/,
    ],
    [
      'account-check-outside-lock',
      2,
      100,
      /^Two overlapping claims got jobs a and f of account y: #7 by w3 started f while a was still running \(#6 by w2\), where an account runs one job at a time\.$/,
    ],
  ] as const)('tells the race of %s (seed %i) in the store’s words', async (name, seed, runs, said) => {
    expect(raceSentence(await race(name, seed, runs))).toMatch(said);
  });

  it('falls back to the witness where no reading fits: the request no order could place, its reply and the model’s', async () => {
    // An ack refused for a clock it did not see pass: no job was delivered twice and no account ran two jobs.
    const failure = await race('account-check-outside-lock', 1, 100);
    const stuck = failure.race.witness?.stuck[0];
    expect(stuck?.id).toBe(6);
    expect(raceSentence(failure)).toBe(
      'No order of the requests explains the replies: after the 5 requests the checker could place, #6 (ack token=1 by w1) got "clock_regressed" where the model replies "ok (a done)".',
    );
  });

  it('names the first differing field where the stuck request is a snapshot, and says an implementation failed', async () => {
    const failure = await race('account-check-outside-lock', 1, 100);
    const run = failure.race.run;
    if (run === null || failure.race.witness === null) throw new Error('the race has no run');
    const snapshot = { format: 'jobcheck.snapshot/1', jobs: { a: { status: 'done' } } };
    const atSnapshot = {
      ...failure,
      race: {
        ...failure.race,
        witness: {
          longestOrder: [1, 2, 3, 4, 5],
          stuck: [
            { id: run.snapshotId, expected: snapshot, observed: { ...snapshot, jobs: { a: { status: 'dead' } } } },
          ],
        },
      },
    } as RaceFailure;
    expect(raceSentence(atSnapshot)).toBe(
      `No order of the requests explains the replies: after the 5 requests the checker could place, #${run.snapshotId} (snapshot) got jobs.a.status "dead" where the model has "done".`,
    );
    const failed = {
      ...failure,
      race: { ...failure.race, kind: 'impl_error', witness: null, error: 'lane 1 closed its connection' },
    } as RaceFailure;
    expect(raceSentence(failed)).toBe(
      'The implementation failed under competing requests: lane 1 closed its connection',
    );
  });
});
