/**
 * The contract's rules as named, separately checkable requirements. Each rule has a stable id,
 * the section of docs/contract.md that states it, and its sentence there (the page marks each
 * rule with its id, and a test holds the two together). Reports, stories and profiles name rules
 * by these ids.
 */

/** The stable ids of the contract's rules. */
export const RULE_IDS = [
  // Step 1: validation
  'malformed-command-refused',
  'clock-never-regresses',
  // Step 2: advancing the clock
  'deadline-kills',
  'deadline-precedes-lease',
  'lease-equality-expires',
  'expiry-with-attempts-left-requeues',
  'last-attempt-expiry-is-dead',
  'backoff-ends-at-not-before',
  // submit
  'duplicate-submit-accepted',
  'changed-payload-conflicts',
  'capacity-counts-running',
  'admission-in-seq-order',
  // claim
  'account-head-only',
  'oldest-ready-head-first',
  'new-token-per-claim',
  'lease-from-claim',
  // the delivery check
  'stale-token-refused',
  'owner-checked',
  // commit
  'effect-idempotent',
  'changed-amount-conflicts',
  'commit-keeps-delivery',
  'balance-stays-safe',
  // ack
  'ack-settles-done',
  // fail
  'backoff-capped',
  'no-retry-after-deadline',
  'permanent-failure-dead',
  'attempts-exhausted-dead',
  'last-error-kept',
  // tick, records, counters
  'tick-advances-clock',
  'dead-records-kept',
  'counters-stay-safe',
  // snapshot and restore
  'snapshot-restore-round-trip',
  'snapshot-is-a-copy',
] as const;

/** One of RULE_IDS. */
export type RuleId = (typeof RULE_IDS)[number];

/** One rule of the contract: its id, a short title, the heading of docs/contract.md it sits under, and its sentence there. */
export interface Rule {
  readonly id: RuleId;
  readonly title: string;
  /** The heading (without `#`) the rule sits under on docs/contract.md. */
  readonly section: string;
  /** The rule's sentence as the page states it, with line breaks and indentation collapsed to single spaces. */
  readonly sentence: string;
}

const VALIDATION = '5. Step 1: validation';
const CLOCK = '6. Step 2: advancing the clock';
const SUBMIT = 'submit `{id, account, key, amount, deadline, now}`';
const CLAIM = 'claim `{worker, now}`';
const DELIVERY = 'The delivery check (commit, ack, fail)';
const COMMIT = 'commit `{worker, token, now}`';
const ACK = 'ack `{worker, token, now}`';
const FAIL = 'fail `{worker, token, kind, error, now}`';
const TICK = 'tick `{now}`';
const STATE = '3. State';
const SNAPSHOT = '9. Snapshot';
const RESTORE = '10. Restore and restart';
const INTERPRETATIONS = '12. Interpretations';

/**
 * Every rule of the contract, in RULE_IDS order. On docs/contract.md each sentence is preceded by
 * its marker `<a id="rule-<id>"></a>**[<id>]**` (conformance/rules.test.ts holds page and list together).
 */
export const RULES: readonly Rule[] = [
  {
    id: 'malformed-command-refused',
    title: 'a malformed command is refused and changes nothing',
    section: VALIDATION,
    sentence:
      'A command is a JSON object with a `type` and exactly the fields of its type; a missing field, an unknown field or a value of the wrong kind is `invalid_argument`.',
  },
  {
    id: 'clock-never-regresses',
    title: 'a `now` before the clock is refused',
    section: VALIDATION,
    sentence: '`now >= clock`; otherwise `clock_regressed`.',
  },
  {
    id: 'deadline-kills',
    title: 'an unresolved job dies at its deadline',
    section: CLOCK,
    sentence: '`now >= deadline`: the job becomes `dead`, reason `deadline`.',
  },
  {
    id: 'deadline-precedes-lease',
    title: 'the deadline beats a lease expiring at the same tick',
    section: CLOCK,
    sentence: 'The deadline takes precedence over everything else, including a lease that expires at the same tick.',
  },
  {
    id: 'lease-equality-expires',
    title: 'a lease has expired at `now == leaseUntil`',
    section: CLOCK,
    sentence:
      'Equality counts as "has come": a lease taken at 0 for 5 ticks (`leaseUntil` 5) is still current at 4 and has expired at 5.',
  },
  {
    id: 'expiry-with-attempts-left-requeues',
    title: 'an expired delivery with attempts left makes the job ready',
    section: CLOCK,
    sentence: 'With attempts left (`attempts < maxAttempts`) it becomes `ready`.',
  },
  {
    id: 'last-attempt-expiry-is-dead',
    title: 'an expired delivery on the last attempt kills the job',
    section: CLOCK,
    sentence: 'If `attempts == maxAttempts` the job becomes `dead`, reason `lease_expired`.',
  },
  {
    id: 'backoff-ends-at-not-before',
    title: 'a waiting job is ready again at `notBefore`',
    section: CLOCK,
    sentence: '`waiting` and `now >= notBefore`: the job becomes `ready` (`notBefore` removed).',
  },
  {
    id: 'duplicate-submit-accepted',
    title: 'an exact repeat of a submit is a duplicate, whatever the status',
    section: SUBMIT,
    sentence:
      'A job `id` exists with exactly this payload (`account`, `key`, `amount`, `deadline` all equal): reply `{ok: true, type: "submit", id, seq: <its seq>, duplicate: true}`.',
  },
  {
    id: 'changed-payload-conflicts',
    title: 'a known id with another payload is a conflict',
    section: SUBMIT,
    sentence: 'A job `id` exists with another payload: `conflict`.',
  },
  {
    id: 'capacity-counts-running',
    title: 'capacity counts ready, waiting and running jobs',
    section: SUBMIT,
    sentence: 'The number of unresolved jobs is `>= capacity`: `capacity_exceeded`.',
  },
  {
    id: 'admission-in-seq-order',
    title: 'a new job is admitted ready with the next admission number',
    section: SUBMIT,
    sentence:
      'Otherwise admit a new job: `{payload, seq: nextSeq, status: "ready", attempts: 0}`; `nextSeq += 1`; reply `{ok: true, type: "submit", id, seq, duplicate: false}`.',
  },
  {
    id: 'account-head-only',
    title: "only an account's head may run",
    section: CLAIM,
    sentence:
      'A head that is `running` or `waiting` blocks the later jobs of its account; done and dead jobs block nothing, because they are never heads.',
  },
  {
    id: 'oldest-ready-head-first',
    title: 'a claim delivers the ready head admitted first',
    section: CLAIM,
    sentence: 'Among the heads whose status is `ready`, choose the one with the smallest `seq`.',
  },
  {
    id: 'new-token-per-claim',
    title: 'every claim hands out a new, never reused token',
    section: INTERPRETATIONS,
    sentence: '**Tokens** are numbered store-wide from 1 and never reused, also across restarts.',
  },
  {
    id: 'lease-from-claim',
    title: 'a delivery holds a lease of `leaseTicks` from the claim',
    section: CLAIM,
    sentence:
      'Otherwise the chosen job becomes `running`: `attempts += 1`, `token = nextToken`, `nextToken += 1`, `owner = worker`, `leaseUntil = now ⊕ leaseTicks`.',
  },
  {
    id: 'stale-token-refused',
    title: 'a token no running job holds is stale',
    section: DELIVERY,
    sentence:
      'No `running` job has `token` as its current token (the token was never issued, has expired, or its delivery was settled or failed): `stale_token`.',
  },
  {
    id: 'owner-checked',
    title: 'only the worker holding the delivery may settle it',
    section: DELIVERY,
    sentence: "That job's `owner` is not `worker`: `not_owner`.",
  },
  {
    id: 'effect-idempotent',
    title: 'an effect already recorded is reused, not applied again',
    section: COMMIT,
    sentence: '`effects[account][key]` exists with the same `amount`: the effect is **reused**.',
  },
  {
    id: 'changed-amount-conflicts',
    title: 'an effect recorded with another amount is a conflict',
    section: COMMIT,
    sentence: '`effects[account][key]` exists with another amount: `conflict`.',
  },
  {
    id: 'commit-keeps-delivery',
    title: 'a commit never settles a job',
    section: COMMIT,
    sentence: 'In every case the job stays `running` with the same delivery: a commit never settles a job.',
  },
  {
    id: 'balance-stays-safe',
    title: 'a commit that would leave the safe-integer range is refused',
    section: COMMIT,
    sentence: '`balances[account] + amount` (a missing balance counts as 0) is not a safe integer: `out_of_range`.',
  },
  {
    id: 'ack-settles-done',
    title: 'an ack settles the job as done, committed or not',
    section: ACK,
    sentence:
      'After the delivery check the job becomes `done` (`token`, `owner`, `leaseUntil` removed); reply `{ok: true, type: "ack", id}`.',
  },
  {
    id: 'backoff-capped',
    title: 'the retry delay doubles per attempt up to the cap',
    section: FAIL,
    sentence: 'Let `delay = min(backoffBase × 2^(attempts−1), backoffCap)` and `notBefore = now ⊕ delay`.',
  },
  {
    id: 'no-retry-after-deadline',
    title: 'a retry that would not start before the deadline is death',
    section: FAIL,
    sentence: 'Otherwise (`notBefore >= deadline`): `dead`, reason `no_time_for_retry`.',
  },
  {
    id: 'permanent-failure-dead',
    title: 'a permanent failure kills the job',
    section: FAIL,
    sentence: '`kind` is `permanent`: `dead`, reason `permanent`.',
  },
  {
    id: 'attempts-exhausted-dead',
    title: 'a failure on the last attempt kills the job',
    section: FAIL,
    sentence: '`attempts == maxAttempts`: `dead`, reason `attempts_exhausted`.',
  },
  {
    id: 'last-error-kept',
    title: 'the latest failure text stays on the record',
    section: INTERPRETATIONS,
    sentence:
      '**`lastError`** is the text of the latest accepted `fail`; it stays on the record through retries and after death.',
  },
  {
    id: 'tick-advances-clock',
    title: 'a tick only advances the clock',
    section: TICK,
    sentence: 'Only steps 1 and 2; reply `{ok: true, type: "tick", clock: now}`.',
  },
  {
    id: 'dead-records-kept',
    title: 'terminal jobs are kept for ever and never change',
    section: STATE,
    sentence:
      'A job is **unresolved** when its status is `ready`, `waiting` or `running`; `done` and `dead` are **terminal** and never change again.',
  },
  {
    id: 'counters-stay-safe',
    title: 'admission numbers and tokens stop at TIME_MAX',
    section: INTERPRETATIONS,
    sentence:
      '`nextSeq` and `nextToken` are integers like every other, so they stop at `TIME_MAX`: a submit that would admit a new job while `nextSeq == TIME_MAX`, and a claim that would deliver while `nextToken == TIME_MAX`, are refused with `out_of_range`, the code a commit gets for a balance out of range.',
  },
  {
    id: 'snapshot-restore-round-trip',
    title: 'a restored store has the snapshot it was restored from',
    section: RESTORE,
    sentence: 'Its snapshot equals the one it was restored from.',
  },
  {
    id: 'snapshot-is-a-copy',
    title: 'a snapshot handed out shares nothing with the store',
    section: SNAPSHOT,
    sentence: '**A copy**: changing a snapshot after it was returned changes nothing in the store.',
  },
];

/** The rule with this id. Throws for an id that is not a rule (a programming error: ids are typed). Pure. */
export function ruleOf(id: RuleId): Rule {
  const rule = RULES.find((r) => r.id === id);
  if (rule === undefined) throw new Error(`contract: no rule ${JSON.stringify(id)}`);
  return rule;
}
