/**
 * What breaking each rule of the contract costs a job's handler: every rule has one consequence,
 * the same on every queue that departs from it. Profile pages and the matrix of docs/profiles/
 * group their rules by it, in CONSEQUENCE_IDS order: the costliest first, boundaries (the very
 * tick a lease, a backoff or a deadline ends, the end of the integer range) last.
 */
import { RULE_IDS } from './rules.ts';
import type { RuleId } from './rules.ts';

/** The consequences, in the order pages show them; `boundaries` is last. */
export const CONSEQUENCE_IDS = [
  'duplicate-effects',
  'lost-failure-evidence',
  'order',
  'deadlines',
  'admission-and-state',
  'boundaries',
] as const;

/** One of CONSEQUENCE_IDS. */
export type ConsequenceId = (typeof CONSEQUENCE_IDS)[number];

/** A consequence: its id, a title for headings, what a departure means for a handler, and its rules in RULE_IDS order. */
export interface Consequence {
  readonly id: ConsequenceId;
  readonly title: string;
  /** What a departure on one of its rules means for the handlers of a queue's jobs, as one sentence. */
  readonly means: string;
  readonly rules: readonly RuleId[];
}

/** The consequence of each rule (a Record, so a rule added to RULE_IDS without one does not compile). */
const CONSEQUENCE_OF: Readonly<Record<RuleId, ConsequenceId>> = {
  'malformed-command-refused': 'admission-and-state',
  'clock-never-regresses': 'admission-and-state',
  'deadline-kills': 'deadlines',
  'deadline-precedes-lease': 'boundaries',
  'lease-equality-expires': 'boundaries',
  'expiry-with-attempts-left-requeues': 'duplicate-effects',
  'last-attempt-expiry-is-dead': 'lost-failure-evidence',
  'backoff-ends-at-not-before': 'boundaries',
  'duplicate-submit-accepted': 'duplicate-effects',
  'changed-payload-conflicts': 'duplicate-effects',
  'capacity-counts-running': 'admission-and-state',
  'admission-in-seq-order': 'order',
  'account-head-only': 'order',
  'oldest-ready-head-first': 'order',
  'new-token-per-claim': 'duplicate-effects',
  'lease-from-claim': 'duplicate-effects',
  'stale-token-refused': 'duplicate-effects',
  'owner-checked': 'duplicate-effects',
  'effect-idempotent': 'duplicate-effects',
  'changed-amount-conflicts': 'duplicate-effects',
  'commit-keeps-delivery': 'duplicate-effects',
  'balance-stays-safe': 'boundaries',
  'ack-settles-done': 'duplicate-effects',
  'backoff-capped': 'order',
  'no-retry-after-deadline': 'deadlines',
  'permanent-failure-dead': 'lost-failure-evidence',
  'attempts-exhausted-dead': 'lost-failure-evidence',
  'last-error-kept': 'lost-failure-evidence',
  'tick-advances-clock': 'admission-and-state',
  'dead-records-kept': 'lost-failure-evidence',
  'counters-stay-safe': 'boundaries',
  'snapshot-restore-round-trip': 'admission-and-state',
  'snapshot-is-a-copy': 'admission-and-state',
};

const TEXTS: Readonly<Record<ConsequenceId, Pick<Consequence, 'title' | 'means'>>> = {
  'duplicate-effects': {
    title: 'Duplicate effects',
    means:
      'a repeat is not recognised, or a delivery that has ended can still act: a job or its effect may happen twice, or a changed repeat passes silently',
  },
  'lost-failure-evidence': {
    title: 'Lost failure evidence',
    means: 'failing work may never reach its owner, or reach it without its record or its reason',
  },
  order: {
    title: 'Order',
    means: 'jobs may run in another order than admitted, or be retried at other times than the capped backoff says',
  },
  deadlines: {
    title: 'Deadlines',
    means: 'a job may run, or be retried, after its deadline',
  },
  'admission-and-state': {
    title: 'Admission and state',
    means:
      'the queue admits or refuses other commands than the contract (capacity, validation, the clock), or hands back another state from a snapshot or a restart',
  },
  boundaries: {
    title: 'Boundaries',
    means:
      'the queue differs only at an edge: the very tick a lease, a backoff or a deadline ends, or the end of the integer range',
  },
};

/** Every consequence, in CONSEQUENCE_IDS order, each with its rules in RULE_IDS order. */
export const CONSEQUENCES: readonly Consequence[] = CONSEQUENCE_IDS.map((id) => ({
  id,
  ...TEXTS[id],
  rules: RULE_IDS.filter((rule) => CONSEQUENCE_OF[rule] === id),
}));

/** The consequence of breaking a rule. Pure. */
export function consequenceOf(rule: RuleId): ConsequenceId {
  return CONSEQUENCE_OF[rule];
}
