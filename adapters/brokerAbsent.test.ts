/**
 * With no server at its address, every real queue's `jobcheck profile --module` (and `check
 * --module` where the module exports an adapter factory) is a setup error: exit 2, nothing on
 * stdout, one line on stderr naming the broker and the address, nothing left running. The
 * companion of adapters/brokerLoss.test.ts (a server killed mid-profile); it waits on no server,
 * so it runs in the slow part's second lane.
 *
 * Each case needs its server's binaries (Debian's packages) only to know the queue is meant to run
 * here; without them it is skipped with a hint, and with `CI` set it fails. The SQS targets have no
 * case here: their profile starts its emulator itself, so there is no address to leave empty.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { freePort } from '../conformance/servers/network.ts';
import { QUEUES, cleanEnv, installed, jobcheck, limiter, required } from './brokerLossCases.ts';

// Two cases at a time: each waits on a refused connection, not on the cores.
const twoAtATime = limiter(2);

describe.concurrent('no broker at the start', () => {
  describe.each(QUEUES.filter((q) => q.nowhere !== undefined))('$name', (q) => {
    const missing = installed(q.binary) ? undefined : `${q.binary} is not installed (Debian's package)`;
    const skip = missing !== undefined && !required;

    it.skipIf(skip)(
      'with no server at its address, profile --module is a setup error of one line',
      () =>
        twoAtATime(async () => {
          if (missing !== undefined) throw new Error(missing);
          const port = await freePort();
          const dir = mkdtempSync(join(tmpdir(), 'jobcheck-nowhere-'));
          try {
            const { env, address } = (q.nowhere as NonNullable<typeof q.nowhere>)(port, dir);
            const commands = [['profile', '--module', q.module, '--time-limit', '60s']];
            if (q.checkable) commands.push(['check', '--module', q.module, '--time-limit', '60s']);
            for (const args of commands) {
              const run = await jobcheck(args, cleanEnv(env), 45_000);
              const text = `${run.out}${run.err}`;
              expect(run.code, `${args[0]}: ${text}`).toBe(2);
              expect(run.out, `${args[0]}: ${text}`).toBe('');
              expect(run.err.trimEnd().split('\n'), `${args[0]}: ${text}`).toHaveLength(1);
              expect(run.err, `${args[0]}: ${text}`).toContain(address);
              expect(run.err, `${args[0]}: ${text}`).toContain(q.broker);
              expect(run.leftover, `${args[0]}: ${text}`).toEqual([]);
            }
          } finally {
            rmSync(dir, { recursive: true, force: true });
          }
        }),
      240_000,
    );
  });
});
