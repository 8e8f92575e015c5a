/**
 * Concurrent scenarios: a config, a number of lanes, and rounds of requests. Every request of a
 * round carries the round's `now`; a round starts once the previous ones have settled, or, when it
 * `overlap`s, while their requests are still in flight, so that time moves under load (see
 * docs/conformance.md, "Competing workers"). Lanes are connections, not workers: a worker may
 * claim on several lanes and hold several deliveries, and a settlement travels on any lane in
 * its holder's name.
 *
 * The generator is biased toward contention, since a race needs two requests in flight that touch
 * the same thing: several claims in one round; a settlement at `leaseUntil - 1` or `leaseUntil`
 * beside claims that may take the job again; more submits than the capacity has room for; two jobs
 * of one account; the same submit twice; one worker claiming on two lanes. Overlapping rounds aim
 * at the two races that need time to move while a request is in flight: the stale ack (sent at
 * `leaseUntil - 1`, in flight when another worker claims the job again) and the double effect.
 *
 * As in the sequential campaign (symbolic.ts), tokens and times are references ("the latest live
 * delivery", "its lease expiry, minus one") resolved when the request is sent, from the replies
 * come by then; a round's `now` is fixed when the round starts. So a shrunk scenario keeps its
 * meaning: removing a round does not turn "the latest delivery" into a number that matches another.
 */
import fc from 'fast-check';
import type { Config, FailureKind } from '../../contract/index.ts';

/** Job ids, accounts and keys of concurrent scenarios: small pools, so that requests collide. */
export const CONCURRENT_JOB_IDS = ['a', 'b', 'c', 'd', 'e', 'f'] as const;
export const CONCURRENT_ACCOUNTS = ['x', 'y'] as const;
export const CONCURRENT_KEYS = ['k1', 'k2'] as const;

/** The worker name of a lane: lane 0 is `w1`. Pure. */
export const laneWorker = (lane: number): string => `w${lane + 1}`;

/**
 * A delivery seen in an earlier round's claim reply: the `pick`-th most recent one (modulo their
 * number) among those still live as far as the replies tell (no accepted ack or fail, lease not
 * over at the previous round's `now`), or among the ended ones.
 */
export interface DeliveryRef {
  readonly pick: number;
  readonly ended: boolean;
}

/** The `now` of a round, never below the previous round's. */
export type RoundTime =
  | { readonly at: 'same' }
  | { readonly at: 'later'; readonly plus: number }
  | { readonly at: 'leaseUntil'; readonly delivery: DeliveryRef; readonly plus: -1 | 0 }
  | { readonly at: 'notBefore' | 'deadline'; readonly job: string; readonly plus: -1 | 0 };

/** One request before resolution. */
export type ConcurrentCommand =
  | {
      readonly kind: 'submit';
      readonly id: string;
      readonly account: string;
      readonly key: string;
      readonly amount: number;
      readonly deadlineIn: number;
    }
  /** An exact repeat of the first submit sent for `id` (a duplicate), or a fresh submit if none was. */
  | { readonly kind: 'resubmit'; readonly id: string }
  /** A claim by worker `as` (index: 0 is `w1`, modulo the lanes; default: the lane's index). */
  | { readonly kind: 'claim'; readonly as?: number }
  | { readonly kind: 'commit' | 'ack'; readonly delivery: DeliveryRef; readonly worker: 'holder' | 'other' }
  | {
      readonly kind: 'fail';
      readonly delivery: DeliveryRef;
      readonly worker: 'holder' | 'other';
      readonly failure: FailureKind;
    }
  | { readonly kind: 'tick' };

/** A request of a round: a command on a lane (taken modulo the scenario's workers). */
export interface ConcurrentRequest {
  readonly lane: number;
  readonly command: ConcurrentCommand;
}

/** One round: requests sent together (each lane's in order), all at the round's `now`. */
export interface ConcurrentRound {
  readonly now: RoundTime;
  readonly requests: readonly ConcurrentRequest[];
  /** Sent while requests of earlier rounds may still be in flight (default: once they have settled). */
  readonly overlap?: boolean;
  /** Chooses the order in which a non-concurrent adapter is sent the round's requests (0: as listed). */
  readonly shuffle: number;
}

/** Requests over some rounds (a scenario's, or a run's as sent). Pure. */
export const requestCount = (rounds: readonly { readonly requests: readonly unknown[] }[]): number =>
  rounds.reduce((n, r) => n + r.requests.length, 0);

/** A concurrent scenario. */
export interface ConcurrentScenario {
  readonly config: Config;
  /** Lanes, 1 to the campaign's `workers` (worker names `w1`.. are drawn from as many). */
  readonly workers: number;
  readonly rounds: readonly ConcurrentRound[];
  /**
   * Send-time perturbations: after its run as generated, the scenario runs again on a fresh
   * implementation once for each, every request written after the delay `sendDelay` chooses from
   * the perturbation and the request (default: none). Drawn with the scenario, so the seed and
   * path replay them; shrinking drops them.
   */
  readonly perturbations?: readonly number[];
}

/** Most delay steps `sendDelay` returns. */
export const MAX_SEND_DELAY = 4;

/**
 * The delay before request `id` is written in perturbation `seed`, in steps from 0 to
 * MAX_SEND_DELAY (0 in the run as generated, seed 0): a real implementation waits 2^(steps-1) ms,
 * one under fast-check's scheduler as many of the scheduler's await points. Pure.
 */
export function sendDelay(seed: number, id: number): number {
  if (seed === 0) return 0;
  let x = Math.imul(seed ^ Math.imul(id + 1, 0x9e3779b1), 0x85ebca6b) >>> 0;
  x ^= x >>> 13;
  x = Math.imul(x, 0xc2b2ae35) >>> 0;
  x ^= x >>> 16;
  return x % (MAX_SEND_DELAY + 1);
}

/** Options of the scenario arbitrary. */
export interface ConcurrentScenarioOptions {
  /** Most worker lanes (at least 1). */
  readonly workers: number;
  /** Most rounds (default 8). */
  readonly maxRounds?: number;
  /** A fixed config instead of random small ones. */
  readonly config?: Config;
  /** Most send-time perturbations of a scenario (default 0: each scenario runs once). */
  readonly perturbations?: number;
}

/** Small configs that make contention likely: capacity 1-3, maxAttempts 1-3, lease 1-3 ticks, short backoff. */
export const concurrentConfigArb: fc.Arbitrary<Config> = fc
  .record({
    capacity: fc.integer({ min: 1, max: 3 }),
    maxAttempts: fc.integer({ min: 1, max: 3 }),
    leaseTicks: fc.integer({ min: 1, max: 3 }),
    backoffBase: fc.integer({ min: 1, max: 2 }),
    extraCap: fc.integer({ min: 0, max: 2 }),
  })
  .map(({ extraCap, ...c }) => ({ ...c, backoffCap: c.backoffBase + extraCap }));

const jobIdArb = fc.constantFrom(...CONCURRENT_JOB_IDS);

/** Mostly the latest live delivery, sometimes an older or an ended one. */
export const deliveryRefArb: fc.Arbitrary<DeliveryRef> = fc.record({
  pick: fc.oneof({ weight: 4, arbitrary: fc.constant(0) }, { weight: 2, arbitrary: fc.nat({ max: 3 }) }),
  ended: fc.oneof({ weight: 6, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
});

const roundTimeArb: fc.Arbitrary<RoundTime> = fc.oneof(
  { weight: 6, arbitrary: fc.constant<RoundTime>({ at: 'same' }) },
  { weight: 3, arbitrary: fc.integer({ min: 1, max: 3 }).map((plus): RoundTime => ({ at: 'later', plus })) },
  {
    weight: 2,
    arbitrary: fc
      .record({ delivery: deliveryRefArb, plus: fc.constantFrom<-1 | 0>(-1, 0) })
      .map((r): RoundTime => ({ at: 'leaseUntil', ...r })),
  },
  {
    weight: 1,
    arbitrary: fc
      .record({
        at: fc.constantFrom<'notBefore' | 'deadline'>('notBefore', 'deadline'),
        job: jobIdArb,
        plus: fc.constantFrom<-1 | 0>(-1, 0),
      })
      .map((r): RoundTime => r),
  },
);

const submitArb = (account?: fc.Arbitrary<string>): fc.Arbitrary<ConcurrentCommand> =>
  fc
    .record({
      id: jobIdArb,
      account: account ?? fc.constantFrom(...CONCURRENT_ACCOUNTS),
      key: fc.constantFrom(...CONCURRENT_KEYS),
      amount: fc.constantFrom(1, 2, 5),
      deadlineIn: fc.oneof(
        { weight: 1, arbitrary: fc.integer({ min: 1, max: 3 }) },
        { weight: 4, arbitrary: fc.integer({ min: 4, max: 12 }) },
      ),
    })
    .map((r): ConcurrentCommand => ({ kind: 'submit', ...r }));

const workerArb = fc.oneof(
  { weight: 8, arbitrary: fc.constant<'holder'>('holder') },
  { weight: 1, arbitrary: fc.constant<'other'>('other') },
);

const settleArb = (delivery: fc.Arbitrary<DeliveryRef>): fc.Arbitrary<ConcurrentCommand> =>
  fc.oneof(
    {
      weight: 2,
      arbitrary: fc
        .record({ kind: fc.constantFrom<'commit' | 'ack'>('ack', 'commit', 'ack'), delivery, worker: workerArb })
        .map((r): ConcurrentCommand => r),
    },
    {
      weight: 1,
      arbitrary: fc
        .record({
          delivery,
          worker: workerArb,
          failure: fc.constantFrom<FailureKind>('transient', 'transient', 'permanent'),
        })
        .map((r): ConcurrentCommand => ({ kind: 'fail', ...r })),
    },
  );

const commandArb: fc.Arbitrary<ConcurrentCommand> = fc.oneof(
  { weight: 4, arbitrary: submitArb() },
  { weight: 1, arbitrary: jobIdArb.map((id): ConcurrentCommand => ({ kind: 'resubmit', id })) },
  { weight: 4, arbitrary: fc.constant<ConcurrentCommand>({ kind: 'claim' }) },
  { weight: 4, arbitrary: settleArb(deliveryRefArb) },
  { weight: 1, arbitrary: fc.constant<ConcurrentCommand>({ kind: 'tick' }) },
);

const request = (lane: number, command: ConcurrentCommand): ConcurrentRequest => ({ lane, command });

/** The round arbitraries, one per kind of contention. */
function roundArb(workers: number): fc.Arbitrary<ConcurrentRound> {
  const lane = fc.nat({ max: Math.max(0, workers - 1) });
  const rush = Math.max(2, Math.min(workers + 1, 6));
  const shuffle = fc.nat({ max: 1000 });
  // Anything, on any lanes.
  const mixed = fc
    .record({
      now: roundTimeArb,
      requests: fc.array(fc.record({ lane, command: commandArb }), { minLength: 1, maxLength: 4 }),
      shuffle,
    })
    .map((r): ConcurrentRound => r);
  // Several workers claiming at once, one lane each, maybe beside one other request.
  const claims = fc
    .record({
      now: roundTimeArb,
      n: fc.integer({ min: 2, max: rush }),
      extra: fc.option(fc.record({ lane, command: commandArb }), { nil: undefined }),
      shuffle,
      // Sometimes one worker claims on two lanes at once (it will hold two deliveries).
      same: fc.oneof({ weight: 3, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
    })
    .map(
      ({ now, n, extra, shuffle: s, same }): ConcurrentRound => ({
        now,
        requests: [
          ...Array.from(
            { length: n },
            (_, i): ConcurrentRequest => request(i, { kind: 'claim', ...(same && i === 1 ? { as: 0 } : {}) }),
          ),
          ...(extra === undefined ? [] : [extra]),
        ],
        shuffle: s,
      }),
    );
  // A settlement (or two) of one delivery at the last tick of its lease or the first after it, racing claims.
  const boundary = fc
    .tuple(
      deliveryRefArb,
      fc.constantFrom<-1 | 0>(-1, 0),
      fc.array(fc.constant(0), { minLength: 0, maxLength: 2 }),
      fc.integer({ min: 1, max: 2 }),
      shuffle,
    )
    .chain(([delivery, plus, settles, claimsN, s]) =>
      fc
        .tuple(
          settleArb(fc.constant(delivery)),
          fc.array(settleArb(fc.constant(delivery)), { minLength: settles.length, maxLength: settles.length }),
        )
        .map(
          ([first, more]): ConcurrentRound => ({
            now: { at: 'leaseUntil', delivery, plus },
            requests: [
              request(0, first),
              ...more.map((c, i) => request(i + 1, c)),
              ...Array.from({ length: claimsN }, (_, i) => request(i + 1 + more.length, { kind: 'claim' })),
            ],
            shuffle: s,
          }),
        ),
    );
  // More submits than the capacity has room for, often of one account.
  const submits = fc
    .record({
      now: roundTimeArb,
      account: fc.option(fc.constantFrom(...CONCURRENT_ACCOUNTS), { nil: undefined }),
      n: fc.integer({ min: 2, max: rush }),
      shuffle,
    })
    .chain(({ now, account, n, shuffle: s }) =>
      fc
        .uniqueArray(submitArb(account === undefined ? undefined : fc.constant(account)), {
          minLength: 2,
          maxLength: n,
          selector: (c) => (c.kind === 'submit' ? c.id : ''),
        })
        .map((cs): ConcurrentRound => ({ now, requests: cs.map((c, i) => request(i, c)), shuffle: s })),
    );
  // The same submit twice in one round (maybe beside a third request).
  const duplicate = fc
    .record({
      now: roundTimeArb,
      submit: submitArb(),
      extra: fc.option(fc.record({ lane, command: commandArb }), { nil: undefined }),
      shuffle,
    })
    .map(
      ({ now, submit, extra, shuffle: s }): ConcurrentRound => ({
        now,
        requests: [request(0, submit), request(1, submit), ...(extra === undefined ? [] : [extra])],
        shuffle: s,
      }),
    );
  return fc.oneof(
    { weight: 3, arbitrary: mixed },
    { weight: 3, arbitrary: claims },
    { weight: 4, arbitrary: boundary },
    { weight: 2, arbitrary: submits },
    { weight: 1, arbitrary: duplicate },
  );
}

const LATEST: DeliveryRef = { pick: 0, ended: false };

/**
 * Rounds where time moves while a settlement is in flight: a job is submitted and claimed (both
 * optional: earlier rounds may have done it), its holder sends an ack or commit at `leaseUntil - 1`,
 * and at once (overlapping) the clock reaches `leaseUntil` and another worker claims; then maybe the
 * new holder commits or acks on that same lane (after its claim, so its token is the new one),
 * racing the old settlement: a stale ack after a reclaim, or two deliveries committing at once.
 */
function timeMovesArb(workers: number): fc.Arbitrary<ConcurrentRound[]> {
  const two = Math.max(2, workers);
  return fc
    .record({
      setup: fc.oneof({ weight: 1, arbitrary: fc.constant(false) }, { weight: 2, arbitrary: fc.constant(true) }),
      submit: submitArb(),
      old: fc.constantFrom<'commit' | 'ack'>('ack', 'commit'),
      fresh: fc.option(fc.constantFrom<'commit' | 'ack'>('commit', 'ack'), { nil: undefined }),
      claimer: fc.integer({ min: 1, max: two - 1 }),
      shuffle: fc.nat({ max: 1000 }),
    })
    .map(({ setup, submit, old, fresh, claimer, shuffle }): ConcurrentRound[] => [
      ...(setup
        ? [
            { now: { at: 'same' }, requests: [request(0, submit)], shuffle } satisfies ConcurrentRound,
            {
              now: { at: 'later', plus: 1 },
              requests: [request(0, { kind: 'claim', as: 0 })],
              shuffle,
            } satisfies ConcurrentRound,
          ]
        : []),
      {
        now: { at: 'leaseUntil', delivery: LATEST, plus: -1 },
        requests: [request(0, { kind: old, delivery: LATEST, worker: 'holder' })],
        shuffle,
      },
      {
        now: { at: 'later', plus: 1 },
        overlap: true,
        requests: [
          request(claimer, { kind: 'claim', as: claimer }),
          ...(fresh === undefined ? [] : [request(claimer, { kind: fresh, delivery: LATEST, worker: 'holder' })]),
        ],
        shuffle,
      },
    ]);
}

/** A job submitted and claimed on lane 0 by `w1`, as two rounds (for the targeted groups). */
const SAME: RoundTime = { at: 'same' };
const setupRounds = (submit: ConcurrentCommand, shuffle: number): ConcurrentRound[] => [
  { now: SAME, requests: [request(0, submit)], shuffle },
  { now: { at: 'later', plus: 1 }, requests: [request(0, { kind: 'claim', as: 0 })], shuffle },
];

/**
 * Targeted overlaps, each at a moment a race can bite, after an optional setup: (1) an ack, commit
 * or fail sent at the very tick its lease ends, beside claims that may take the job again (the
 * stale settlement); (2) claims on several lanes at a lease's end (a claim beside an expiry: two
 * requests race to expire the lease, and two claims to take the job); (3) submits beside a
 * settlement that frees a slot and beside each other (a capacity check beside a submit).
 */
function targetedArb(workers: number): fc.Arbitrary<ConcurrentRound[]> {
  const others = Math.max(1, Math.min(3, workers - 1));
  const setup = fc.oneof({ weight: 1, arbitrary: fc.constant(false) }, { weight: 3, arbitrary: fc.constant(true) });
  const shuffle = fc.nat({ max: 1000 });
  const atLeaseEnd: RoundTime = { at: 'leaseUntil', delivery: LATEST, plus: 0 };
  const claimsFrom = (first: number, n: number): ConcurrentRequest[] =>
    Array.from({ length: n }, (_, i) => request(first + i, { kind: 'claim', as: first + i }));
  const leaseEnd = fc
    .record({
      setup,
      submit: submitArb(),
      settle: fc.constantFrom<'ack' | 'commit' | 'fail'>('ack', 'commit', 'ack', 'commit', 'fail'),
      claims: fc.integer({ min: 1, max: others }),
      shuffle,
    })
    .map(({ setup: s, submit, settle, claims, shuffle: sh }): ConcurrentRound[] => [
      ...(s ? setupRounds(submit, sh) : []),
      {
        now: atLeaseEnd,
        requests: [
          request(
            0,
            settle === 'fail'
              ? { kind: 'fail', delivery: LATEST, worker: 'holder', failure: 'transient' }
              : { kind: settle, delivery: LATEST, worker: 'holder' },
          ),
          ...claimsFrom(1, claims),
        ],
        shuffle: sh,
      },
    ]);
  const expiry = fc
    .record({
      setup,
      submit: submitArb(),
      second: submitArb(),
      claims: fc.integer({ min: 2, max: others + 1 }),
      shuffle,
    })
    .map(({ setup: s, submit, second, claims, shuffle: sh }): ConcurrentRound[] => [
      ...(s ? [...setupRounds(submit, sh), { now: SAME, requests: [request(1, second)], shuffle: sh }] : []),
      { now: atLeaseEnd, requests: claimsFrom(1, claims), shuffle: sh },
    ]);
  const capacity = fc
    .record({
      setup,
      submit: submitArb(),
      account: fc.constantFrom(...CONCURRENT_ACCOUNTS),
      n: fc.integer({ min: 2, max: others + 1 }),
      settle: fc.boolean(),
      shuffle,
    })
    .chain(({ setup: s, submit, account, n, settle, shuffle: sh }) =>
      fc
        .uniqueArray(submitArb(fc.constant(account)), {
          minLength: 2,
          maxLength: n,
          selector: (c) => (c.kind === 'submit' ? c.id : ''),
        })
        .map((cs): ConcurrentRound[] => [
          ...(s ? setupRounds(submit, sh) : []),
          {
            now: SAME,
            requests: [
              ...(settle ? [request(0, { kind: 'ack', delivery: LATEST, worker: 'holder' })] : []),
              ...cs.map((c, i) => request(i + 1, c)),
            ],
            shuffle: sh,
          },
        ]),
    );
  return fc.oneof(
    { weight: 4, arbitrary: leaseEnd },
    { weight: 2, arbitrary: expiry },
    { weight: 2, arbitrary: capacity },
  );
}

/** Any round, sometimes started while the previous one is still in flight. */
function looseRoundArb(workers: number): fc.Arbitrary<ConcurrentRound[]> {
  return fc
    .tuple(
      roundArb(workers),
      fc.oneof({ weight: 3, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
    )
    .map(([round, overlap]) => [overlap ? { ...round, overlap } : round]);
}

/**
 * Concurrent scenarios for up to `workers` lanes and `maxRounds` rounds. Shrinks toward fewer
 * rounds, fewer requests and fewer workers.
 */
export function concurrentScenarioArb(options: ConcurrentScenarioOptions): fc.Arbitrary<ConcurrentScenario> {
  const most = Math.max(1, Math.floor(options.workers));
  const maxRounds = Math.max(1, options.maxRounds ?? 8);
  const perturbations = Math.max(0, Math.floor(options.perturbations ?? 0));
  const groups = fc.oneof(
    { weight: 4, arbitrary: looseRoundArb(most) },
    { weight: 2, arbitrary: timeMovesArb(most) },
    { weight: 4, arbitrary: targetedArb(most) },
  );
  const base = fc.record({
    config: options.config === undefined ? concurrentConfigArb : fc.constant(options.config),
    // Mostly every lane, since a race needs requests in flight together; shrinking tries fewer.
    workers: fc.oneof(
      { withCrossShrink: true },
      { weight: 1, arbitrary: fc.integer({ min: 1, max: most }) },
      { weight: 2, arbitrary: fc.constant(most) },
    ),
    rounds: fc.array(groups, { minLength: 1, maxLength: maxRounds }).map((gs) => gs.flat().slice(0, maxRounds)),
  });
  if (perturbations === 0) return base;
  // The perturbations first, so that shrinking drops them before it works on the rounds.
  return fc
    .tuple(fc.array(fc.integer({ min: 1, max: 0x7fffffff }), { maxLength: perturbations }), base)
    .map(([ps, scenario]) => (ps.length === 0 ? scenario : { ...scenario, perturbations: ps }));
}
