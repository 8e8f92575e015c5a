/**
 * The exploration of one config in this thread: each state of a level expanded in turn with the
 * given step function, every new state held to the invariants, and, given an implementation, every
 * transition of the state run against it too (differential.ts). The frontier loop is frontier.ts's,
 * shared with the parallel exploration.
 */
import type { Config } from '../../contract/index.ts';
import { STORE_INVARIANTS, step as modelStep, violatedInvariant } from '../../model/index.ts';
import type { AdapterFactory } from '../adapter.ts';
import { runLockstep } from '../lockstep/index.ts';
import { renderStory } from '../lockstep/story.ts';
import type { ScriptStep } from '../lockstep/symbolic.ts';
import { configExploration } from './configExploration.ts';
import { DifferentialChecker } from './differential.ts';
import type { EdgeDivergence } from './differential.ts';
import { Expander } from './expander.ts';
import type { Successor } from './expander.ts';
import { searchFrontier } from './frontier.ts';
import type { Level, LevelEnd } from './frontier.ts';
import { DEFAULT_MAX_STATES } from './options.ts';
import type { ExploreOptions } from './options.ts';
import type { ConfigExploration, Counterexample } from './result.ts';
import { scopeNames } from './scope.ts';
import type { ExploreScope, NamedConfig } from './scope.ts';
import { startStopwatch } from './stopwatch.ts';
import { breathe } from '../breathe.ts';

/** The divergence of an edge, run again in lockstep from the empty store, so that an artifact can be written from it. */
async function divergenceOf(config: Config, factory: AdapterFactory, d: EdgeDivergence): Promise<Counterexample> {
  const path = d.step === undefined ? [...d.path] : [...d.path, d.step];
  const run = await runLockstep(config, path, factory);
  const what =
    d.kind === 'alias'
      ? 'its snapshot is a live alias'
      : d.kind === 'impl_error'
        ? `it failed: ${d.error ?? ''}`
        : `its ${d.kind} differs`;
  const message = `the implementation disagrees after ${path.length} steps (${what})`;
  const story =
    run.divergence === null
      ? `${message}, but a second run of the same steps agreed: the implementation does not answer the same steps the same way.\n${renderStory(run)}`
      : renderStory(run);
  return { kind: 'divergence', message, path, story, run };
}

/** A new state that breaks an invariant: its visited index and what broke. */
interface Broken {
  readonly index: number;
  readonly name: string;
  readonly message: string;
}

/** Explores one config of a scope in this thread, against the model alone or, with `options.factory`, an implementation too. */
export async function exploreSequentially(
  part: string,
  named: NamedConfig,
  scope: ExploreScope,
  options: ExploreOptions,
): Promise<ConfigExploration> {
  const clock = startStopwatch();
  const { config } = named;
  const names = scopeNames(scope, config.maxAttempts);
  const stepFn = options.step ?? modelStep;
  const invariants = options.invariants ?? STORE_INVARIANTS;
  const expander = new Expander(config, scope, names, stepFn);
  const factory = options.factory;
  const checker = factory === undefined ? undefined : new DifferentialChecker(config, factory, options.budget);
  // Differential mode: the path of each frontier state, by its position in the frontier.
  let paths: ScriptStep[][] = [[]];

  // The successor callback is made once, not once per state: it reads the state being expanded
  // from these variables, set before each expansion.
  let admitNow: Level['admit'] = () => -1;
  let sourceId = 0;
  let broken: Broken | undefined;
  const found: number[] = [];
  const onSuccessor = (s: Successor): void => {
    const index = admitNow(sourceId, s.step, s.hi, s.lo, s.record.data, s.at, s.length);
    if (index < 0) return;
    found.push(s.step);
    if (broken === undefined) {
      const v = violatedInvariant(s.result.state, invariants);
      if (v !== undefined) broken = { index, ...v };
    }
  };

  const expandLevel = async ({ frontier, admit, stopReason }: Level): Promise<LevelEnd> => {
    const nextPaths: ScriptStep[][] = [];
    admitNow = admit;
    for (let e = 0; e < frontier.ids.length; e++) {
      if ((e & 255) === 255) await breathe();
      const stop = stopReason();
      if (stop !== undefined) return { kind: 'stopped', by: stop };
      sourceId = frontier.ids[e] ?? 0;
      broken = undefined;
      found.length = 0;
      const expansion = expander.expand(
        frontier.words.data,
        frontier.offsets[e] ?? 0,
        onSuccessor,
        checker !== undefined,
      );
      // Set by onSuccessor during the expansion (which TypeScript's narrowing cannot see).
      const broke = broken as Broken | undefined;
      if (broke !== undefined) return { kind: 'broken', ...broke };
      if (checker !== undefined && expansion !== undefined && factory !== undefined) {
        const path = paths[e] ?? [];
        for (const stepIndex of found) nextPaths.push([...path, expansion.steps[stepIndex] ?? { restart: true }]);
        const outcome = await checker.check(
          path,
          expansion,
          expansion.selfLoop.map((x) => !x),
        );
        if (outcome === 'time_limit') return { kind: 'stopped', by: 'time-limit' };
        if (outcome !== undefined) {
          await checker.close();
          return { kind: 'counterexample', counterexample: await divergenceOf(config, factory, outcome) };
        }
      }
    }
    paths = nextPaths;
    return { kind: 'done' };
  };

  const outcome = await searchFrontier({
    named,
    scope,
    names,
    expander,
    stepFn,
    invariants,
    maxStates: options.maxStates ?? DEFAULT_MAX_STATES,
    budget: options.budget,
    onProgress: options.onProgress,
    transitions: () => expander.transitions,
    expandLevel,
  });
  await checker?.close();
  const source = `explore ${part}/${named.name} ${checker === undefined ? 'model' : checker.name}`;
  return configExploration(
    part,
    named,
    scope,
    outcome,
    {
      transitions: expander.transitions,
      boundaries: expander.boundaries,
      extraVisitedBytes: 0,
      threads: 1,
      coverage: expander.coverage.toCoverage(source, 1),
      ...(checker === undefined ? {} : { differential: { adapter: checker.name, ...checker.counts } }),
    },
    clock,
  );
}
