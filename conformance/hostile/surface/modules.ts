/**
 * Hostile cases of in-process modules (--module) that exit, loop, throw or pollute. A module runs
 * isolated in processes of its own (conformance/isolated/), so each misbehaviour must end as a
 * typed divergence, INCOMPLETE or a setup error, with the harness's verdict intact. The evil
 * modules are fixtures of conformance/isolated/fixtures/ (one written into `{tmp}`).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { HostileCase } from '../case.ts';

const FIXTURES = 'conformance/isolated/fixtures';

/** `check --module <fixture>` with a short campaign, no exploration, and the run's folder as report. */
const moduleCheck = (fixture: string, ...flags: string[]): readonly string[] => [
  'check',
  '--module',
  fixture.startsWith('{tmp}') ? fixture : `${FIXTURES}/${fixture}.mjs`,
  '--seed',
  '1',
  '--runs',
  '1',
  '--no-explore',
  '--report',
  '{tmp}/report',
  ...flags,
];

/** A concurrent factory's misbehaviour, under a short time limit (each store of the campaign is a process). */
const concurrentCase = (name: string, fixture: string, what: string): HostileCase => ({
  name,
  what,
  flags: [],
  argv: moduleCheck(fixture, '--workers', '2', '--timeout', '15000', '--time-limit', '25'),
  exit: 1,
  outcome: 'diverge: the concurrent campaign fails',
  pattern: /verdict: DIVERGE/,
});

export const MODULE_CASES: readonly HostileCase[] = [
  {
    name: 'module-exit-midway',
    what: 'a module that calls process.exit(0) in its fifth command',
    flags: [],
    argv: moduleCheck('exitMidway', '--timeout', '15000', '--time-limit', '15'),
    exit: 1,
    outcome: 'diverge: process_exited',
    pattern: /threw process_exited: the implementation ended/,
  },
  {
    name: 'module-exit-on-load',
    what: 'a module that calls process.exit(0) while it loads',
    flags: [],
    setup: (tmp) => writeFileSync(join(tmp, 'exitOnLoad.mjs'), 'process.exit(0);\nexport default async () => null;\n'),
    argv: moduleCheck('{tmp}/exitOnLoad.mjs', '--timeout', '15000', '--time-limit', '15'),
    exit: 2,
    outcome: 'setup error: cannot load module',
    pattern: /cannot load module .*its process ended while it loaded/,
  },
  {
    name: 'module-busy-loop',
    what: 'a module whose third command spins for ever (synchronously), --timeout 4000',
    flags: [],
    argv: moduleCheck('busyLoop', '--timeout', '4000', '--time-limit', '15'),
    exit: 1,
    outcome: 'diverge: timeout',
    pattern: /threw timeout: execute did not settle within 4/,
  },
  {
    name: 'module-busy-loop-time-limit',
    what: 'a module whose third command spins for ever, stopped by --time-limit 10 (--timeout 600000)',
    flags: [],
    argv: moduleCheck('busyLoop', '--timeout', '600000', '--time-limit', '10'),
    exit: 3,
    outcome: 'incomplete: time limit',
    pattern: /INCOMPLETE: stopped by the time limit/,
  },
  concurrentCase(
    'module-concurrent-throwing-getter',
    'concurrentThrowingGetter',
    'the concurrent adapter replies with an object whose ok getter throws',
  ),
  concurrentCase('module-concurrent-null', 'concurrentNullFactory', 'createConcurrentAdapter resolves to null'),
  concurrentCase('module-concurrent-cyclic', 'concurrentCyclic', 'the concurrent adapter replies with a cycle'),
  concurrentCase(
    'module-concurrent-deep',
    'concurrentDeep',
    'the concurrent adapter replies with a value nested 200,000 deep',
  ),
  concurrentCase(
    'module-concurrent-proxy',
    'concurrentProxy',
    'the concurrent adapter replies with Proxies whose ownKeys trap throws',
  ),
  concurrentCase(
    'module-concurrent-polluted',
    'concurrentPolluted',
    'the concurrent factory pollutes Object.prototype (toJSON, ok)',
  ),
];
