import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { ConcurrentProcessAdapter } from '../../conformance/protocol/concurrentProcessAdapter.ts';
import { claimRace, roundsArbitrary, runRounds } from '../../conformance/protocol/rounds.ts';
import { findPython, pythonCommand } from './interpreter.ts';

/**
 * The Python example's concurrent mode (jobcheck/2: a thread per request over one store and its
 * lock), driven in rounds of concurrent requests by the harness's concurrent process adapter. The
 * expected replies come from the reference model: every round must be explained by some order of
 * its requests (conformance/protocol/rounds.ts). The broken variant concurrent_double_claim.py
 * lets go of the lock in the middle of a claim, and must be caught handing one job out twice.
 */
const python = findPython();
const config = { capacity: 4, maxAttempts: 3, leaseTicks: 4, backoffBase: 1, backoffCap: 2 };
const LANES = 4;
const opened: ConcurrentProcessAdapter[] = [];
afterAll(() => Promise.all(opened.map((a) => a.close())));

async function start(script: string): Promise<ConcurrentProcessAdapter> {
  const adapter = await ConcurrentProcessAdapter.start(pythonCommand(python as string, script), config, {
    workers: LANES,
    replyTimeoutMs: 10_000,
  });
  opened.push(adapter);
  return adapter;
}

/** Runs `rounds` on a fresh process of `script` and closes it. */
async function explained(script: string, rounds: unknown[][]): Promise<Awaited<ReturnType<typeof runRounds>>> {
  const adapter = await start(script);
  try {
    return await runRounds(adapter, config, rounds);
  } finally {
    await adapter.close();
  }
}

describe.skipIf(python === undefined)(
  `examples/python/jobstore.py under jobcheck/2${python === undefined ? ' (skipped: python3 is not installed)' : ''}`,
  () => {
    it('says it is concurrent when offered jobcheck/2', async () => {
      const adapter = await start('examples/python/jobstore.py');
      expect({ protocol: adapter.protocol, concurrent: adapter.concurrent }).toEqual({
        protocol: 'jobcheck/2',
        concurrent: true,
      });
      await adapter.close();
    });

    it("gives, in every round of concurrent requests, the replies of some order of that round (the model's), and a final snapshot so reached", async () => {
      await fc.assert(
        fc.asyncProperty(roundsArbitrary(LANES), async (rounds) => {
          const outcome = await explained('examples/python/jobstore.py', rounds);
          expect(outcome).toEqual({ explained: true, rounds: rounds.length });
        }),
        { numRuns: 25, seed: 20261201 },
      );
    });

    it('hands each job to one claim when four claims race, where the broken variant (lock let go mid-claim) hands one out twice', async () => {
      const race = claimRace(LANES, 2);
      expect(await explained('examples/python/jobstore.py', race)).toEqual({ explained: true, rounds: race.length });
      // The race is real, so the broken variant is given a few chances to lose it.
      let caught: Awaited<ReturnType<typeof runRounds>> | undefined;
      for (let attempt = 0; attempt < 5 && caught === undefined; attempt++) {
        const outcome = await explained('examples/python/broken/concurrent_double_claim.py', race);
        if (!outcome.explained) caught = outcome;
      }
      expect(caught).toMatchObject({ explained: false, round: 1, why: 'no order of the round gives these replies' });
      const delivered = (caught as { replies: readonly { job?: { id: string } | null }[] }).replies.flatMap((r) =>
        r.job == null ? [] : [r.job.id],
      );
      expect(new Set(delivered).size).toBeLessThan(delivered.length);
    });

    it('is never caught by the same rounds when they are sent one request at a time (the bug needs concurrency)', async () => {
      const race = claimRace(LANES, 2).flatMap((round) => round.map((command) => [command]));
      expect(await explained('examples/python/broken/concurrent_double_claim.py', race)).toEqual({
        explained: true,
        rounds: race.length,
      });
    });
  },
);
