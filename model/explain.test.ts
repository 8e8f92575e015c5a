import { describe, expect, it } from 'vitest';
import type { Config } from '../contract/index.ts';
import { explainRestart, explainSnapshotCopy, explainStep } from './explain.ts';
import type { Explanation } from './explain.ts';
import { loadFixtures } from './fixtures.ts';
import { rulesExercised } from './rules.ts';
import { fromSnapshot, initialState, step, toSnapshot } from './step.ts';
import type { ModelState } from './step.ts';

const base: Config = { capacity: 3, maxAttempts: 3, leaseTicks: 5, backoffBase: 4, backoffCap: 16 };

/** Runs the commands from an empty store and explains the last one, following job `focus`. */
function explainLast(commands: readonly unknown[], config: Config = base, focus = 'a'): readonly Explanation[] {
  let state: ModelState = initialState(config);
  for (const c of commands.slice(0, -1)) state = step(state, c).state;
  const last = commands.at(-1);
  return explainStep(state, last, step(state, last), { focus });
}
const sentences = (es: readonly Explanation[]): string[] => es.map((e) => e.sentence);

const submit = (id: string, now = 0, account = 'x', deadline = 100) => ({
  type: 'submit',
  id,
  account,
  key: `${id}:k`,
  amount: 2,
  deadline,
  now,
});
const claim = (worker: string, now: number) => ({ type: 'claim', worker, now });

describe('explainStep', () => {
  it('answers a claim at now=4 that a lease until 5 holds back with both values', () => {
    const es = explainLast([submit('a'), claim('w1', 0), claim('w2', 4)]);
    expect(sentences(es)).toContain('job a is running under token 1: the lease runs until 5; now is 4');
    expect(es.find((e) => e.guard === '!leaseExpired')?.values).toEqual({ leaseUntil: 5, now: 4, token: 1 });
  });

  it('says a waiting job is due at 7 when now is 4, and shows the backoff sum that set 7', () => {
    const failed = [
      submit('a'),
      claim('w1', 0),
      { type: 'fail', worker: 'w1', token: 1, kind: 'transient', error: 'x', now: 3 },
    ];
    expect(sentences(explainLast(failed))).toContain(
      'retry at now + min(base·2^(attempts−1), cap) = 3 + min(4·2^0, 16) = 3 + 4 = 7, before the deadline 100: job a waits until 7',
    );
    expect(sentences(explainLast([...failed, claim('w1', 4)]))).toContain('job a is waiting: it is due at 7; now is 4');
  });

  it('counts the ready, waiting and running jobs against the capacity when a submit is refused', () => {
    const es = explainLast([submit('a'), submit('b'), submit('c'), claim('w1', 0), submit('d', 1)]);
    expect(sentences(es)).toContain('3 jobs are ready, waiting or running (1 running); the capacity is 3: no room');
    expect(es[0]?.rule).toBe('capacity-counts-running');
  });

  it('names the stale token and the current one, and the expiry at the tick the lease ends', () => {
    const cmds = [submit('a'), claim('w1', 0), claim('w2', 5), { type: 'commit', worker: 'w1', token: 1, now: 6 }];
    expect(sentences(explainLast(cmds.slice(0, 3)))).toContain(
      "job a's lease ran until 5; now is 5 (attempts 1 of 3 used): it is ready again, its token 1 no longer current",
    );
    expect(sentences(explainLast(cmds))).toEqual(["the token is 1; job a's current token is 2"]);
  });

  it('explains a deadline, an exhausted last attempt and a claim held back by an earlier job of the account', () => {
    expect(sentences(explainLast([submit('a', 0, 'x', 6), { type: 'tick', now: 6 }]))[0]).toBe(
      "job a's deadline is 6; now is 6: it is dead (deadline)",
    );
    const one = { ...base, maxAttempts: 1 };
    const exhausted = [
      submit('a'),
      claim('w1', 0),
      { type: 'fail', worker: 'w1', token: 1, kind: 'transient', error: 'e', now: 1 },
    ];
    expect(sentences(explainLast(exhausted, one))[0]).toBe(
      'attempts 1 of 1 are used: no attempt is left, job a is dead',
    );
    const blocked = explainLast([submit('a'), submit('b'), claim('w1', 0), claim('w2', 1)], base, 'b');
    expect(sentences(blocked)).toContain(
      'job b is ready, but job a, an earlier job of account "x", is not done (it is running)',
    );
  });

  it('gives every rule that a fixture story exercises a reason of its own, never the generic title', () => {
    const seen = new Set<string>();
    for (const fixture of loadFixtures()) {
      let state = initialState(fixture.config);
      fixture.steps.forEach((s, i) => {
        const where = `${fixture.name} step ${i + 1}`;
        if ('do' in s) {
          const result = step(state, s.do);
          const rules = rulesExercised(state, s.do, result);
          const es = explainStep(state, s.do, result, { focus: fixture.focus.job });
          for (const r of rules) {
            seen.add(r);
            expect(
              es.some((e) => e.rule === r && e.generic !== true && e.sentence !== ''),
              `${where}: ${r}`,
            ).toBe(true);
          }
          expect(
            es.filter((e) => e.generic === true).map((e) => e.rule),
            where,
          ).toEqual([]);
          state = result.state;
        } else if ('restart' in s) {
          state = fromSnapshot(JSON.parse(JSON.stringify(toSnapshot(state))));
          expect(explainRestart(state)[0]?.rule).toBe('snapshot-restore-round-trip');
          seen.add('snapshot-restore-round-trip');
        } else {
          expect(explainSnapshotCopy()[0]?.rule).toBe('snapshot-is-a-copy');
          seen.add('snapshot-is-a-copy');
        }
      });
    }
    // The fixtures reach most of the contract: the check above is not vacuous.
    expect(seen.size).toBeGreaterThan(20);
  });
});
