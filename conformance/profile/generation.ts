/**
 * Targeted generation: for each rule, scenarios biased so that the rule's situations arise. The
 * commands are the campaign's symbolic commands (conformance/lockstep/symbolic.ts), resolved against the
 * model as always; only the weights of the command kinds, the pools (fewer accounts, one operation
 * key), the times and the configs change. A rule's campaign then keeps the scenarios whose model
 * run exercises the rule at least once (runProfile.ts).
 */
import fc from 'fast-check';
import { SNAPSHOT_FORMAT } from '../../contract/index.ts';
import type { Config, Snapshot } from '../../contract/index.ts';
import { TIME_MAX } from '../../model/index.ts';
import type { RuleId } from '../../contract/rules.ts';
import { JOB_IDS, configArbWithin, settleTimeArb, timeArb, tokenArb, workerRefArb } from '../random/arbitraries.ts';
import type { ConfigRanges, Scenario } from '../random/arbitraries.ts';
import { MALFORMED_VARIANTS, WORKERS } from '../lockstep/symbolic.ts';
import type { ResubmitChange, SymbolicCommand, TimeRef, TokenRef, WorkerRef } from '../lockstep/symbolic.ts';

/** Kinds of generated command a bias weighs. */
export type CommandKind =
  | 'submit'
  | 'resubmit'
  | 'claim'
  | 'commit'
  | 'ack'
  | 'fail'
  | 'tick'
  | 'restart'
  | 'malformed'
  | 'past';

/** How one rule's campaign generates. */
export interface Bias {
  /** Weight of each command kind (0 or absent: never). */
  readonly weights: Partial<Record<CommandKind, number>>;
  /** Accounts to draw from (default x, y, z). */
  readonly accounts?: readonly string[];
  /** Operation keys to draw from (default k1, k2, k3). */
  readonly keys?: readonly string[];
  /** Amounts to draw from; `limit` is an amount at the edge of the safe-integer range. */
  readonly amounts?: readonly (number | 'limit')[];
  /** Share of permanent failures among failures, 0..1 (default 1/3). */
  readonly permanent?: number;
  /** Deadlines: `short` (1-6 ticks ahead), `long` (10-30); default mostly 5-20, sometimes 1-4. */
  readonly deadlines?: 'short' | 'long';
  /** Commands of a run's model run that must exercise the rule for the run to be kept (default 1). */
  readonly minHits?: number;
  /** Times of claims and ticks: at job instants more often. */
  readonly instants?: boolean;
  /** Commits, acks and fails by the holder of a running job's current token, at the clock: no stale or foreign settlement. */
  readonly current?: boolean;
  /** Config ranges. */
  readonly config?: ConfigRanges;
}

const BASE: Bias['weights'] = {
  submit: 4,
  resubmit: 1,
  claim: 5,
  commit: 2,
  ack: 2,
  fail: 3,
  tick: 3,
  restart: 1,
  malformed: 1,
};
const LIFE = { submit: 4, claim: 5, ack: 2, fail: 2, tick: 3 } as const;

/** The bias of each rule's campaign. */
export const RULE_BIAS: Readonly<Record<RuleId, Bias>> = {
  'malformed-command-refused': { weights: { ...BASE, malformed: 8 } },
  'clock-never-regresses': { weights: { ...BASE, past: 6 } },
  'deadline-kills': { weights: { ...LIFE, tick: 5 }, deadlines: 'short', instants: true },
  'deadline-precedes-lease': {
    weights: { submit: 4, claim: 6, tick: 5 },
    deadlines: 'short',
    instants: true,
    config: { leaseTicks: [2, 6] },
  },
  'lease-equality-expires': { weights: { submit: 3, claim: 6, tick: 4, ack: 3, commit: 2 }, instants: true },
  'expiry-with-attempts-left-requeues': {
    weights: { submit: 3, claim: 6, tick: 5 },
    instants: true,
    config: { maxAttempts: [2, 3] },
  },
  'last-attempt-expiry-is-dead': {
    weights: { submit: 3, claim: 6, tick: 5 },
    instants: true,
    config: { maxAttempts: [1, 2] },
  },
  'backoff-ends-at-not-before': {
    weights: { submit: 3, claim: 5, fail: 5, tick: 4 },
    permanent: 0,
    instants: true,
    config: { maxAttempts: [2, 3] },
  },
  'duplicate-submit-accepted': { weights: { ...LIFE, resubmit: 6 } },
  'changed-payload-conflicts': { weights: { ...LIFE, resubmit: 6 } },
  // Transient failures on a last attempt leave dead jobs beside the running ones: neither may count.
  'capacity-counts-running': {
    weights: { submit: 6, claim: 5, fail: 2, ack: 1, tick: 1 },
    permanent: 0,
    current: true,
    config: { capacity: [1, 2], maxAttempts: [1, 2] },
  },
  'admission-in-seq-order': { weights: { ...LIFE, submit: 6 } },
  'account-head-only': {
    weights: { submit: 5, claim: 6, fail: 3, ack: 2, tick: 2 },
    accounts: ['x', 'y'],
    config: { maxAttempts: [1, 3] },
  },
  'oldest-ready-head-first': { weights: { submit: 6, claim: 5, ack: 3 }, accounts: ['x', 'y', 'z'] },
  'new-token-per-claim': { weights: { submit: 4, claim: 6, ack: 2, fail: 2, tick: 2, restart: 2 } },
  'lease-from-claim': { weights: { submit: 4, claim: 6, tick: 2, fail: 2 } },
  'stale-token-refused': { weights: { ...LIFE, commit: 4, ack: 4, restart: 1 } },
  'owner-checked': { weights: { ...LIFE, commit: 4, ack: 4 } },
  'effect-idempotent': {
    weights: { submit: 5, claim: 6, commit: 6, ack: 1, tick: 3, restart: 1 },
    keys: ['k1'],
    amounts: [1, 2],
    instants: true,
    config: { maxAttempts: [2, 3] },
  },
  'changed-amount-conflicts': { weights: { submit: 5, claim: 6, commit: 6, ack: 2 }, keys: ['k1'], amounts: [1, 2, 5] },
  'commit-keeps-delivery': { weights: { submit: 4, claim: 5, commit: 6, ack: 2 } },
  'balance-stays-safe': {
    weights: { submit: 5, claim: 5, commit: 6, ack: 3 },
    amounts: [1, 5, 'limit', 'limit'],
    accounts: ['x'],
  },
  'ack-settles-done': { weights: { ...LIFE, ack: 6 } },
  // The cap binds from the second retry on when backoffCap < 2 × backoffBase.
  'backoff-capped': {
    weights: { submit: 2, claim: 6, fail: 6, tick: 3 },
    permanent: 0,
    instants: true,
    deadlines: 'long',
    minHits: 2,
    config: { maxAttempts: [3, 4], backoffBase: [2, 3], extraCap: [0, 1] },
  },
  'no-retry-after-deadline': {
    weights: { submit: 3, claim: 6, fail: 6, tick: 2 },
    permanent: 0,
    deadlines: 'short',
    config: { maxAttempts: [2, 3] },
  },
  'permanent-failure-dead': { weights: { submit: 3, claim: 6, fail: 6, tick: 2 }, permanent: 0.7 },
  'attempts-exhausted-dead': {
    weights: { submit: 3, claim: 6, fail: 6, tick: 3 },
    permanent: 0,
    instants: true,
    config: { maxAttempts: [1, 2] },
  },
  'last-error-kept': { weights: { submit: 3, claim: 6, fail: 6, tick: 3 }, instants: true },
  'tick-advances-clock': { weights: { ...LIFE, tick: 8 } },
  'dead-records-kept': {
    weights: { submit: 5, resubmit: 4, claim: 5, fail: 4, ack: 3, tick: 2 },
    config: { capacity: [1, 2] },
  },
  'counters-stay-safe': { weights: { ...BASE } },
  'snapshot-restore-round-trip': { weights: { ...BASE, restart: 6 } },
  'snapshot-is-a-copy': { weights: { ...BASE } },
};

const instantArb: fc.Arbitrary<TimeRef> = fc
  .record({
    at: fc.constantFrom('leaseUntil', 'deadline', 'notBefore' as const),
    job: fc.constantFrom(...JOB_IDS),
    plus: fc.constantFrom(-1, 0, 0, 1 as const),
  })
  .map((r): TimeRef => ({ at: r.at, job: r.job, plus: r.plus as -1 | 0 | 1 }));

/** One generated command under a bias. */
function commandArb(bias: Bias): fc.Arbitrary<SymbolicCommand> {
  const time =
    bias.instants === true
      ? fc.oneof({ weight: 2, arbitrary: timeArb }, { weight: 2, arbitrary: instantArb })
      : timeArb;
  const accounts = bias.accounts ?? ['x', 'y', 'z'];
  const keys = bias.keys ?? ['k1', 'k2', 'k3'];
  const amounts = bias.amounts ?? [1, 2, 5, 7, -3, 0];
  const deadlineIn =
    bias.deadlines === 'short'
      ? fc.integer({ min: 1, max: 6 })
      : bias.deadlines === 'long'
        ? fc.integer({ min: 10, max: 30 })
        : fc.oneof(
            { weight: 1, arbitrary: fc.integer({ min: 1, max: 4 }) },
            { weight: 3, arbitrary: fc.integer({ min: 5, max: 20 }) },
          );
  const permanentShare = bias.permanent ?? 1 / 3;
  const settler =
    bias.current === true
      ? {
          worker: fc.constant<WorkerRef>({ holder: true }),
          token: fc.nat({ max: 3 }).map((pick): TokenRef => ({ of: 'running', pick })),
          now: fc.constant<TimeRef>({ at: 'clock', plus: 0 }),
        }
      : { worker: workerRefArb, token: tokenArb, now: settleTimeArb };
  const kinds: Record<CommandKind, fc.Arbitrary<SymbolicCommand>> = {
    submit: fc
      .record({
        id: fc.constantFrom(...JOB_IDS),
        account: fc.constantFrom(...accounts),
        key: fc.constantFrom(...keys),
        amount: fc.constantFrom(...amounts),
        deadlineIn,
        now: time,
      })
      .map((r): SymbolicCommand => ({ kind: 'submit', ...r })),
    resubmit: fc
      .record({
        id: fc.constantFrom(...JOB_IDS),
        change: fc.constantFrom<ResubmitChange>('none', 'none', 'amount', 'key', 'account', 'deadline'),
        now: time,
      })
      .map((r): SymbolicCommand => ({ kind: 'resubmit', ...r })),
    claim: fc
      .record({ worker: fc.constantFrom(...WORKERS), now: time })
      .map((r): SymbolicCommand => ({ kind: 'claim', ...r })),
    commit: fc.record(settler).map((r): SymbolicCommand => ({ kind: 'commit', ...r })),
    ack: fc.record(settler).map((r): SymbolicCommand => ({ kind: 'ack', ...r })),
    fail: fc
      .record({
        worker: settler.worker,
        token: settler.token,
        permanent: fc.double({ min: 0, max: 1, noNaN: true, maxExcluded: true }),
        now: bias.instants === true ? time : settler.now,
      })
      .map(
        (r): SymbolicCommand => ({
          kind: 'fail',
          worker: r.worker,
          token: r.token,
          failure: r.permanent < permanentShare ? 'permanent' : 'transient',
          now: r.now,
        }),
      ),
    tick: time.map((now): SymbolicCommand => ({ kind: 'tick', now })),
    restart: fc.constant<SymbolicCommand>({ kind: 'restart' }),
    malformed: fc
      .record({ variant: fc.nat({ max: MALFORMED_VARIANTS - 1 }), now: timeArb })
      .map((r): SymbolicCommand => ({ kind: 'malformed', ...r })),
    past: fc
      .record({ minus: fc.integer({ min: 1, max: 3 }), claim: fc.boolean() })
      .map(
        (r): SymbolicCommand =>
          r.claim
            ? { kind: 'claim', worker: 'w1', now: { at: 'past', minus: r.minus } }
            : { kind: 'tick', now: { at: 'past', minus: r.minus } },
      ),
  };
  const weighted = (Object.entries(bias.weights) as [CommandKind, number][])
    .filter(([, w]) => w > 0)
    .map(([kind, weight]) => ({ weight, arbitrary: kinds[kind] }));
  return fc.oneof(...weighted);
}

/** Scenarios of up to `maxCommands` commands biased towards `rule`'s situations. */
export function targetedScenarioArb(rule: RuleId, maxCommands: number): fc.Arbitrary<ProfileScenario> {
  const bias = RULE_BIAS[rule];
  const plain = fc.record({
    config: configArbWithin(bias.config ?? {}),
    commands: fc.array(commandArb(bias), { minLength: 1, maxLength: maxCommands, size: 'max' }),
  });
  if (rule !== 'counters-stay-safe') return plain;
  // The counters' edge is 2^53-1 admissions or claims away from an empty store: these runs start
  // from a restored snapshot whose counters are a few steps short of it.
  return fc
    .record({ scenario: plain, seqLeft: fc.integer({ min: 1, max: 3 }), tokensLeft: fc.integer({ min: 1, max: 3 }) })
    .map(({ scenario, seqLeft, tokensLeft }) => ({
      ...scenario,
      start: edgeSnapshot(scenario.config, seqLeft, tokensLeft),
    }));
}

/** A scenario of a profile: a plain one, or one that starts from a restored snapshot instead of an empty store. */
export interface ProfileScenario extends Scenario {
  readonly start?: Snapshot;
}

/** An empty store whose next admission and next token are `seqLeft` and `tokensLeft` short of TIME_MAX. Pure. */
export function edgeSnapshot(config: Config, seqLeft: number, tokensLeft: number): Snapshot {
  return {
    format: SNAPSHOT_FORMAT,
    config,
    clock: 0,
    nextToken: TIME_MAX - tokensLeft,
    nextSeq: TIME_MAX - seqLeft,
    jobs: {},
    balances: {},
    effects: {},
  };
}
