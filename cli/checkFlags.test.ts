/**
 * The start of `jobcheck check --impl`: its first process starts while the engine loads
 * (checkFlags.ts, conformance/protocol/prestart.ts) and the check takes it for its first store;
 * and how many stores an --impl check runs at once by default.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { livingPeers } from '../conformance/protocol/peer.ts';
import { endPrestarted, takePrestarted } from '../conformance/protocol/prestart.ts';
import { startImplementationEarly } from './checkFlags.ts';
import { checkCommand } from './checkCommand.ts';
import { runCliCaptured } from './runCliCaptured.ts';
import { defaultProcessParallel } from './target.ts';

/** The workers keep their modules between files (vitest.config.ts): a count above 0 may be an earlier file's. */
const LEFT = 'implementation processes left running, by this file or an earlier one in its worker';
const FAKE = fileURLToPath(new URL('../conformance/hostile/peers/fakePeer.mjs', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'jobcheck-early-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A command that notes each start of itself in `log`, then runs the fake implementation. */
const logged = (log: string): string => `echo started >> '${log}'; exec '${process.execPath}' '${FAKE}' counter`;
const starts = (log: string): number => readFileSync(log, 'utf8').split('\n').filter(Boolean).length;

describe('the first process of an --impl check, started before the engine has loaded', () => {
  it('is taken by the check for its first store: the check starts as many processes as one without it', async () => {
    const args = (log: string): string[] => [
      '--impl',
      logged(log),
      '--parallel',
      '1',
      '--no-explore',
      '--fail-fast',
      '--runs',
      '5',
      '--seed',
      '1',
      '--report',
      join(dir, 'report'),
    ];
    const early = join(dir, 'early.log');
    const plain = join(dir, 'plain.log');
    const run = await runCliCaptured(['check', ...args(early)]);
    const io = { stdout: { write: () => true }, stderr: { write: () => true }, isTTY: false };
    const direct = await checkCommand(args(plain), io);
    // The fake answers every command with a tick: both checks diverge, and both started the same processes.
    expect([run.code, direct]).toEqual([1, 1]);
    expect(starts(early)).toBeGreaterThan(0);
    expect(starts(early)).toBe(starts(plain));
    expect(livingPeers(), LEFT).toBe(0);
  });

  it('is started only for a check of a program, with flags that read, and not for help', async () => {
    const cmd = `'${process.execPath}' '${FAKE}' counter`;
    for (const argv of [['--impl', cmd, '--help'], ['--impl', cmd, '--no-such-flag'], ['--builtin'], ['--impl', ' ']]) {
      startImplementationEarly(argv);
      expect({ argv, taken: takePrestarted(cmd, {}) !== undefined }).toEqual({ argv, taken: false });
    }
    expect(livingPeers(), LEFT).toBe(0);
  });

  it('is taken only with the scheduling the check asks for, and ended when nobody takes it', async () => {
    const cmd = `'${process.execPath}' '${FAKE}' counter`;
    startImplementationEarly(['--impl', cmd, '--normal-scheduling']);
    expect(takePrestarted(cmd, {})).toBeUndefined();
    expect(takePrestarted(`${cmd} `, { scheduling: 'normal' })).toBeUndefined();
    const taken = takePrestarted(cmd, { scheduling: 'normal' });
    expect(taken).toBeDefined();
    await taken?.end();
    startImplementationEarly(['--impl', cmd]);
    expect(livingPeers()).toBe(1);
    await endPrestarted();
    expect(livingPeers(), LEFT).toBe(0);
  });
});

describe('stores an --impl check runs at once by default', () => {
  it('is one per core, at least 2 and at most 4', () => {
    expect([1, 2, 3, 4, 8, 64].map((cores) => defaultProcessParallel(cores))).toEqual([2, 2, 3, 4, 4, 4]);
  });
});
