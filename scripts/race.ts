/**
 * A race on purpose, for docs/08-competing-workers.md: two workers, one job. Round 1 submits job
 * `a`; round 2 sends two claims at once, one per worker lane. The history is checked for
 * linearizability against the model and, when no order explains it, told as the check tells it.
 *
 *   npx tsx scripts/race.ts --store locked                   impl/JobStore behind a mutex
 *   npx tsx scripts/race.ts --store claim-reads-then-writes  a claim that reads, awaits, writes
 *
 * The await points of the stores are real (`setImmediate`), not a scheduler's: both claims reach
 * the store before either has delivered, which is exactly the moment the broken claim is wrong in.
 * Exit code 0 linearizable, 1 not, 2 bad flags.
 */
import { parseArgs } from 'node:util';
import type { Config } from '../contract/index.ts';
import { concurrentBrokenVariant } from '../conformance/broken/index.ts';
import { describeConfig } from '../conformance/lockstep/story.ts';
import type { ConcurrentFactory } from '../conformance/concurrent/adapter.ts';
import type { ConcurrentFailure } from '../conformance/concurrent/result.ts';
import type { ConcurrentScenario } from '../conformance/concurrent/generate.ts';
import { lockedJobStoreFactory } from '../conformance/concurrent/inProcess.ts';
import { jobModel } from '../conformance/concurrent/jobModel.ts';
import { checkLinearizability } from '../conformance/concurrent/linearizability.ts';
import { runScenario } from '../conformance/concurrent/run.ts';
import { renderConcurrentStory, renderLanes } from '../conformance/concurrent/story.ts';

const CONFIG: Config = { capacity: 2, maxAttempts: 2, leaseTicks: 5, backoffBase: 1, backoffCap: 4 };

/** Round 1: worker 1 submits job a. Round 2, one tick later: both workers claim at once. */
export const RACE: ConcurrentScenario = {
  config: CONFIG,
  workers: 2,
  rounds: [
    {
      now: { at: 'same' },
      shuffle: 0,
      requests: [
        { lane: 0, command: { kind: 'submit', id: 'a', account: 'alice', key: 'a:k', amount: 7, deadlineIn: 100 } },
      ],
    },
    {
      now: { at: 'later', plus: 1 },
      shuffle: 0,
      requests: [
        { lane: 0, command: { kind: 'claim' } },
        { lane: 1, command: { kind: 'claim' } },
      ],
    },
  ],
};

function factoryOf(store: string): ConcurrentFactory | undefined {
  if (store === 'locked') return lockedJobStoreFactory();
  return concurrentBrokenVariant(store)?.factory;
}

async function main(): Promise<number> {
  let store: string;
  try {
    const { values } = parseArgs({ options: { store: { type: 'string' } }, strict: true });
    store = values.store ?? 'locked';
  } catch (e) {
    process.stderr.write(`race: ${(e as Error).message}\n`);
    return 2;
  }
  const factory = factoryOf(store);
  if (factory === undefined) {
    process.stderr.write(
      `race: --store must be locked or the name of a broken concurrent variant (got ${JSON.stringify(store)})\n`,
    );
    return 2;
  }
  const adapter = await factory(CONFIG, { workers: RACE.workers });
  const run = await runScenario(RACE, adapter, { timeoutMs: 2000 }).finally(() => adapter.close());
  process.stdout.write(`store ${adapter.name}; config ${describeConfig(CONFIG)}\n\n`);
  const outcome = checkLinearizability(jobModel(CONFIG), run.history);
  // A failure's story shows the lanes itself.
  if (outcome.verdict !== 'not_linearizable') process.stdout.write(`${renderLanes(run).join('\n')}\n\n`);
  if (outcome.verdict === 'linearizable') {
    process.stdout.write(
      `linearizable: the order ${outcome.order.map((id) => `#${id}`).join(' ')} of the model gives every reply observed.\n`,
    );
    return 0;
  }
  if (outcome.verdict === 'unknown') {
    process.stdout.write(`unknown: the checker ran out of its budget (${outcome.reason}), which is not a pass.\n`);
    return 1;
  }
  const failure: ConcurrentFailure = {
    kind: 'not_linearizable',
    scenario: RACE,
    run,
    witness: outcome.witness,
    error: null,
  };
  process.stdout.write(`not linearizable:\n\n${renderConcurrentStory(failure, { adapter: adapter.name })}\n`);
  return 1;
}

process.exitCode = await main();
