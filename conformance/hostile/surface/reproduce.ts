/**
 * Hostile cases of edited reproduce lines, shards that match nothing, huge indexes and flags, and
 * an artifact whose step is one of the protocol's own messages. Each must be refused before any
 * work (exit 2, a typed one-line error naming the value) or told as not a pass (exit 3); none may
 * end in AGREE, spin past the time limit or run out of memory.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PATH_CONFIG } from '../../paths/lifecyclePaths.ts';
import { initialState, step, toSnapshot } from '../../../model/index.ts';
import type { HostileCase } from '../case.ts';

/**
 * The reproduce line's path of `check --broken backoff-not-capped --seed 1` (found at run 1 and
 * shrunk). It depends on the scenario generator: if that changes, the cases that extend it are
 * refused as naming nothing, and their test says so.
 */
const PRINTED_PATH = '1:1:0:4:5:5:4:4:6:3:4:0:5:7:7:9:9:9:9:14:14:8:16:16:17:7:20:19:20:20:20:20:20:20:22:24:24:15:15';
const HUGE = '99999999999999999999999';
/** The flags of a quick check of the built-in store (`{tmp}` is the run's folder). */
const QUICK = ['--seed', '1', '--no-explore', '--time-limit', '8', '--report', '{tmp}/report'];

/** Writes `{tmp}/<type>.json`: an artifact the model stands behind, a tick then a command typed as a protocol message. */
function protocolStepArtifact(type: 'hello' | 'snapshot'): (tmp: string) => void {
  return (tmp) => {
    const command = type === 'hello' ? { type, protocol: 'jobcheck/1', config: PATH_CONFIG } : { type };
    const tick = { type: 'tick', now: 1 };
    const first = step(initialState(PATH_CONFIG), tick);
    const second = step(first.state, command);
    const steps = [
      { do: tick, expect: first.reply, snapshot: toSnapshot(first.state) },
      { do: command, expect: second.reply, snapshot: toSnapshot(second.state) },
    ];
    const artifact = {
      format: 'jobcheck.artifact/1',
      foundAgainst: 'hand-made',
      createdAt: new Date(0).toISOString(),
      config: PATH_CONFIG,
      steps,
    };
    writeFileSync(join(tmp, `${type}.json`), JSON.stringify(artifact));
  };
}

export const REPRODUCE_CASES: readonly HostileCase[] = [
  {
    name: 'path-step-past-end',
    what: 'the printed --path with a step appended that its shrink stream does not have',
    flags: [],
    argv: ['check', '--broken', 'backoff-not-capped', ...QUICK, '--path', `${PRINTED_PATH}:99`],
    exit: 2,
    outcome: 'refused: invalid_path',
    pattern: /--path "[\d:.]+" names no scenario of seed 1.*\(invalid_path\)/,
  },
  {
    name: 'path-step-appended',
    what: 'the printed --path with a step appended that names a smaller scenario, which agrees',
    flags: [],
    // The fixture stories and the path suite run in full first: a loaded machine needs more than 8 s.
    argv: ['check', '--broken', 'backoff-not-capped', ...QUICK, '--time-limit', '30', '--path', `${PRINTED_PATH}:0`],
    exit: 3,
    outcome: 'incomplete: the replayed runs agree (not a pass)',
    pattern: /INCOMPLETE: the runs named by --path [\d:]+ all agree/,
  },
  {
    name: 'concurrent-path-names-nothing',
    what: '--concurrent-path 6:999999: a shrink step beyond the bound of a path walk',
    flags: [],
    argv: ['check', '--builtin', ...QUICK, '--runs', '1', '--workers', '4', '--concurrent-path', '6:999999'],
    exit: 2,
    outcome: 'refused: invalid_path',
    pattern: /--concurrent-path "6:999999":? .*\(invalid_path\)/,
  },
  {
    name: 'concurrent-path-step-past-end',
    what: '--concurrent-path 6:99999: a shrink step within bounds past the end of its stream',
    flags: [],
    argv: ['check', '--builtin', ...QUICK, '--runs', '1', '--workers', '4', '--concurrent-path', '6:99999'],
    exit: 2,
    outcome: 'refused: invalid_path',
    pattern: /--concurrent-path "6:99999" names no scenario of seed 1 with 4 workers.*\(invalid_path\)/,
  },
  {
    name: 'shard-holds-nothing',
    what: '--shard 2/2 --runs 1 against a broken variant: the shard holds no run',
    flags: [],
    argv: ['check', '--broken', 'backoff-not-capped', ...QUICK, '--shard', '2/2', '--runs', '1'],
    exit: 2,
    outcome: 'refused: the shard holds no run',
    pattern: /--shard 2\/2 holds no run of a campaign of 1/,
  },
  {
    name: 'huge-path-index',
    what: `--path ${HUGE}`,
    flags: [],
    argv: ['check', '--builtin', ...QUICK, '--path', HUGE],
    exit: 2,
    outcome: 'refused: invalid_path',
    pattern: /--path "9{23}": names run 9{23}, beyond the 100000 runs of the largest campaign.*\(invalid_path\)/,
  },
  {
    name: 'huge-concurrent-path-index',
    what: `--concurrent-path ${HUGE}`,
    flags: [],
    argv: ['check', '--builtin', ...QUICK, '--workers', '2', '--concurrent-path', HUGE],
    exit: 2,
    outcome: 'refused: invalid_path',
    pattern: /--concurrent-path "9{23}": names run 9{23}, beyond the 100000 runs/,
  },
  {
    name: 'huge-max-commands',
    what: '--max-commands 9007199254740991',
    flags: [],
    argv: ['check', '--builtin', ...QUICK, '--max-commands', '9007199254740991'],
    exit: 2,
    outcome: 'refused: flag out of range',
    pattern: /--max-commands must be at most 1000 \(got "9007199254740991"\)/,
  },
  {
    name: 'huge-runs',
    what: '--runs 9007199254740991',
    flags: [],
    argv: ['check', '--builtin', ...QUICK, '--runs', '9007199254740991'],
    exit: 2,
    outcome: 'refused: flag out of range',
    pattern: /--runs must be at most 100000 \(got "9007199254740991"\)/,
  },
  {
    name: 'artifact-hello-step',
    what: 'replay of an artifact whose command is a `hello`, against a correct process',
    flags: [],
    setup: protocolStepArtifact('hello'),
    argv: ['replay', '{tmp}/hello.json', '--impl', '{peer} correct'],
    exit: 2,
    outcome: 'refused: invalid_artifact',
    pattern: /steps\.1\.do: a command may not use the protocol's own type "hello"/,
  },
  {
    name: 'artifact-snapshot-step',
    what: 'replay of an artifact whose command is a `snapshot`, against the built-in store',
    flags: [],
    setup: protocolStepArtifact('snapshot'),
    argv: ['replay', '{tmp}/snapshot.json', '--builtin'],
    exit: 2,
    outcome: 'refused: invalid_artifact',
    pattern: /steps\.1\.do: a command may not use the protocol's own type "snapshot"/,
  },
];
