/**
 * fast-check arbitraries for random differential runs. Pools are deliberately small (4 job ids,
 * 3 accounts, 2 workers, 3 keys) so that ids collide, accounts queue behind each other, effects
 * conflict and tokens go stale; times are biased to the boundaries of the current state (each
 * lease expiry, deadline and backoff end, and one tick either side). See symbolic.ts for how the
 * references are resolved.
 */
import fc from 'fast-check';
import type { Config } from '../../contract/index.ts';
import { MALFORMED_VARIANTS, WORKERS } from '../lockstep/symbolic.ts';
import type { ResubmitChange, SymbolicCommand, TimeRef, TokenRef, WorkerRef } from '../lockstep/symbolic.ts';

/** Job ids the campaign uses. */
export const JOB_IDS = ['a', 'b', 'c', 'd'] as const;
/** Accounts the campaign uses. */
export const ACCOUNTS = ['x', 'y', 'z'] as const;
/** Operation keys the campaign uses. */
export const KEYS = ['k1', 'k2', 'k3'] as const;

/** Inclusive ranges of a store config's fields; `extraCap` is how far the backoff cap lies above its base. */
export type ConfigRanges = Partial<Record<keyof Config | 'extraCap', readonly [number, number]>>;

/** Store configs with each field in its range of `ranges`, or else in configArb's. */
export function configArbWithin(ranges: ConfigRanges): fc.Arbitrary<Config> {
  const range = (r: readonly [number, number] | undefined, fallback: readonly [number, number]): fc.Arbitrary<number> =>
    fc.integer({ min: (r ?? fallback)[0], max: (r ?? fallback)[1] });
  return fc
    .record({
      capacity: range(ranges.capacity, [1, 4]),
      maxAttempts: range(ranges.maxAttempts, [1, 3]),
      leaseTicks: range(ranges.leaseTicks, [1, 4]),
      backoffBase: range(ranges.backoffBase, [1, 3]),
      extraCap: range(ranges.extraCap, [0, 4]),
    })
    .map(({ extraCap, ...c }) => ({ ...c, backoffCap: c.backoffBase + extraCap }));
}

/** Small store configs: capacity 1-4, maxAttempts 1-3, lease 1-4, backoff base 1-3 and cap up to base+4. */
export const configArb: fc.Arbitrary<Config> = configArbWithin({});

const jobId = fc.constantFrom(...JOB_IDS);

/** A boundary-biased time: mostly "now" or a few ticks later, often exactly at (or next to) a job's instant. */
export const timeArb: fc.Arbitrary<TimeRef> = fc.oneof(
  { weight: 7, arbitrary: fc.constant<TimeRef>({ at: 'clock', plus: 0 }) },
  { weight: 3, arbitrary: fc.integer({ min: 1, max: 3 }).map((plus): TimeRef => ({ at: 'clock', plus })) },
  {
    weight: 4,
    arbitrary: fc
      .record({
        at: fc.constantFrom('leaseUntil', 'deadline', 'notBefore' as const),
        job: jobId,
        plus: fc.constantFrom(-1, 0, 1 as const),
      })
      .map((r): TimeRef => ({ at: r.at, job: r.job, plus: r.plus as -1 | 0 | 1 })),
  },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 2 }).map((minus): TimeRef => ({ at: 'past', minus })) },
);

/** A time for settling commands: mostly right away, sometimes at (or just before) a lease expiry. */
export const settleTimeArb: fc.Arbitrary<TimeRef> = fc.oneof(
  { weight: 10, arbitrary: fc.constant<TimeRef>({ at: 'clock', plus: 0 }) },
  { weight: 2, arbitrary: fc.integer({ min: 1, max: 2 }).map((plus): TimeRef => ({ at: 'clock', plus })) },
  { weight: 3, arbitrary: timeArb },
);

/** A token: mostly a running job's current one, sometimes the latest issued, a stale one or one never issued. */
export const tokenArb: fc.Arbitrary<TokenRef> = fc.oneof(
  { weight: 10, arbitrary: fc.nat({ max: 3 }).map((pick): TokenRef => ({ of: 'running', pick })) },
  { weight: 2, arbitrary: jobId.map((job): TokenRef => ({ of: 'current', job })) },
  { weight: 2, arbitrary: fc.constant<TokenRef>({ of: 'latest' }) },
  { weight: 2, arbitrary: fc.nat({ max: 7 }).map((pick): TokenRef => ({ of: 'stale', pick })) },
  { weight: 1, arbitrary: fc.nat({ max: 2 }).map((plus): TokenRef => ({ of: 'never', plus })) },
);

/** A worker: mostly the holder of the token's delivery, sometimes another worker or a fixed name. */
export const workerRefArb: fc.Arbitrary<WorkerRef> = fc.oneof(
  { weight: 8, arbitrary: fc.constant<WorkerRef>({ holder: true }) },
  { weight: 1, arbitrary: fc.constant<WorkerRef>({ other: true }) },
  { weight: 1, arbitrary: fc.constantFrom(...WORKERS).map((name): WorkerRef => ({ name })) },
);

/** A small amount; now and then one at the edge of the safe-integer range (`limit`, see symbolic.ts). */
const amountArb: fc.Arbitrary<number | 'limit'> = fc.oneof(
  { weight: 12, arbitrary: fc.constantFrom(1, 2, 5, 7, -3, 0) },
  { weight: 3, arbitrary: fc.constant<'limit'>('limit') },
);

const submitArb: fc.Arbitrary<SymbolicCommand> = fc
  .record({
    id: jobId,
    account: fc.constantFrom(...ACCOUNTS),
    key: fc.constantFrom(...KEYS),
    amount: amountArb,
    deadlineIn: fc.oneof(
      { weight: 1, arbitrary: fc.integer({ min: 1, max: 4 }) },
      { weight: 3, arbitrary: fc.integer({ min: 5, max: 20 }) },
    ),
    now: timeArb,
  })
  .map((r): SymbolicCommand => ({ kind: 'submit', ...r }));

const resubmitArb: fc.Arbitrary<SymbolicCommand> = fc
  .record({
    id: jobId,
    change: fc.constantFrom<ResubmitChange>('none', 'none', 'amount', 'key', 'account', 'deadline'),
    now: timeArb,
  })
  .map((r): SymbolicCommand => ({ kind: 'resubmit', ...r }));

const claimArb = fc
  .record({ worker: fc.constantFrom(...WORKERS), now: timeArb })
  .map((r): SymbolicCommand => ({ kind: 'claim', ...r }));

const settleArb = fc
  .record({
    kind: fc.constantFrom('commit', 'ack' as const),
    worker: workerRefArb,
    token: tokenArb,
    now: settleTimeArb,
  })
  .map((r): SymbolicCommand => ({ kind: r.kind as 'commit' | 'ack', worker: r.worker, token: r.token, now: r.now }));

const failArb = fc
  .record({
    worker: workerRefArb,
    token: tokenArb,
    failure: fc.constantFrom('transient', 'transient', 'permanent' as const),
    now: settleTimeArb,
  })
  .map((r): SymbolicCommand => ({ kind: 'fail', ...r, failure: r.failure as 'transient' | 'permanent' }));

const tickArb = timeArb.map((now): SymbolicCommand => ({ kind: 'tick', now }));

const malformedArb = fc
  .record({ variant: fc.nat({ max: MALFORMED_VARIANTS - 1 }), now: timeArb })
  .map((r): SymbolicCommand => ({ kind: 'malformed', ...r }));

/** One generated command, weighted towards the lifecycle (submit, claim, settle, fail, tick), with restarts and malformed commands now and then. */
export const symbolicCommandArb: fc.Arbitrary<SymbolicCommand> = fc.oneof(
  { weight: 4, arbitrary: submitArb },
  { weight: 1, arbitrary: resubmitArb },
  { weight: 5, arbitrary: claimArb },
  { weight: 4, arbitrary: settleArb },
  { weight: 3, arbitrary: failArb },
  { weight: 3, arbitrary: tickArb },
  { weight: 1, arbitrary: fc.constant<SymbolicCommand>({ kind: 'restart' }) },
  { weight: 1, arbitrary: malformedArb },
);

/** One random run: a config and a sequence of commands. */
export interface Scenario {
  readonly config: Config;
  readonly commands: readonly SymbolicCommand[];
}

/** Scenarios of up to `maxCommands` commands (default 40), for a config drawn from `configs` (default configArb). */
export function scenarioArb(
  options: { maxCommands?: number; configs?: fc.Arbitrary<Config> } = {},
): fc.Arbitrary<Scenario> {
  return fc.record({
    config: options.configs ?? configArb,
    commands: fc.array(symbolicCommandArb, { minLength: 1, maxLength: options.maxCommands ?? 40, size: 'max' }),
  });
}
