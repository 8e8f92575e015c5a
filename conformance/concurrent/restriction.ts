/**
 * Restrictions of concurrent scenarios: what a campaign of competing workers leaves out so that it
 * never exercises a rule the queue under test declares unsupported (a profile's declarations,
 * conformance/profile/concurrentRestriction.ts). Without them a broker's first story is always the
 * rule it already says it lacks, and no race it allows is ever shown.
 *
 * A restriction is applied to a generated scenario by a pure function (`restrictScenario`), mapped
 * over the scenario arbitrary: fast-check shrinks the unrestricted value and maps it again, so
 * shrinking keeps working and a seed and path still name one scenario.
 */
import type fc from 'fast-check';
import { CONCURRENT_JOB_IDS } from './generate.ts';
import type { ConcurrentCommand, ConcurrentRound, ConcurrentScenario, RoundTime } from './generate.ts';

/** What concurrent scenarios avoid. Every field is optional; the empty restriction changes nothing. */
export interface ScenarioRestriction {
  /** Every scenario's capacity is at least this (at least CAPACITY_OUT_OF_REACH: no submit ever meets a full queue). */
  readonly capacityAtLeast?: number;
  /** Every submit's deadline is FAR_DEADLINE_IN ticks away, beyond any round's `now`, and no round is timed at a deadline. */
  readonly noDeadlines?: boolean;
  /** Every settlement is sent in its holder's name, never in another worker's. */
  readonly holdersOnly?: boolean;
  /** No round starts while earlier ones are in flight, so no request carries a `now` below one already applied. */
  readonly noOverlap?: boolean;
  /** Fields left out of the comparison of replies and snapshots (jobModel's `ignoreFields`), e.g. `lastError`. */
  readonly ignoreFields?: readonly string[];
}

/** A capacity the scenarios' job ids cannot fill: one more than there are ids. */
export const CAPACITY_OUT_OF_REACH = CONCURRENT_JOB_IDS.length + 1;

/**
 * Ticks from a submit to its deadline under `noDeadlines`: a scenario has at most a few dozen
 * rounds, each moving the clock by a few ticks (a lease, a backoff), so its `now` stays far below.
 */
export const FAR_DEADLINE_IN = 10_000;

/** Whether a restriction changes anything. Pure. */
export const isUnrestricted = (r: ScenarioRestriction): boolean =>
  r.capacityAtLeast === undefined &&
  r.noDeadlines !== true &&
  r.holdersOnly !== true &&
  r.noOverlap !== true &&
  (r.ignoreFields ?? []).length === 0;

/**
 * A resubmit repeats the first submit of its id the runner has sent; when none has been sent it is
 * a fresh submit with a deadline a few ticks away (run.ts). Under `noDeadlines` a resubmit stays
 * one only when a submit of its id was sent in a round that had settled before its own began;
 * otherwise it becomes a fresh submit whose deadline is out of reach.
 */
const freshSubmit = (id: string): ConcurrentCommand => ({
  kind: 'submit',
  id,
  account: 'x',
  key: 'k1',
  amount: 1,
  deadlineIn: FAR_DEADLINE_IN,
});

const restrictCommand = (
  c: ConcurrentCommand,
  r: ScenarioRestriction,
  settled: ReadonlySet<string>,
): ConcurrentCommand => {
  if (c.kind === 'submit' && r.noDeadlines === true) return { ...c, deadlineIn: FAR_DEADLINE_IN };
  if (c.kind === 'resubmit' && r.noDeadlines === true && !settled.has(c.id)) return freshSubmit(c.id);
  if ((c.kind === 'commit' || c.kind === 'ack' || c.kind === 'fail') && r.holdersOnly === true && c.worker === 'other')
    return { ...c, worker: 'holder' };
  return c;
};

const restrictTime = (t: RoundTime, r: ScenarioRestriction): RoundTime =>
  r.noDeadlines === true && t.at === 'deadline' ? { at: 'same' } : t;

/** The scenario with the restriction applied (the same scenario when it restricts nothing). Pure. */
export function restrictScenario(scenario: ConcurrentScenario, r: ScenarioRestriction): ConcurrentScenario {
  if (isUnrestricted(r)) return scenario;
  const capacity = Math.max(scenario.config.capacity, r.capacityAtLeast ?? 0);
  // Ids submitted in earlier rounds, and those whose submit had settled before the current round began.
  const sent = new Set<string>();
  let settled = new Set<string>();
  const rounds = scenario.rounds.map((round): ConcurrentRound => {
    const { overlap: given, ...rest } = round;
    const overlap = given === true && r.noOverlap !== true;
    if (!overlap) settled = new Set(sent);
    const requests = round.requests.map((q) => ({ lane: q.lane, command: restrictCommand(q.command, r, settled) }));
    for (const q of requests) if (q.command.kind === 'submit') sent.add(q.command.id);
    return {
      ...rest,
      ...(given === undefined || r.noOverlap === true ? {} : { overlap: given }),
      now: restrictTime(round.now, r),
      requests,
    };
  });
  return {
    ...scenario,
    config: capacity === scenario.config.capacity ? scenario.config : { ...scenario.config, capacity },
    rounds,
  };
}

/** The scenario arbitrary with the restriction mapped over it (shrinking keeps working). Pure. */
export function restrictedScenarioArb(
  arb: fc.Arbitrary<ConcurrentScenario>,
  r: ScenarioRestriction,
): fc.Arbitrary<ConcurrentScenario> {
  return isUnrestricted(r) ? arb : arb.map((s) => restrictScenario(s, r));
}

/**
 * The first way a scenario breaks a restriction, in words, or undefined when it holds it (for tests
 * and for a campaign told to replay a scenario from elsewhere). Pure.
 */
export function restrictionBroken(scenario: ConcurrentScenario, r: ScenarioRestriction): string | undefined {
  if (r.capacityAtLeast !== undefined && scenario.config.capacity < r.capacityAtLeast)
    return `capacity ${scenario.config.capacity} is below ${r.capacityAtLeast}`;
  const sent = new Set<string>();
  let settled = new Set<string>();
  for (const [i, round] of scenario.rounds.entries()) {
    if (r.noOverlap === true && round.overlap === true) return `round ${i} overlaps`;
    if (round.overlap !== true) settled = new Set(sent);
    if (r.noDeadlines === true && round.now.at === 'deadline') return `round ${i} is timed at a deadline`;
    for (const q of round.requests) {
      const c = q.command;
      if (r.noDeadlines === true && c.kind === 'submit' && c.deadlineIn < FAR_DEADLINE_IN)
        return `round ${i} submits ${c.id} with a deadline ${c.deadlineIn} ticks away`;
      if (r.noDeadlines === true && c.kind === 'resubmit' && !settled.has(c.id))
        return `round ${i} resubmits ${c.id} before any submit of it has settled`;
      if (
        r.holdersOnly === true &&
        (c.kind === 'commit' || c.kind === 'ack' || c.kind === 'fail') &&
        c.worker === 'other'
      )
        return `round ${i} sends a ${c.kind} in another worker's name`;
    }
    for (const q of round.requests) if (q.command.kind === 'submit') sent.add(q.command.id);
  }
  return undefined;
}
