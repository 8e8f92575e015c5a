import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { WallClock } from './wallClock.ts';

/**
 * Time that moves only when a test says so: `sleep` parks its caller until `run` has moved the time
 * to the instant it asked for. Every instant is exact, so a request that returns early by even a
 * millisecond is seen.
 */
class ManualTime {
  private t = 0;
  private readonly timers: { readonly at: number; readonly fire: () => void }[] = [];
  /** Every sleep asked for, in ms. */
  readonly sleeps: number[] = [];
  /** How many ms before its instant each sleep longer than that ends (a timer that fires early). */
  constructor(private readonly early = 0) {}

  readonly now = (): number => this.t;

  readonly sleep = (ms: number): Promise<void> => {
    this.sleeps.push(ms);
    return new Promise((resolve) => this.at(this.t + (ms > this.early ? ms - this.early : ms), resolve));
  };

  /** Runs `fire` when the time reaches `at` (at once if it has). */
  at(at: number, fire: () => void): void {
    this.timers.push({ at: Math.max(at, this.t), fire });
  }

  /** Fires every timer in order of its instant, moving the time to each, until none is left. */
  async run(): Promise<void> {
    await settle();
    for (;;) {
      const next = this.timers.reduce<number>((min, timer, i) => {
        const best = this.timers[min];
        return best === undefined || timer.at < best.at ? i : min;
      }, 0);
      const [timer] = this.timers.splice(next, 1);
      if (timer === undefined) return;
      this.t = timer.at;
      timer.fire();
      await settle();
    }
  }
}

/** Lets every pending promise continuation run. */
const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** The manual instant at which each `advanceTo(tick)` returns, for requests sent at the given instants. */
async function returns(
  clock: WallClock,
  time: ManualTime,
  requests: readonly { readonly sent: number; readonly tick: number }[],
): Promise<number[]> {
  const out: number[] = [];
  for (const [i, { sent, tick }] of requests.entries())
    time.at(sent, () => {
      void clock.advanceTo(tick).then(() => {
        out[i] = time.now();
      });
    });
  await time.run();
  return out;
}

describe('WallClock', () => {
  it('returns two concurrent requests of tick 5 at 100 ms a tick both at 500 ms, neither before', async () => {
    const time = new ManualTime();
    const clock = new WallClock({ tickMs: 100, now: time.now, sleep: time.sleep });
    expect(
      await returns(clock, time, [
        { sent: 0, tick: 5 },
        { sent: 0, tick: 5 },
      ]),
    ).toEqual([500, 500]);
  });

  it('holds a request of a tick another request already waits for until that tick starts, offset included', async () => {
    const time = new ManualTime();
    const clock = new WallClock({ tickMs: 100, offsetMs: 50, now: time.now, sleep: time.sleep });
    // The second request of tick 3 comes 200 ms after the first, while the first still waits.
    expect(
      await returns(clock, time, [
        { sent: 0, tick: 3 },
        { sent: 200, tick: 3 },
      ]),
    ).toEqual([350, 350]);
    expect(clock.tick).toBe(3);
  });

  it('runs a request at once whose tick has started, also behind a later tick (the clock never goes back)', async () => {
    const time = new ManualTime();
    const clock = new WallClock({ tickMs: 100, now: time.now, sleep: time.sleep });
    expect(
      await returns(clock, time, [
        { sent: 0, tick: 5 },
        { sent: 620, tick: 3 },
        { sent: 630, tick: 6 },
      ]),
    ).toEqual([500, 620, 630]);
    expect(clock.tick).toBe(6);
  });

  it('holds an earlier tick that has not started yet until its own start, not the later one', async () => {
    const time = new ManualTime();
    const clock = new WallClock({ tickMs: 100, now: time.now, sleep: time.sleep });
    expect(
      await returns(clock, time, [
        { sent: 0, tick: 5 },
        { sent: 10, tick: 4 },
      ]),
    ).toEqual([500, 400]);
  });

  it('sleeps again when its timer fires before the instant it asked for', async () => {
    const time = new ManualTime(1);
    const clock = new WallClock({ tickMs: 100, now: time.now, sleep: time.sleep });
    expect(await returns(clock, time, [{ sent: 0, tick: 2 }])).toEqual([200]);
    expect(time.sleeps).toEqual([200, 1]);
  });

  it('returns every request, however they interleave, at its tick start or at once if that has passed', async () => {
    const request = fc.record({ sent: fc.integer({ min: 0, max: 1000 }), tick: fc.integer({ min: 0, max: 12 }) });
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 120 }),
        fc.integer({ min: 0, max: 60 }),
        fc.array(request, { minLength: 1, maxLength: 8 }),
        async (tickMs, offset, requests) => {
          const time = new ManualTime();
          const clock = new WallClock({ tickMs, offsetMs: offset % tickMs, now: time.now, sleep: time.sleep });
          const got = await returns(clock, time, requests);
          expect(got).toEqual(requests.map(({ sent, tick }) => Math.max(sent, clock.startOf(tick))));
        },
      ),
      { numRuns: 200 },
    );
  });

  it('starts again at tick 0 on restart', async () => {
    const time = new ManualTime();
    const clock = new WallClock({ tickMs: 100, now: time.now, sleep: time.sleep });
    await returns(clock, time, [{ sent: 0, tick: 4 }]);
    clock.restart();
    expect(clock.tick).toBe(0);
    expect(clock.startOf(1)).toBe(500);
    expect(await returns(clock, time, [{ sent: 400, tick: 1 }])).toEqual([500]);
  });
});
