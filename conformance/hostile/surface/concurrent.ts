/**
 * Hostile cases of the concurrent phase: jobcheck/2 peers that are slow, lie after a delay, or
 * never answer the final snapshot. The peer (slowConcurrentPeer.mjs) is the correct Python example
 * behind a proxy, misbehaving only in its jobcheck/2 sessions, so that the sequential phases
 * pass quickly and the concurrent phase alone decides. One time budget per request: `--timeout`.
 */
import type { HostileCase } from '../case.ts';

const PEER = 'node conformance/hostile/peers/slowConcurrentPeer.mjs';
/** The correct store behind the peer: the Python example, which starts in a fraction of a second. */
const STORE = '{python} -S examples/python/jobstore.py';

/**
 * The check line of a concurrent case: few sequential runs, a short concurrent campaign, a fixed
 * seed, and a time limit (default 25 s).
 */
const check = (mode: string, ...flags: string[]): readonly string[] => [
  'check',
  '--impl',
  `${PEER} ${mode} ${STORE}`,
  '--workers',
  '2',
  '--concurrent-runs',
  '2',
  '--runs',
  '1',
  '--seed',
  '1',
  '--no-explore',
  '--report',
  '{tmp}',
  ...(flags.includes('--time-limit') ? [] : ['--time-limit', '25']),
  ...flags,
];

export const CONCURRENT_CASES: readonly HostileCase[] = [
  {
    name: 'concurrent-slow-liar',
    what: 'jobcheck/2: answers a claim that hands out a job after 2.5 s, its token plus 1000 (within --timeout 5000)',
    flags: [],
    // The first failing run comes within seconds; the rest of the limit goes to shrinking, each
    // scenario tried waiting out its late reply, so a shorter limit tests the same.
    argv: check('slow-liar 2500', '--timeout', '5000', '--time-limit', '15'),
    exit: 1,
    outcome: 'diverge: the late reply is checked',
    pattern: /reply\.job\.token: model \d+, impl 100\d/,
  },
  {
    name: 'concurrent-silent-snapshot',
    what: 'jobcheck/2: never answers the final snapshot',
    flags: [],
    // As above: each scenario shrinking tries waits out the 2 s timeout of its final snapshot.
    argv: check('silent-snapshot 0', '--timeout', '2000', '--time-limit', '15'),
    exit: 1,
    outcome: 'diverge: the final snapshot did not come',
    pattern: /final snapshot did not come: timeout: no reply to snapshot within 2000 ms/,
  },
  {
    name: 'concurrent-slow-hello',
    what: 'jobcheck/2: answers each hello after 3 s (within the documented 10 s)',
    flags: [],
    argv: check('slow-hello 3000'),
    exit: 0,
    outcome: 'agree',
    pattern: /AGREE/,
  },
];
