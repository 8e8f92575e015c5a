/**
 * Hostile cases of signals sent through npx and a parent that goes away. Each interrupts a check
 * mid-run (a second after its first implementation process is up, with a time limit far away) and
 * holds that nothing of the run is left: not the harness, not one implementation process. npm
 * passes a signal to its `sh -c` only; the shell dies of SIGTERM and holds SIGINT until its command
 * ends, so the harness must notice either by itself (cli/followParent.ts). npm dies of SIGHUP and
 * SIGKILL without a word to its shell, which lives on: the harness must notice npm's end above it.
 * A signal sent again while the harness ends (a second Ctrl-C) must change nothing: the run is
 * still recorded as interrupted.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { HostileCase } from '../case.ts';

/** A check that would run for a minute (the most runs there are, held by the time limit): only the interrupt ends it early. */
const LONG_CHECK = [
  'check',
  '--impl',
  '{peer} correct',
  '--runs',
  '100000',
  '--seed',
  '1',
  '--time-limit',
  '60',
  '--no-explore',
];
const LONG = [...LONG_CHECK, '--report', '{tmp}/report'];

/** Whether the check has made its run's folder (under `{tmp}/report/runs`). */
function runHasFolder(tmp: string): boolean {
  const runs = join(tmp, 'report', 'runs');
  return existsSync(runs) && readdirSync(runs).length > 0;
}

/** What is wrong with the run folders of an interrupted check: one, named `-interrupted`, its run.json saying so. */
function interruptedRunProblems(tmp: string): string[] {
  const runs = join(tmp, 'report', 'runs');
  const names = existsSync(runs) ? readdirSync(runs) : [];
  if (names.length !== 1 || !names[0]?.endsWith('-interrupted'))
    return [`the run folders are ${JSON.stringify(names)}, not one run named -interrupted`];
  try {
    const record = JSON.parse(readFileSync(join(runs, names[0], 'run.json'), 'utf8')) as { verdict?: unknown };
    return record.verdict === 'interrupted' ? [] : [`run.json says ${JSON.stringify(record.verdict)}`];
  } catch (error) {
    return [`run.json does not read: ${(error as Error).message}`];
  }
}

const GONE =
  /jobcheck: stopped: the process that started it \(pid \d+\) is gone; every implementation process was ended/;
const HELD_INTERRUPT =
  /jobcheck: stopped by SIGINT, caught by the shell that started it \(pid \d+\); every implementation process was/;

export const SIGNAL_CASES: readonly HostileCase[] = [
  {
    name: 'npx-sigterm',
    what: 'SIGTERM to `npx jobcheck check` mid-run (npm passes it to its shell, which dies of it)',
    argv: LONG,
    flags: [],
    launch: 'npx',
    interrupt: { signal: 'SIGTERM', afterMs: 1000 },
    exit: null,
    signal: 'SIGTERM',
    outcome: 'stopped: parent gone, every process ended',
    pattern: GONE,
  },
  {
    name: 'npx-sigint',
    what: 'SIGINT to `npx jobcheck check` mid-run (npm passes it to its shell, which holds it)',
    argv: LONG,
    flags: [],
    launch: 'npx',
    interrupt: { signal: 'SIGINT', afterMs: 1000 },
    exit: null,
    signal: 'SIGINT',
    outcome: 'stopped by SIGINT, every process ended',
    pattern: HELD_INTERRUPT,
  },
  {
    name: 'npx-sighup',
    what: 'SIGHUP to `npx jobcheck check` mid-run (npm dies of it, its shell lives on); nothing left 5 s after npm',
    argv: LONG,
    flags: [],
    launch: 'npx',
    interrupt: { signal: 'SIGHUP', afterMs: 1000, settleMs: 5000 },
    exit: null,
    signal: 'SIGHUP',
    outcome: 'stopped: parent gone, every process ended',
    pattern: GONE,
  },
  {
    name: 'npx-sigkill',
    what: 'SIGKILL to `npx jobcheck check` mid-run (its shell lives on); nothing left 5 s after npm',
    argv: LONG,
    flags: [],
    launch: 'npx',
    interrupt: { signal: 'SIGKILL', afterMs: 1000, settleMs: 5000 },
    exit: null,
    signal: 'SIGKILL',
    outcome: 'stopped: parent gone, every process ended',
    pattern: GONE,
  },
  {
    name: 'wrapper-sigkill',
    what: 'SIGKILL to a `sh -c` wrapper that started the check, mid-run',
    argv: LONG,
    flags: [],
    launch: 'sh',
    interrupt: { signal: 'SIGKILL', afterMs: 1000 },
    exit: null,
    signal: 'SIGKILL',
    outcome: 'stopped: parent gone, every process ended',
    pattern: GONE,
  },
  {
    name: 'wrapper-sigint',
    what: 'SIGINT to a `sh -c` wrapper that started the check, mid-run (the shell holds it)',
    argv: LONG,
    flags: [],
    launch: 'sh',
    interrupt: { signal: 'SIGINT', afterMs: 1000 },
    exit: null,
    signal: 'SIGINT',
    outcome: 'stopped by SIGINT, every process ended',
    pattern: HELD_INTERRUPT,
  },
  {
    name: 'harness-sigterm',
    what: 'SIGTERM to the harness itself, mid-run',
    argv: LONG,
    flags: [],
    interrupt: { signal: 'SIGTERM', afterMs: 1000 },
    exit: 143,
    outcome: 'stopped by SIGTERM (exit 143), every process ended',
    pattern: /jobcheck: stopped by SIGTERM; every implementation process was ended/,
  },
  {
    name: 'harness-sigint-twice',
    what: 'SIGINT to the harness itself mid-run, then again and again, a millisecond apart (Ctrl-C pressed more than once)',
    argv: LONG,
    flags: [],
    // Once the run has its folder (the implementation starts while the engine loads, before it).
    interrupt: { signal: 'SIGINT', afterMs: 500, again: 50, readyWhen: runHasFolder },
    exit: 130,
    outcome: 'stopped by SIGINT (exit 130) once, the run recorded as interrupted',
    pattern: /jobcheck: stopped by SIGINT; every implementation process was ended/,
    readBack: (tmp) => interruptedRunProblems(tmp),
  },
  {
    name: 'harness-sighup',
    what: 'SIGHUP to the harness itself, mid-run (its terminal closed)',
    argv: LONG,
    flags: [],
    interrupt: { signal: 'SIGHUP', afterMs: 1000 },
    exit: 129,
    outcome: 'stopped by SIGHUP (exit 129), every process ended',
    pattern: /jobcheck: stopped by SIGHUP; every implementation process was ended/,
  },
];
