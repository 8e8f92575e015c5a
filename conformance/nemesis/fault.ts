/**
 * The faults a nemesis injects, and the events that record them in a history. A fault has a kind,
 * a target (one worker lane, or the broker) and, for a partition, a mode; `faultSchema` is its zod
 * schema, the one boundary through which a fault from outside (a schedule file) comes in.
 *
 * A fault event is no operation: it has an instant in the history's event sequence, as a request's
 * invoke has, so that stories and timelines can draw its window, but no checker reads it.
 * Partition and latency act on workers (a broker target means every worker); kill, pause and
 * disk-full act on the broker only.
 */
import { z } from 'zod';

/** What a partition does with the bytes of a cut-off worker: buffer them, lose them, or reset its connections. */
export const PARTITION_MODES = ['hold', 'drop', 'reset'] as const;
/** A partition's mode (see PARTITION_MODES). */
export type PartitionMode = (typeof PARTITION_MODES)[number];

const lane = z.int().min(0).max(63);
/** Zod schema of a fault's target: one worker lane, or the broker. */
export const targetSchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('worker'), lane }),
  z.strictObject({ kind: z.literal('broker') }),
]);
/** Whom a fault hits: one worker lane, or the broker (for a partition or latency: every worker). */
export type FaultTarget = z.infer<typeof targetSchema>;

const brokerOnly = z.strictObject({ kind: z.literal('broker') });
/** Most milliseconds of latency a fault may add to each chunk (a minute: longer is a partition). */
export const MAX_LATENCY_MS = 60_000;

/** Zod schema of a fault. */
export const faultSchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('partition'), target: targetSchema, mode: z.enum(PARTITION_MODES) }),
  z.strictObject({ kind: z.literal('latency'), target: targetSchema, ms: z.int().min(1).max(MAX_LATENCY_MS) }),
  z.strictObject({ kind: z.literal('kill'), target: brokerOnly }),
  z.strictObject({ kind: z.literal('pause'), target: brokerOnly }),
  z.strictObject({ kind: z.literal('disk-full'), target: brokerOnly }),
]);
/** One fault: a discriminated union on `kind`. */
export type Fault = z.infer<typeof faultSchema>;
/** The kinds of fault. */
export type FaultKind = Fault['kind'];

/**
 * A fault's start or end, recorded between the steps of a run at an instant of the history's
 * event sequence (the same counter that stamps requests). `note` says what the nemesis saw
 * (bytes held or dropped, an overflow), in its own words.
 */
export interface NemesisEvent {
  readonly phase: 'start' | 'end';
  readonly at: number;
  readonly fault: Fault;
  readonly note?: string;
}

/** A fault's start or end as a nemesis reports it, before the run stamps its instant. */
export type NemesisAction = Omit<NemesisEvent, 'at'>;

/** Zod schema of a NemesisEvent, for histories read back from a file. */
export const nemesisEventSchema = z.strictObject({
  phase: z.enum(['start', 'end']),
  at: z.int().min(0),
  fault: faultSchema,
  note: z.string().optional(),
});

/** `worker lane 1`, or `the broker`. Pure. */
export const describeTarget = (target: FaultTarget): string =>
  target.kind === 'worker' ? `worker lane ${target.lane}` : 'the broker';

/** A fault in words: `partition (hold) of worker lane 1`, `latency 200 ms on the broker`, `kill of the broker`. Pure. */
export function describeFault(fault: Fault): string {
  switch (fault.kind) {
    case 'partition':
      return `partition (${fault.mode}) of ${describeTarget(fault.target)}`;
    case 'latency':
      return `latency ${fault.ms} ms on ${describeTarget(fault.target)}`;
    case 'kill':
    case 'pause':
    case 'disk-full':
      return `${fault.kind} of ${describeTarget(fault.target)}`;
  }
}

/** The worker lanes a fault hits, of `workers` lanes: its own, every lane for the broker. Pure. */
export function lanesHit(fault: Fault, workers: number): number[] {
  if (fault.target.kind === 'worker') return fault.target.lane < workers ? [fault.target.lane] : [];
  return Array.from({ length: workers }, (_, k) => k);
}
