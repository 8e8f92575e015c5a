/**
 * Guard boundaries: for every comparison a guard of the contract makes, whether the exploration
 * offered it with the two sides equal and one either side. Each is observed on a transition,
 * from the state before it and the command, where the model evaluates that guard:
 *
 * - in the clock advance (a command whose `now` is after the clock), for each unresolved job:
 *   `now - deadline`; for a running job not past its deadline `now - leaseUntil`, and at expiry
 *   `attempts - maxAttempts`; for a waiting job not past its deadline `now - notBefore`;
 * - in a transient fail of a live delivery: `attempts - maxAttempts`, and when a retry is
 *   possible the raw delay `backoffBase * 2^(attempts-1)` against `backoffCap` and the retry's
 *   `notBefore - deadline`;
 * - in a submit of a new id: unresolved jobs minus `capacity`; in every command, `now - clock`;
 *   and in a submit, `deadline - now`.
 *
 * Sides that no state can show are left out (`attempts - maxAttempts` is never positive, and
 * nor is unresolved minus capacity at a submit, by the invariants).
 */
import type { Config } from '../../contract/index.ts';
import { addTime, backoffDelay, statusOf } from '../../model/index.ts';
import type { JobPolicy, StoreContext } from '../../model/index.ts';
import type { ExploreScope } from './scope.ts';

/** Every boundary, by stable name. */
export const BOUNDARIES = [
  'now-deadline=-1',
  'now-deadline=0',
  'now-deadline=+1',
  'now-leaseUntil=-1',
  'now-leaseUntil=0',
  'now-leaseUntil=+1',
  'expiry:attempts-maxAttempts=-1',
  'expiry:attempts-maxAttempts=0',
  'now-notBefore=-1',
  'now-notBefore=0',
  'now-notBefore=+1',
  'fail:attempts-maxAttempts=-1',
  'fail:attempts-maxAttempts=0',
  'rawDelay-backoffCap<0',
  'rawDelay-backoffCap=0',
  'rawDelay-backoffCap>0',
  'retry:notBefore-deadline=-1',
  'retry:notBefore-deadline=0',
  'retry:notBefore-deadline=+1',
  'submit:unresolved-capacity=-1',
  'submit:unresolved-capacity=0',
  'now-clock=-1',
  'now-clock=0',
  'now-clock=+1',
  'submit:deadline-now=0',
  'submit:deadline-now=+1',
] as const;
/** One boundary. */
export type Boundary = (typeof BOUNDARIES)[number];

const INDEX = new Map<string, number>(BOUNDARIES.map((b, i) => [b, i]));
const at = (name: Boundary): number => INDEX.get(name) ?? 0;
const DEADLINE = at('now-deadline=0');
const LEASE = at('now-leaseUntil=0');
const EXPIRY = at('expiry:attempts-maxAttempts=0');
const BACKOFF = at('now-notBefore=0');
const FAIL = at('fail:attempts-maxAttempts=0');
const RAW = at('rawDelay-backoffCap=0');
const RETRY = at('retry:notBefore-deadline=0');
const CAPACITY = at('submit:unresolved-capacity=0');
const CLOCK = at('now-clock=0');
const SUBMIT = at('submit:deadline-now=0');

/** Raw (uncapped) delay after attempt n, saturating: backoffBase * 2^(n-1). Pure. */
export function rawDelay(config: Pick<Config, 'backoffBase'>, attempts: number): number {
  let d = config.backoffBase;
  for (let i = 1; i < attempts && d < Number.MAX_SAFE_INTEGER / 2; i++) d *= 2;
  return d;
}

/** Counts the boundaries a command offers in a state into `hits` (indexed like BOUNDARIES). */
export function observeBoundaries(
  context: StoreContext,
  command: Record<string, unknown>,
  config: Config,
  policy: JobPolicy,
  hits: Float64Array,
): void {
  const now = command['now'];
  if (typeof now !== 'number') return;
  const dc = now - context.clock;
  if (dc >= -1 && dc <= 1) hits[CLOCK + dc]! += 1;
  if (dc < 0) return;
  const type = command['type'];
  if (type === 'submit') {
    const deadline = command['deadline'];
    if (typeof deadline === 'number' && (deadline - now === 0 || deadline - now === 1))
      hits[SUBMIT + deadline - now]! += 1;
    if (typeof deadline === 'number' && deadline <= now) return;
  }
  let unresolved = 0;
  for (const job of context.jobs.values()) {
    const s = statusOf(job);
    if (s !== 'ready' && s !== 'waiting' && s !== 'running') continue;
    const c = job.context;
    const deadline = c.payload.deadline;
    if (dc > 0) {
      const d = now - deadline;
      if (d >= -1 && d <= 1) hits[DEADLINE + d]! += 1;
      if (d >= 0) continue;
      if (s === 'running' && c.leaseUntil !== undefined) {
        const l = now - c.leaseUntil;
        if (l >= -1 && l <= 1) hits[LEASE + l]! += 1;
        if (l >= 0) {
          const a = c.attempts - config.maxAttempts;
          if (a === -1 || a === 0) hits[EXPIRY + a]! += 1;
          if (a < 0) unresolved++;
          continue;
        }
      }
      if (s === 'waiting' && c.notBefore !== undefined) {
        const b = now - c.notBefore;
        if (b >= -1 && b <= 1) hits[BACKOFF + b]! += 1;
      }
    }
    unresolved++;
    if (
      type === 'fail' &&
      s === 'running' &&
      command['kind'] === 'transient' &&
      command['token'] === c.token &&
      command['worker'] === c.owner
    ) {
      const a = c.attempts - config.maxAttempts;
      if (a === -1 || a === 0) hits[FAIL + a]! += 1;
      if (a < 0) {
        const raw = rawDelay(config, c.attempts);
        hits[RAW + Math.sign(raw - config.backoffCap)]! += 1;
        const r = addTime(now, backoffDelay(policy, c.attempts)) - deadline;
        if (r >= -1 && r <= 1) hits[RETRY + r]! += 1;
      }
    }
  }
  if (type === 'submit' && typeof command['id'] === 'string' && !context.jobs.has(command['id'])) {
    const u = unresolved - config.capacity;
    if (u === -1 || u === 0) hits[CAPACITY + u]! += 1;
  }
}

/**
 * The boundaries an exploration of `config` within `scope` can reach, by the rules of the
 * contract (a boundary outside this set is one the config or the scope rules out: a single
 * attempt has no retry, a raw delay never equals the cap, a capacity the scope's jobs cannot
 * fill, a lifetime of 1 the scope does not offer). Pure.
 */
export function expectedBoundaries(config: Config, scope: ExploreScope): Boundary[] {
  const out: Boundary[] = [];
  const add = (...b: Boundary[]): void => {
    out.push(...b);
  };
  add('now-deadline=-1', 'now-deadline=0', 'now-deadline=+1', 'now-leaseUntil=0', 'now-leaseUntil=+1');
  // One tick before the lease ends is after the claim only for a lease of two ticks or more.
  if (config.leaseTicks >= 2) add('now-leaseUntil=-1');
  add('expiry:attempts-maxAttempts=0', 'fail:attempts-maxAttempts=0');
  if (config.maxAttempts >= 2) {
    add('expiry:attempts-maxAttempts=-1', 'fail:attempts-maxAttempts=-1');
    add('now-notBefore=0', 'now-notBefore=+1');
    const signs = new Set<number>();
    const delays = new Set<number>();
    for (let n = 1; n < config.maxAttempts; n++) {
      signs.add(Math.sign(rawDelay(config, n) - config.backoffCap));
      delays.add(Math.min(rawDelay(config, n), config.backoffCap));
    }
    if (signs.has(-1)) add('rawDelay-backoffCap<0');
    if (signs.has(0)) add('rawDelay-backoffCap=0');
    if (signs.has(1)) add('rawDelay-backoffCap>0');
    add('retry:notBefore-deadline=-1', 'retry:notBefore-deadline=0');
    // A tick before notBefore is after the fail, and a retry one tick after the deadline comes
    // from a fail before the deadline, only for a delay of two ticks or more.
    if ([...delays].some((d) => d >= 2)) add('now-notBefore=-1', 'retry:notBefore-deadline=+1');
  }
  if (scope.jobs >= config.capacity) add('submit:unresolved-capacity=-1');
  if (scope.jobs > config.capacity) add('submit:unresolved-capacity=0');
  add('now-clock=0', 'now-clock=+1');
  if (scope.probes) add('now-clock=-1', 'submit:deadline-now=0');
  if (scope.lifetimes.includes(1)) add('submit:deadline-now=+1');
  return BOUNDARIES.filter((b) => out.includes(b));
}

/** The names of the boundaries with a hit. Pure. */
export function reachedBoundaries(hits: Float64Array): Boundary[] {
  return BOUNDARIES.filter((_, i) => (hits[i] ?? 0) > 0);
}
