/**
 * The nemesis schedule's one door from outside: a schedule parses to typed, sorted data, and every
 * bad one is refused with `invalid_schedule` naming the field and the value, or the two faults
 * that hit one target at once.
 */
import { describe, expect, it } from 'vitest';
import { hasCode } from '../../contract/index.ts';
import { NemesisError } from './errors.ts';
import { describeFault } from './fault.ts';
import { parseNemesisSchedule, scheduleEnd, turnAt } from './schedule.ts';

const worker = (lane: number) => ({ kind: 'worker', lane }) as const;
const broker = { kind: 'broker' } as const;

/** The message of the NemesisError `invalid_schedule` that parsing `input` throws. */
function refusal(input: unknown): string {
  try {
    parseNemesisSchedule(input);
  } catch (e) {
    if (hasCode(e, 'invalid_schedule', NemesisError)) return e.message;
    throw e;
  }
  throw new Error('parsed');
}

describe('parseNemesisSchedule', () => {
  it('reads a schedule and sorts its faults by start', () => {
    const schedule = parseNemesisSchedule({
      unit: 'step',
      seed: 7,
      faults: [
        { fault: { kind: 'kill', target: broker }, start: 6, length: 2 },
        { fault: { kind: 'partition', target: worker(1), mode: 'hold' }, start: 2, length: 3 },
        { fault: { kind: 'latency', target: worker(0), ms: 50 }, start: 2, length: 1 },
      ],
    });
    expect(schedule.faults.map((f) => [describeFault(f.fault), f.start])).toEqual([
      ['partition (hold) of worker lane 1', 2],
      ['latency 50 ms on worker lane 0', 2],
      ['kill of the broker', 6],
    ]);
    expect(scheduleEnd(schedule)).toBe(8);
    expect(turnAt(schedule, 5)).toEqual({
      ending: [{ kind: 'partition', target: worker(1), mode: 'hold' }],
      starting: [],
    });
    expect(turnAt(schedule, 3)).toEqual({ ending: [{ kind: 'latency', target: worker(0), ms: 50 }], starting: [] });
    expect(turnAt(schedule, 6).starting).toEqual([{ kind: 'kill', target: broker }]);
  });

  it('names the bad field and its value', () => {
    const one = (fault: unknown, start: unknown = 0, length: unknown = 1) => ({
      unit: 'tick',
      faults: [{ fault, start, length }],
    });
    expect(refusal(one({ kind: 'partition', target: worker(0), mode: 'sever' }))).toMatch(
      /^nemesis schedule: faults\.0\.fault\.mode: .* \(got "sever"\)$/,
    );
    expect(refusal(one({ kind: 'latency', target: worker(0), ms: -5 }))).toMatch(
      /^nemesis schedule: faults\.0\.fault\.ms: .* \(got -5\)$/,
    );
    expect(refusal(one({ kind: 'kill', target: worker(2) }))).toMatch(
      /^nemesis schedule: faults\.0\.fault\.target\.kind: .* \(got "worker"\)$/,
    );
    expect(refusal(one({ kind: 'pause', target: broker }, 1.5))).toMatch(
      /^nemesis schedule: faults\.0\.start: .* \(got 1\.5\)$/,
    );
    expect(refusal(one({ kind: 'pause', target: broker }, 0, 0))).toMatch(
      /^nemesis schedule: faults\.0\.length: .* \(got 0\)$/,
    );
    expect(refusal({ unit: 'minute', faults: [] })).toMatch(/^nemesis schedule: unit: .* \(got "minute"\)$/);
    expect(refusal({ unit: 'step', faults: [], extra: 1 })).toBe('nemesis schedule: extra: unknown field');
    expect(refusal('faults')).toMatch(/^nemesis schedule: schedule: .* \(got "faults"\)$/);
  });

  it('refuses two faults on one target at once, and lets them follow each other or hit other targets', () => {
    const hold = { kind: 'partition', target: worker(1), mode: 'hold' };
    expect(
      refusal({
        unit: 'step',
        faults: [
          { fault: hold, start: 2, length: 3 },
          { fault: { kind: 'latency', target: broker, ms: 10 }, start: 4, length: 1 },
        ],
      }),
    ).toBe(
      'nemesis schedule: faults.0 (partition (hold) of worker lane 1 over steps [2, 5)) and faults.1 (latency 10 ms on the broker over [4, 5)) hit one target at once',
    );
    expect(
      refusal({
        unit: 'step',
        faults: [
          { fault: { kind: 'kill', target: broker }, start: 0, length: 2 },
          { fault: { kind: 'pause', target: broker }, start: 1, length: 2 },
        ],
      }),
    ).toMatch(/faults\.0 \(kill of the broker .* and faults\.1 \(pause of the broker/);
    const ok = parseNemesisSchedule({
      unit: 'step',
      faults: [
        { fault: hold, start: 2, length: 3 },
        { fault: hold, start: 5, length: 1 },
        { fault: { kind: 'partition', target: worker(0), mode: 'drop' }, start: 3, length: 4 },
        { fault: { kind: 'pause', target: broker }, start: 2, length: 9 },
      ],
    });
    expect(ok.faults).toHaveLength(4);
    expect(turnAt(ok, 5)).toEqual({ ending: [hold], starting: [hold] });
  });
});
