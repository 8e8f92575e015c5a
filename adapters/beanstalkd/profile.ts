/**
 * beanstalkd as a profile target: the adapter's factory and its competing workers' factory (one
 * connection per worker, concurrent.ts), the server's version (asked of the server with `stats`
 * when the target is made for a run, since beanstalkd is not an npm package), and what beanstalkd
 * declares of the contract before anything is run. Every rule not declared here is checked
 * against the model as it stands, and beanstalkd's departures show as departures (README.md, rule
 * by rule).
 *
 * Its clock is logical: the server runs under libfaketime and the adapter sets its time at each
 * tick (clock.ts), so a departure repeats exactly and is not replayed as a wall-clock one is.
 */
import type { ProfileTarget } from '../../conformance/profile/target.ts';
import { beanstalkdFactory } from './adapter.ts';
import type { BeanstalkdFactoryOptions } from './adapter.ts';
import { beanstalkdConcurrentFactory } from './concurrent.ts';

/** The beanstalkd version this adapter was written and checked against (Debian's package). */
export const BEANSTALKD_VERSION = '1.12';

const EXACT =
  "none: beanstalkd's clock is stopped and set by the adapter; tick c+k is k s and k ms after tick c (and the clock creeps 1 µs a request within a tick), so past any deadline set k s earlier, as real time always is";

/** The profile target for beanstalkd at `options.addr` (default JOBCHECK_BEANSTALKD_ADDR). Pure: connects only when its factory is called. */
export function beanstalkdTarget(options: BeanstalkdFactoryOptions = {}): ProfileTarget {
  return {
    queue: 'beanstalkd',
    version: BEANSTALKD_VERSION,
    factory: beanstalkdFactory(options),
    concurrentFactory: beanstalkdConcurrentFactory(options),
    clock: { kind: 'logical' },
    tolerances: {
      'lease-equality-expires': EXACT,
      'expiry-with-attempts-left-requeues': EXACT,
      'last-attempt-expiry-is-dead': EXACT,
      'backoff-ends-at-not-before': EXACT,
      'lease-from-claim': EXACT,
    },
    declarations: {
      'malformed-command-refused': {
        kind: 'unsupported',
        why: "beanstalkd never sees the contract's JSON commands: the adapter decodes them (it must, to put, reserve and delete), so refusing a malformed one would check the adapter, not beanstalkd.",
      },
      'clock-never-regresses': {
        kind: 'unsupported',
        why: 'beanstalkd takes no time from a worker: its clock is the libfaketime file the adapter writes, and no command of its protocol carries a time, so a regressing now would check the adapter.',
      },
      'capacity-counts-running': {
        kind: 'unsupported',
        why: 'beanstalkd has no bound on the number of jobs in a tube (only on the size of one, max-job-size); the adapter never refuses a put for capacity.',
      },
      'deadline-kills': {
        kind: 'unsupported',
        why: 'beanstalkd jobs have no deadline: a job waits, and is reserved again after a TTR, however late it is.',
      },
      'deadline-precedes-lease': {
        kind: 'unsupported',
        why: 'beanstalkd jobs have no deadline, so there is nothing to order before the TTR.',
      },
      'no-retry-after-deadline': {
        kind: 'unsupported',
        why: 'beanstalkd jobs have no deadline: a released job is reserved again whenever its delay ends.',
      },
      'account-head-only': {
        kind: 'variant',
        variant: 'no-account-order',
        why: "A tube has no per-key order: reserve hands out the ready job of the most urgent priority, then the lowest job id, whatever its account, so a reserved or delayed job does not hold back its account's later jobs (a tube per account would still let two jobs of one account run at once).",
      },
      'last-error-kept': {
        kind: 'unsupported',
        why: 'beanstalkd keeps no failure text: release and bury take a job id, a priority and a delay, nothing else, so no operation could hand the server the text to keep.',
      },
      'counters-stay-safe': {
        kind: 'unsupported',
        why: "Tokens and admission numbers are the adapter's own counters (beanstalkd's job ids are neither); TIME_MAX is reachable only by restoring a snapshot, and a tube cannot be built from one.",
      },
    },
  };
}

/** beanstalkd at JOBCHECK_BEANSTALKD_ADDR, its clock at JOBCHECK_BEANSTALKD_CLOCK. */
export const profileTarget: ProfileTarget = beanstalkdTarget();

/** The adapter factory `jobcheck check --module adapters/beanstalkd/profile.ts` runs (the same server). */
export const createAdapter = beanstalkdFactory();

/** Competing workers on beanstalkd, for `jobcheck check --module adapters/beanstalkd/profile.ts --workers 4`: each worker its own connection. */
export const createConcurrentAdapter = beanstalkdConcurrentFactory();
