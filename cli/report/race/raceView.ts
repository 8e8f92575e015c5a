/**
 * What the race section draws, computed once from a failure: every request with its lane, its
 * place on the time axis, its labels and where the checker put it (the longest linearizable
 * prefix, stuck, after the prefix, or left out), with the closest order replayed on the model
 * (conformance/concurrent/closestOrder.ts) for the details panel.
 *
 * The time axis is the history's own: instants are positions in one sequence of events (a request
 * sent, a reply read), so the axis has one column per instant and its unit is "one event", never
 * milliseconds. A request's bar covers the columns from its send to its reply; one with no reply
 * runs open-ended to the next request of its lane (or to the end). A fault of the run's nemesis
 * is a window over the lanes it hit, from its start to its end (or to the end of the axis).
 */
import type { RaceFailure } from '../../../conformance/check/failure.ts';
import { closestOrder } from '../../../conformance/concurrent/closestOrder.ts';
import type { ClosestOrder, OrderedRequest, OrderPlace } from '../../../conformance/concurrent/closestOrder.ts';
import type { Operation } from '../../../conformance/concurrent/history.ts';
import { faultWindows } from '../../../conformance/concurrent/timeline.ts';
import { describeFault, lanesHit } from '../../../conformance/nemesis/fault.ts';
import { shortCommand, shortReply } from '../../../conformance/concurrent/story.ts';

/** One request as the section draws it. */
export interface RaceRequest {
  readonly id: number;
  readonly lane: number;
  readonly op: Operation<unknown, unknown>;
  /** The round it was sent in (1-based, as the story numbers them), when known. */
  readonly round: number | null;
  /** Where its bar starts and ends, as fractions of the axis (0..1). */
  readonly from: number;
  readonly to: number;
  /** `claim by w1`. */
  readonly command: string;
  /** `job a token=2 leaseUntil=1`, or `no reply`. */
  readonly reply: string;
  /** The bar's label: `#8 claim by w1 → job a token=2 leaseUntil=1`. */
  readonly label: string;
  /** Where the checker put it; `unchecked` when the checker never ran (the implementation failed). */
  readonly place: OrderPlace | 'unchecked';
  /** Its step in the closest order, when it has one. */
  readonly ordered: OrderedRequest | null;
}

/** A tick of the time axis. */
export interface AxisTick {
  readonly at: number;
  readonly instant: number;
}

/** A round's start on the axis, with the job clock its requests carried. */
export interface RoundMark {
  readonly at: number;
  readonly round: number;
  readonly now: number;
}

/** A fault's window on the axis: the lanes it hit, from its start to its end (fractions of the axis). */
export interface RaceFault {
  /** `partition (hold) of worker lane 1`. */
  readonly label: string;
  /** The instants it started and ended at (null: it never ended in the run), and the nemesis's notes. */
  readonly detail: string;
  readonly lanes: readonly number[];
  readonly from: number;
  readonly to: number;
}

/** Everything the section draws. */
export interface RaceView {
  readonly failure: RaceFailure;
  readonly lanes: readonly number[];
  /** Every request, in the order they were sent. */
  readonly requests: readonly RaceRequest[];
  readonly ticks: readonly AxisTick[];
  readonly rounds: readonly RoundMark[];
  /** The faults of the run's nemesis, in start order (none without one). */
  readonly faults: readonly RaceFault[];
  /** The closest order, when the checker decided the run (null for an implementation error). */
  readonly replay: ClosestOrder | null;
  /** The request selected when the page opens: the first stuck one, else the first request. */
  readonly initial: number | null;
}

/** Most ticks the axis shows. */
const MOST_TICKS = 12;

/** The section's view of a race failure. Pure. */
export function raceView(failure: RaceFailure): RaceView {
  const race = failure.race;
  const run = race.run;
  const ops = run === null ? [] : [...run.history.operations].sort((a, b) => a.invoked - b.invoked || a.id - b.id);
  const replay =
    race.witness === null || run === null ? null : closestOrder(run.history, race.scenario.config, race.witness);
  const ordered = new Map((replay?.requests ?? []).map((r) => [r.id, r]));

  const events = run?.history.nemesis ?? [];
  const instants = [
    ...new Set([
      ...ops.flatMap((op) => (op.returned === undefined ? [op.invoked] : [op.invoked, op.returned])),
      ...events.map((e) => e.at),
    ]),
  ].sort((a, b) => a - b);
  const column = new Map(instants.map((t, k) => [t, k]));
  // One more column than there are instants: where requests with no reply run to.
  const columns = instants.length + 1;
  const at = (k: number): number => k / columns;

  const roundOf = new Map<number, number>();
  for (const round of run?.rounds ?? []) for (const r of round.requests) roundOf.set(r.id, round.index);

  const requests = ops.map((op): RaceRequest => {
    const start = column.get(op.invoked) ?? 0;
    let end: number;
    if (op.returned !== undefined) end = (column.get(op.returned) ?? start) + 1;
    else {
      const next = ops.find((o) => o.lane === op.lane && o.invoked > op.invoked);
      end = next === undefined ? columns : Math.max(start + 1, column.get(next.invoked) ?? columns);
    }
    const command = shortCommand(op.input);
    const reply = op.returned === undefined ? 'no reply' : shortReply(op.output);
    const o = ordered.get(op.id) ?? null;
    return {
      id: op.id,
      lane: op.lane,
      op,
      round: roundOf.get(op.id) ?? null,
      from: at(start),
      to: at(end),
      command,
      reply,
      label: `#${op.id} ${command} → ${reply}`,
      place: replay === null ? 'unchecked' : (o?.place ?? 'left_out'),
      ordered: o,
    };
  });

  const step = Math.max(1, Math.ceil(instants.length / MOST_TICKS));
  const ticks = instants
    .map((instant, k) => ({ at: (k + 0.5) / columns, instant, k }))
    .filter(({ k }) => k % step === 0)
    .map(({ at, instant }) => ({ at, instant }));

  const rounds: RoundMark[] = [];
  for (const round of run?.rounds ?? []) {
    const first = Math.min(...round.requests.map((r) => ops.find((o) => o.id === r.id)?.invoked ?? Infinity));
    const k = column.get(first);
    if (k !== undefined) rounds.push({ at: at(k), round: round.index, now: round.now });
  }

  const lanes = [...new Set(ops.map((o) => o.lane))].sort((a, b) => a - b);
  const faults = faultWindows(events).map(
    (w): RaceFault => ({
      label: describeFault(w.fault),
      detail: [
        `from t=${w.from}${w.to === undefined ? ', never healed in this run' : ` to t=${w.to}`}`,
        ...w.notes,
      ].join('; '),
      lanes: lanesHit(w.fault, Math.max(-1, ...lanes) + 1).filter((l) => lanes.includes(l)),
      from: at(column.get(w.from) ?? 0),
      to: w.to === undefined ? 1 : at((column.get(w.to) ?? columns - 1) + 1),
    }),
  );

  const firstStuck = requests.find((r) => r.place === 'stuck');
  return {
    failure,
    lanes,
    requests,
    ticks,
    rounds,
    faults,
    replay,
    initial: firstStuck?.id ?? requests[0]?.id ?? null,
  };
}
