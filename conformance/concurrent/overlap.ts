/**
 * How concurrent a history was: which requests were in flight together, and of what kind. A
 * request is in flight from the instant it was sent to the instant its reply was read, or for
 * ever when no reply came. Two requests overlap when each was sent before the other's reply was
 * read. A campaign whose requests never overlapped checked sequential histories only: it could not
 * have found a race, so its pass is no concurrency pass (result.ts, `not_exercised`).
 *
 * The kinds (OVERLAP_KINDS) are the moments a race can bite, read from the commands as sent and
 * the claim replies (a delivery's token, job and lease end); a pair may be of several kinds or of
 * none. They are counts of what was tried, so that a pass says what it exercised: a kind at 0 was
 * never tried, whatever the verdict.
 */
import type { History } from './history.ts';

/** The kinds of overlapping pairs counted, in report order. */
export const OVERLAP_KINDS = [
  'claimClaim',
  'settleAtLeaseEnd',
  'claimAtExpiry',
  'submitSubmit',
  'commitCommit',
] as const;
export type OverlapKind = (typeof OVERLAP_KINDS)[number];

/** Each kind in words, for the text output, the report page and the JSON Schema. */
export const OVERLAP_KIND_TEXT: Record<OverlapKind, string> = {
  claimClaim: 'two claims',
  settleAtLeaseEnd: "a commit, ack or fail at its lease's end beside a claim at or after that end",
  claimAtExpiry: 'a claim beside another request, both at or after the end of a lease no request had yet passed',
  submitSubmit: 'two submits (a capacity check beside a submit)',
  commitCommit: 'two commits of one job',
};

/** Each kind in a few words, for a line of the summary. */
export const OVERLAP_KIND_SHORT: Record<OverlapKind, string> = {
  claimClaim: 'claim+claim',
  settleAtLeaseEnd: 'settle at lease end+claim',
  claimAtExpiry: 'claim at an expiry',
  submitSubmit: 'submit+submit',
  commitCommit: 'commit+commit of one job',
};

/** Requests in flight together, in one history or added up over a campaign's. */
export interface Overlap {
  /** Requests sent (a run's final snapshot left out: it is sent once everything has settled). */
  readonly requests: number;
  /** Requests in flight together with at least one other. */
  readonly overlapping: number;
  /** Pairs of requests in flight together. */
  readonly pairs: number;
  /** Pairs of each kind (OVERLAP_KINDS); a pair may count in several kinds, or in none. */
  readonly kinds: Readonly<Record<OverlapKind, number>>;
}

const noKinds = (): Record<OverlapKind, number> =>
  Object.fromEntries(OVERLAP_KINDS.map((k) => [k, 0])) as Record<OverlapKind, number>;

/** No request, no overlap. */
export const NO_OVERLAP: Overlap = { requests: 0, overlapping: 0, pairs: 0, kinds: noKinds() };

/** The counts added up. Pure. */
export const addOverlap = (a: Overlap, b: Overlap): Overlap => ({
  requests: a.requests + b.requests,
  overlapping: a.overlapping + b.overlapping,
  pairs: a.pairs + b.pairs,
  kinds: Object.fromEntries(OVERLAP_KINDS.map((k) => [k, a.kinds[k] + b.kinds[k]])) as Record<OverlapKind, number>,
});

/** One request as the kinds read it. */
interface Sent {
  readonly invoked: number;
  readonly returned: number;
  readonly type: string | undefined;
  readonly now: number;
  readonly token: number | undefined;
  overlapping: boolean;
}

/** A delivery seen in a claim reply: its job, its lease end, and when its reply was read. */
interface Delivery {
  readonly job: string;
  readonly leaseUntil: number;
  readonly seen: number;
}

const field = (x: unknown, name: string): unknown =>
  typeof x === 'object' && x !== null ? (x as Record<string, unknown>)[name] : undefined;
const num = (x: unknown): number | undefined => (typeof x === 'number' ? x : undefined);

/**
 * The overlap of a history's requests, read from their stamps (`invoked`, `returned`), their
 * inputs (commands) and the claims' outputs; the operation `leaveOut` (a run's final snapshot) is
 * not counted. Pure; O(n log n + pairs x deliveries).
 */
export function overlapOf<I, O>(history: History<I, O>, leaveOut?: number): Overlap {
  const deliveries = new Map<number, Delivery>();
  const ops: Sent[] = [];
  for (const o of history.operations) {
    if (o.id === leaveOut) continue;
    const returned = o.returned ?? Number.POSITIVE_INFINITY;
    const type = field(o.input, 'type');
    ops.push({
      invoked: o.invoked,
      returned,
      type: typeof type === 'string' ? type : undefined,
      now: num(field(o.input, 'now')) ?? Number.NaN,
      token: num(field(o.input, 'token')),
      overlapping: false,
    });
    const job = field(o.output, 'job');
    const token = num(field(job, 'token'));
    const leaseUntil = num(field(job, 'leaseUntil'));
    const id = field(job, 'id');
    if (type === 'claim' && token !== undefined && leaseUntil !== undefined && typeof id === 'string')
      deliveries.set(token, { job: id, leaseUntil, seen: returned });
  }
  ops.sort((a, b) => a.invoked - b.invoked);
  // For each lease end, when the first request sent at or after it was answered (the expiry was then past).
  const passed = new Map<number, number>();
  for (const d of deliveries.values()) {
    if (passed.has(d.leaseUntil)) continue;
    let first = Number.POSITIVE_INFINITY;
    for (const o of ops) if (o.now >= d.leaseUntil && o.returned < first) first = o.returned;
    passed.set(d.leaseUntil, first);
  }
  const kinds = noKinds();
  let pairs = 0;
  for (let i = 0; i < ops.length; i++) {
    const a = ops[i]!;
    // Sorted by sending: every later request sent before `a`'s reply was read overlaps it.
    for (let j = i + 1; j < ops.length && ops[j]!.invoked < a.returned; j++) {
      const b = ops[j]!;
      pairs += 1;
      a.overlapping = true;
      b.overlapping = true;
      for (const k of kindsOf(a, b, deliveries, passed)) kinds[k] += 1;
    }
  }
  return { requests: ops.length, overlapping: ops.filter((o) => o.overlapping).length, pairs, kinds };
}

const SETTLES = new Set(['commit', 'ack', 'fail']);

/** The kinds of one overlapping pair (`a` sent first). Pure. */
function kindsOf(
  a: Sent,
  b: Sent,
  deliveries: ReadonlyMap<number, Delivery>,
  passed: ReadonlyMap<number, number>,
): OverlapKind[] {
  const out: OverlapKind[] = [];
  const both = (t: string): boolean => a.type === t && b.type === t;
  if (both('claim')) out.push('claimClaim');
  if (both('submit')) out.push('submitSubmit');
  if (both('commit') && a.token !== undefined && b.token !== undefined) {
    const da = deliveries.get(a.token);
    if (da !== undefined && da.job === deliveries.get(b.token)?.job) out.push('commitCommit');
  }
  for (const [settle, claim] of [
    [a, b],
    [b, a],
  ] as const) {
    if (!SETTLES.has(settle.type ?? '') || claim.type !== 'claim' || settle.token === undefined) continue;
    const d = deliveries.get(settle.token);
    if (d !== undefined && settle.now >= d.leaseUntil - 1 && claim.now >= d.leaseUntil) {
      out.push('settleAtLeaseEnd');
      break;
    }
  }
  if (a.type === 'claim' || b.type === 'claim') {
    const sent = b.invoked; // the later of the two
    for (const d of deliveries.values()) {
      const due = d.seen < a.invoked && (passed.get(d.leaseUntil) ?? Number.POSITIVE_INFINITY) > sent;
      if (due && a.now >= d.leaseUntil && b.now >= d.leaseUntil) {
        out.push('claimAtExpiry');
        break;
      }
    }
  }
  return out;
}
