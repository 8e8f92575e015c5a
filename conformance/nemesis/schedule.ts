/**
 * A nemesis schedule: which fault, on which target, from which step (or tick) of a run and for how
 * many, as plain data that a run follows between its steps and that replays from the file (or the
 * seed that drew it). `parseNemesisSchedule` is its one door from outside: it returns a typed
 * schedule or throws `invalid_schedule` naming the bad field and value.
 *
 * Invariants of a parsed schedule: its faults are sorted by start; no two faults that hit one
 * target (a worker lane's network, or the broker's process) overlap in time, so every fault's end
 * undoes exactly that fault; a fault's window is [start, start + length).
 */
import { z } from 'zod';
import { describeIssue } from '../../contract/index.ts';
import { NemesisError } from './errors.ts';
import { describeFault, type Fault, faultSchema } from './fault.ts';

/** Most faults a schedule may hold. */
export const MAX_SCHEDULED_FAULTS = 1000;

/** Zod schema of a nemesis schedule. */
export const nemesisScheduleSchema = z.strictObject({
  /** What `start` and `length` count: steps of the run (requests or rounds), or ticks of its clock. */
  unit: z.enum(['step', 'tick']),
  /** The seed the schedule was drawn from, when it was drawn (for the reproduce line). */
  seed: z.int().optional(),
  faults: z
    .array(
      z.strictObject({
        fault: faultSchema,
        start: z.int().min(0),
        length: z.int().min(1).max(1_000_000),
      }),
    )
    .max(MAX_SCHEDULED_FAULTS),
});
/** A nemesis schedule, as parsed. */
export type NemesisSchedule = z.infer<typeof nemesisScheduleSchema>;
/** One fault of a schedule, with its window. */
export type ScheduledFault = NemesisSchedule['faults'][number];

/** What a fault occupies: the network of some lanes (every lane: 'all'), or the broker's process. */
function occupies(fault: Fault): { readonly what: 'net' | 'process'; readonly lane: number | 'all' } {
  if (fault.kind === 'partition' || fault.kind === 'latency')
    return { what: 'net', lane: fault.target.kind === 'worker' ? fault.target.lane : 'all' };
  return { what: 'process', lane: 'all' };
}

/** Whether two scheduled faults hit one target at one time. Pure. */
function clash(a: ScheduledFault, b: ScheduledFault): boolean {
  const x = occupies(a.fault);
  const y = occupies(b.fault);
  const sameTarget = x.what === y.what && (x.lane === 'all' || y.lane === 'all' || x.lane === y.lane);
  return sameTarget && a.start < b.start + b.length && b.start < a.start + a.length;
}

const window = (f: ScheduledFault): string => `[${f.start}, ${f.start + f.length})`;

/**
 * Reads a nemesis schedule from a JSON value (a file's content, a flag's), or throws a NemesisError
 * `invalid_schedule` naming the bad field and its value, or the two faults that overlap on one target.
 * The faults come back sorted by start (ties in their given order). Pure.
 */
export function parseNemesisSchedule(input: unknown): NemesisSchedule {
  const parsed = nemesisScheduleSchema.safeParse(input);
  if (!parsed.success)
    throw new NemesisError(
      'invalid_schedule',
      `nemesis schedule: ${describeIssue(parsed.error, input, 'schedule').message}`,
    );
  const faults = parsed.data.faults
    .map((f, index) => ({ f, index }))
    .sort((a, b) => a.f.start - b.f.start || a.index - b.index);
  for (const [k, a] of faults.entries())
    for (const b of faults.slice(k + 1)) {
      if (b.f.start >= a.f.start + a.f.length) break;
      if (clash(a.f, b.f))
        throw new NemesisError(
          'invalid_schedule',
          `nemesis schedule: faults.${a.index} (${describeFault(a.f.fault)} over ${parsed.data.unit}s ${window(a.f)}) and faults.${b.index} (${describeFault(b.f.fault)} over ${window(b.f)}) hit one target at once`,
        );
    }
  return { ...parsed.data, faults: faults.map((x) => x.f) };
}

/** What a run does at one point of its schedule: the faults to heal first, then the faults to start. */
export interface ScheduleTurn {
  readonly ending: readonly Fault[];
  readonly starting: readonly Fault[];
}

/**
 * The faults that end and start at `point` (a step or tick, in the schedule's unit): a fault that
 * ends there is healed before one that starts there begins. Pure.
 */
export function turnAt(schedule: NemesisSchedule, point: number): ScheduleTurn {
  return {
    ending: schedule.faults.filter((f) => f.start + f.length === point).map((f) => f.fault),
    starting: schedule.faults.filter((f) => f.start === point).map((f) => f.fault),
  };
}

/** The last point at which a schedule still does something (the end of its latest fault; 0 when empty). Pure. */
export const scheduleEnd = (schedule: NemesisSchedule): number =>
  Math.max(0, ...schedule.faults.map((f) => f.start + f.length));
