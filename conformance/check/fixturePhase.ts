/**
 * The first phase of a check: the failure stories of model/fixtures replayed against the
 * implementation, each on a fresh store, several at once.
 *
 * The fixtures use the target's plain factory, whose restarts are cold (a process that exits when
 * its stdin closes, a newly started one that restores), so that every check still sees one.
 */
import type { Adapter, AdapterFactory } from '../adapter.ts';
import { isTimeLimit } from '../budget.ts';
import type { Budget } from '../budget.ts';
import { inOrder } from '../parallel.ts';
import { runFixture } from '../../model/fixtures.ts';
import type { Fixture, FixtureDriver, FixtureResult } from '../../model/fixtures.ts';

/** One fixture story replayed against the implementation. */
export interface FixtureOutcome {
  readonly fixture: Fixture;
  readonly result: FixtureResult;
  readonly durationMs: number;
}

/** What the fixture phase ran and what the time limit kept it from. */
export interface FixturePhaseResult {
  /** The fixture stories that ran to the end, in the order given. */
  readonly outcomes: readonly FixtureOutcome[];
  /** Names of the fixture stories the time limit kept from running to the end. */
  readonly notRun: readonly string[];
}

/**
 * A FixtureDriver over an Adapter. The Adapter interface has no "restore from this object"
 * (across a process boundary nothing can alias the caller's object anyway), so `restoreFrom` is a
 * real restart from the store's own snapshot, which the fixture runner hands over unchanged.
 */
function fixtureDriver(adapter: Adapter): FixtureDriver {
  return {
    execute: (command) => adapter.execute(command),
    snapshot: () => adapter.snapshot(),
    restart: () => adapter.restart(),
    restoreFrom: () => adapter.restart(),
  };
}

/**
 * Replays one fixture against a fresh implementation; a factory that throws is a mismatch, never
 * an exception. Returns undefined when the time limit cut it short (it did not run to the end).
 */
async function checkFixture(fixture: Fixture, factory: AdapterFactory): Promise<FixtureOutcome | undefined> {
  const started = performance.now();
  let adapter: Adapter | undefined;
  let result: FixtureResult;
  try {
    adapter = await factory(fixture.config);
    result = await runFixture(fixture, fixtureDriver(adapter));
  } catch (error) {
    if (isTimeLimit(error)) return undefined;
    const message = error instanceof Error ? error.message : String(error);
    result = {
      ok: false,
      fixture: fixture.name,
      step: 'final',
      check: 'error',
      expected: 'a store',
      actual: message,
      message: `${fixture.name}: ${message}`,
    };
  } finally {
    await adapter?.close().catch(() => undefined);
  }
  if (!result.ok && result.check === 'error' && isTimeLimit(result.error)) return undefined;
  return { fixture, result, durationMs: performance.now() - started };
}

/**
 * Replays `fixtures` against stores of `factory`, `parallel` at a time, until the budget expires.
 * `onOutcome` is called after each one, in the order they end. A divergence is data: never throws for it.
 */
export async function runFixturePhase(
  fixtures: readonly Fixture[],
  factory: AdapterFactory,
  options: {
    readonly parallel: number;
    readonly budget?: Budget | undefined;
    readonly onOutcome?: (outcome: FixtureOutcome | undefined, done: number) => void;
  },
): Promise<FixturePhaseResult> {
  let done = 0;
  const ran = await inOrder(
    fixtures.length,
    options.parallel,
    async (index) => {
      const outcome = await checkFixture(fixtures[index] as Fixture, factory);
      done += 1;
      options.onOutcome?.(outcome, done);
      return outcome;
    },
    () => options.budget?.expired === true,
  );
  return {
    outcomes: ran.filter((o): o is FixtureOutcome => o !== undefined),
    notRun: fixtures.filter((_, i) => ran[i] === undefined).map((f) => f.name),
  };
}
