/**
 * What competing workers avoid for a queue: for each rule a queue may declare unsupported, how the
 * concurrent scenarios stay clear of it (a ScenarioRestriction, conformance/concurrent/restriction.ts)
 * and why, in one sentence that the profile prints. A sequential profile leaves such a rule's
 * campaign out and its departures unattributed to it; a history of competing workers has no rule
 * to attribute to, so the only way not to report the rule the queue already says it lacks is not
 * to exercise it.
 *
 * A rule declared unsupported with no entry here is a ProfileError naming it: never silently
 * checked anyway (its story would be the first one told), never silently skipped.
 */
import type { RuleId } from '../../contract/rules.ts';
import { RULE_IDS } from '../../contract/rules.ts';
import { CAPACITY_OUT_OF_REACH, FAR_DEADLINE_IN } from '../concurrent/restriction.ts';
import type { ScenarioRestriction } from '../concurrent/restriction.ts';
import { ProfileError } from './runProfile.ts';
import type { ProfileTarget } from './target.ts';

/** How the concurrent scenarios avoid one rule, and why, in one sentence. */
export interface Avoidance {
  readonly restriction: ScenarioRestriction;
  readonly why: string;
}

const NO_DEADLINES: ScenarioRestriction = { noDeadlines: true };
const noDeadlines = `every submit's deadline is ${FAR_DEADLINE_IN} ticks away, beyond any round's now, and no round is timed at a deadline`;

/** For each rule a queue may declare unsupported, what the concurrent scenarios do about it. */
export const CONCURRENT_AVOIDANCE: Partial<Record<RuleId, Avoidance>> = {
  'capacity-counts-running': {
    restriction: { capacityAtLeast: CAPACITY_OUT_OF_REACH },
    why: `every scenario's capacity is at least ${CAPACITY_OUT_OF_REACH}, more than its job ids can fill, so no submit meets a full queue.`,
  },
  'deadline-kills': { restriction: NO_DEADLINES, why: `${noDeadlines}, so no deadline passes.` },
  'deadline-precedes-lease': { restriction: NO_DEADLINES, why: `${noDeadlines}, so no lease reaches one.` },
  'no-retry-after-deadline': { restriction: NO_DEADLINES, why: `${noDeadlines}, so no retry is due after one.` },
  'owner-checked': {
    restriction: { holdersOnly: true },
    why: "every commit, ack and fail is sent in its holder's name, never in another worker's.",
  },
  'clock-never-regresses': {
    restriction: { noOverlap: true },
    why: 'rounds never overlap, so no request carries a now below one already applied (the stale acknowledgement sent as the lease ends is then raced by claims of the same round, not of the next).',
  },
  'last-error-kept': {
    restriction: { ignoreFields: ['lastError'] },
    why: 'the failure text (lastError) is left out when replies and snapshots are compared.',
  },
  'malformed-command-refused': {
    restriction: {},
    why: 'concurrent scenarios send only well-formed commands: nothing to avoid.',
  },
  'counters-stay-safe': {
    restriction: {},
    why: 'concurrent scenarios start from an empty store and send a few dozen commands, far from TIME_MAX: nothing to avoid.',
  },
  'snapshot-restore-round-trip': {
    restriction: {},
    why: 'concurrent scenarios never restore a snapshot: nothing to avoid.',
  },
  'snapshot-is-a-copy': {
    restriction: {},
    why: 'concurrent scenarios take one snapshot at the end and never change it: nothing to avoid.',
  },
};

/** The restriction of a queue's concurrent scenarios, and for each rule it declares unsupported, why (in RULE_IDS order). */
export interface ConcurrentRestriction {
  readonly restriction: ScenarioRestriction;
  readonly avoided: readonly { readonly rule: RuleId; readonly why: string }[];
}

/**
 * The restriction a target's declarations call for: the union of the avoidances of its rules
 * declared unsupported. Throws ProfileError naming a declared-unsupported rule that has no
 * avoidance. Pure.
 */
export function concurrentRestrictionOf(target: Pick<ProfileTarget, 'declarations'>): ConcurrentRestriction {
  const unsupported = RULE_IDS.filter((r) => target.declarations[r]?.kind === 'unsupported');
  const missing = unsupported.filter((r) => CONCURRENT_AVOIDANCE[r] === undefined);
  if (missing.length > 0)
    throw new ProfileError(
      `competing workers cannot avoid ${missing.join(', ')}, declared unsupported: no concurrent scenario restriction leaves ${missing.length === 1 ? 'it' : 'them'} out`,
    );
  let capacityAtLeast: number | undefined;
  const flags = { noDeadlines: false, holdersOnly: false, noOverlap: false };
  const ignoreFields: string[] = [];
  const avoided = unsupported.map((rule) => {
    const a = CONCURRENT_AVOIDANCE[rule] as Avoidance;
    const r = a.restriction;
    if (r.capacityAtLeast !== undefined) capacityAtLeast = Math.max(capacityAtLeast ?? 0, r.capacityAtLeast);
    flags.noDeadlines ||= r.noDeadlines === true;
    flags.holdersOnly ||= r.holdersOnly === true;
    flags.noOverlap ||= r.noOverlap === true;
    for (const f of r.ignoreFields ?? []) if (!ignoreFields.includes(f)) ignoreFields.push(f);
    return { rule, why: a.why };
  });
  const restriction: ScenarioRestriction = {
    ...(capacityAtLeast === undefined ? {} : { capacityAtLeast }),
    ...(flags.noDeadlines ? { noDeadlines: true } : {}),
    ...(flags.holdersOnly ? { holdersOnly: true } : {}),
    ...(flags.noOverlap ? { noOverlap: true } : {}),
    ...(ignoreFields.length === 0 ? {} : { ignoreFields }),
  };
  return { restriction, avoided };
}
