/**
 * The check's time budget: a wait on the implementation that the budget cuts short ends as
 * `time_limit` (the check stops, INCOMPLETE), never as the implementation's `timeout` (a failure
 * the check did not establish), however close the two are due.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { Budget } from './budget.ts';
import { Peer } from './protocol/peer.ts';

describe('the time budget', () => {
  const peers: Peer[] = [];
  afterAll(() => Promise.all(peers.map((p) => p.end())));

  it('ends a wait it cuts short as time_limit, never as the reply timeout', async () => {
    const codes: unknown[] = [];
    for (let i = 0; i < 5; i++) {
      // A process that reads its input and never answers.
      const peer = new Peer(`node -e "process.stdin.resume()"`);
      peers.push(peer);
      const budget = new Budget(30);
      // Busy for a while in the same turn of the event loop, as a loaded harness is: timers count
      // from the loop's cached time, so the wait's timer would be due before the budget's abort.
      const busyUntil = performance.now() + 15;
      while (performance.now() < busyUntil);
      const code = await peer.request('{}', budget.cap(5000), budget.signal).then(
        () => 'answered',
        (e: { code?: unknown }) => e.code,
      );
      codes.push(code);
      budget.dispose();
    }
    expect(codes).toEqual(Array(5).fill('time_limit'));
  });

  it("makes a wait it cuts short due after the budget's own end, by more than the timers' 1 ms granularity", () => {
    const budget = new Budget(1000);
    const remaining = budget.remainingMs();
    expect(budget.cap(5000)).toBeGreaterThan(remaining + 1);
    expect(budget.cap(5000)).toBeLessThan(5000);
    budget.dispose();
  });

  it('leaves a reply timeout shorter than what is left of the budget as it is', () => {
    const budget = new Budget(60_000);
    expect(budget.cap(500)).toBe(500);
    budget.dispose();
  });
});
