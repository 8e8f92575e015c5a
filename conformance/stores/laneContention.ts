/**
 * A hand-made contention for the lane adapters of the durable stores: round after round, one new
 * ready job is submitted and then `lanes` lanes claim at once. The correct store delivers each
 * round's job exactly once (the other claims find nothing); a store that reads and then writes
 * without holding the lock in between delivers it more than once, or fails claims. And a first
 * look at lanes at all: two lanes claiming two ready jobs in the same round.
 */
import type { Config, Reply } from '../../contract/index.ts';
import type { ConcurrentFactory } from '../concurrent/adapter.ts';
import { isStoreError } from './laneErrors.ts';

/** What the contention saw. */
export interface ClaimContention {
  /** Claims that delivered the round's job, per round. */
  readonly deliveries: readonly number[];
  /** Store-error replies (`<database code>: <message>`). */
  readonly errors: readonly string[];
  /** Every token delivered, in round order. */
  readonly tokens: readonly number[];
  /** Replies that were neither a claim nor a store error. */
  readonly other: readonly Reply[];
  /** The store's nextToken at the end. */
  readonly nextToken: number;
}

/** The config of the contention: leases and deadlines that keep each round's job alone among the claimable ones. */
export const CONTENTION_CONFIG: Config = {
  capacity: 100,
  maxAttempts: 3,
  leaseTicks: 1000,
  backoffBase: 1,
  backoffCap: 4,
};

/** Runs `rounds` rounds of `lanes` claims at once on one new ready job (see the file comment); closes the adapter. */
export async function claimContention(
  factory: ConcurrentFactory,
  lanes: number,
  rounds: number,
): Promise<ClaimContention> {
  const adapter = await factory(CONTENTION_CONFIG, { workers: lanes });
  const deliveries: number[] = [];
  const errors: string[] = [];
  const tokens: number[] = [];
  const other: Reply[] = [];
  try {
    for (let round = 0; round < rounds; round++) {
      // Every earlier round's job is past its deadline by now (dead, or delivered and expired): only the new job is claimable.
      const now = round * 2000;
      const submitted = await adapter.execute(0, {
        type: 'submit',
        id: `j${round}`,
        account: `a${round}`,
        key: 'k',
        amount: 1,
        deadline: now + 1500,
        now,
      });
      if (!submitted.ok) other.push(submitted);
      const replies = await Promise.all(
        Array.from({ length: lanes }, (_, lane) =>
          adapter.execute(lane, { type: 'claim', worker: `w${lane}`, now: now + 1 }),
        ),
      );
      let delivered = 0;
      for (const r of replies) {
        const seen: unknown = r;
        if (isStoreError(seen)) errors.push(`${seen.cause ?? 'error'}: ${seen.message}`);
        else if (r.ok && r.type === 'claim') {
          if (r.job === null) continue;
          delivered += 1;
          tokens.push(r.job.token);
        } else other.push(r);
      }
      deliveries.push(delivered);
    }
    return { deliveries, errors, tokens, other, nextToken: (await adapter.snapshot()).nextToken };
  } finally {
    await adapter.close();
  }
}

/** What a correct store's contention must not show: store errors, other replies, a round's job delivered other than once, a token twice, tokens issued that no claim was told. Pure. */
export function contentionProblems(c: ClaimContention): string[] {
  const problems = [
    ...c.errors.map((e) => `a claim failed: ${e}`),
    ...c.other.map((r) => `an unexpected reply: ${JSON.stringify(r)}`),
  ];
  c.deliveries.forEach((d, round) => {
    if (d !== 1) problems.push(`round ${round + 1}: the job was delivered ${d} times`);
  });
  if (new Set(c.tokens).size !== c.tokens.length) problems.push(`a token was delivered twice: ${c.tokens.join(', ')}`);
  if (c.nextToken - 1 !== c.tokens.length)
    problems.push(`${c.nextToken - 1} tokens were issued, ${c.tokens.length} deliveries were told`);
  return problems;
}

/**
 * Two lanes claim in the same round, with two ready jobs of two accounts: each must get one of
 * them, the two distinct, with distinct tokens, and the snapshot must show each job running for
 * the worker that was told it got it. Returns what was wrong (empty when nothing); closes the adapter.
 */
export async function twoLaneClaimProblems(factory: ConcurrentFactory): Promise<string[]> {
  const adapter = await factory(CONTENTION_CONFIG, { workers: 2 });
  const problems: string[] = [];
  try {
    if (!adapter.concurrent) problems.push(`${adapter.name} says it is not concurrent`);
    for (const id of ['a', 'b'])
      await adapter.execute(0, {
        type: 'submit',
        id,
        account: `acct-${id}`,
        key: 'k',
        amount: 1,
        deadline: 500,
        now: 0,
      });
    const replies = await Promise.all(
      [0, 1].map((lane) => adapter.execute(lane, { type: 'claim', worker: `w${lane}`, now: 1 })),
    );
    const jobs = replies.map((r) => (r.ok && r.type === 'claim' ? r.job : null));
    if (jobs.some((j) => j === null))
      return [...problems, `both claims should deliver a job: ${JSON.stringify(replies)}`];
    const [j0, j1] = jobs as [NonNullable<(typeof jobs)[number]>, NonNullable<(typeof jobs)[number]>];
    if (j0.id === j1.id) problems.push(`both lanes got job ${j0.id}`);
    if (j0.token === j1.token) problems.push(`both lanes got token ${j0.token}`);
    const snap = await adapter.snapshot();
    [j0, j1].forEach((job, lane) => {
      const held = Object.hasOwn(snap.jobs, job.id) ? snap.jobs[job.id] : undefined;
      if (held?.status !== 'running' || held.owner !== `w${lane}` || held.token !== job.token) {
        problems.push(
          `lane ${lane} was told it holds ${job.id} with token ${job.token}; the store has ${JSON.stringify(held)}`,
        );
      }
    });
    return problems;
  } finally {
    await adapter.close();
  }
}
