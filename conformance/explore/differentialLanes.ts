/**
 * The differential exploration of one config spread over several stores of the implementation at
 * once (lanes, differentialLane.ts), for an implementation whose stores can be reset in place (a
 * process of the protocol's pool, by `restore`): what `jobcheck check` runs against a program,
 * whose every request is a round trip through a pipe.
 *
 * The model's side is the one-store exploration's: the same frontier loop (frontier.ts) and
 * Expander, states expanded in breadth-first order, so the same states, transitions and coverage.
 * On the implementation's side each expanded state becomes a task, ready once the step that first
 * reached it has been checked (which gave the snapshot a lane restores), and a free lane takes the
 * next ready task: the model runs ahead while the lanes wait on their pipes.
 *
 * The lanes only ever decide that the implementation agreed. Which (state, step) a lane meets first
 * depends on timing, and a restored store could answer where a replayed one would not; so any
 * disagreement, broken invariant or error sends the config to the one-store checker
 * (sequential.ts, replaying paths from the empty store in breadth-first order), whose verdict,
 * counterexample and story are the config's. That costs the one-store exploration up to its first
 * disagreement, usually a few shallow levels.
 */
import type { Snapshot } from '../../contract/index.ts';
import { STORE_INVARIANTS, step as modelStep, violatedInvariant } from '../../model/index.ts';
import type { Adapter, AdapterFactory } from '../adapter.ts';
import { configExploration } from './configExploration.ts';
import { DifferentialLane, isResettable } from './differentialLane.ts';
import type { LaneTask } from './differentialLane.ts';
import { Expander } from './expander.ts';
import { searchFrontier } from './frontier.ts';
import type { Level, LevelEnd } from './frontier.ts';
import { DEFAULT_MAX_STATES } from './options.ts';
import type { ExploreOptions } from './options.ts';
import type { ConfigExploration } from './result.ts';
import { scopeNames } from './scope.ts';
import type { ExploreScope, NamedConfig } from './scope.ts';
import { exploreSequentially } from './sequential.ts';
import { startStopwatch } from './stopwatch.ts';

/** A state of a frontier, waiting for its implementation snapshot and its task. */
interface Node {
  snapshot: Snapshot | undefined;
  known: boolean;
  task: Task | undefined;
}

interface Task {
  readonly node: Node;
  readonly expansion: LaneTask['expansion'];
  readonly found: readonly number[];
  /** The frontier nodes of `found`, in the same order. */
  readonly children: readonly Node[];
}

/** Opens `count` stores for `config`; undefined (every store opened closed again) when one cannot be opened or reset in place. */
async function openLanes(factory: AdapterFactory, config: Parameters<AdapterFactory>[0], count: number) {
  const opened = await Promise.allSettled(Array.from({ length: count }, () => factory(config)));
  const adapters = opened.flatMap((o) => (o.status === 'fulfilled' ? [o.value] : []));
  if (adapters.length === count && adapters.every(isResettable)) return adapters;
  await Promise.all(adapters.map((a: Adapter) => a.close().catch(() => undefined)));
  return undefined;
}

/**
 * Explores one config of a scope with every transition also run against the implementation, over
 * `lanes` stores of it at once. Falls back to the one-store exploration (exploreSequentially) for
 * a config where the lanes saw anything but agreement, and for an implementation whose stores
 * cannot be reset in place. Divergences are data; never throws for them.
 */
export async function exploreOverLanes(
  part: string,
  named: NamedConfig,
  scope: ExploreScope,
  options: ExploreOptions & { readonly factory: AdapterFactory },
  lanes: number,
): Promise<ConfigExploration> {
  const clock = startStopwatch();
  const { config } = named;
  const budget = options.budget;
  const adapters = await openLanes(options.factory, config, Math.max(1, Math.floor(lanes)));
  if (adapters === undefined) return exploreSequentially(part, named, scope, options);
  const workers = adapters.map((a) => new DifferentialLane(a, budget));

  // The tasks: ready ones in the order they became ready; lanes wait for one when none is.
  const ready: Task[] = [];
  let waiting: Array<() => void> = [];
  const wake = (): void => {
    const w = waiting;
    waiting = [];
    for (const f of w) f();
  };
  let pending = 0;
  let expanding = true;
  let stop: 'disagree' | 'time_limit' | undefined;
  const offer = (task: Task): void => {
    ready.push(task);
    wake();
  };
  const take = async (): Promise<Task | undefined> => {
    for (;;) {
      if (stop !== undefined) return undefined;
      const task = ready.shift();
      if (task !== undefined) return task;
      if (!expanding && pending === 0) return undefined;
      await new Promise<void>((r) => waiting.push(r));
    }
  };
  const work = async (lane: DifferentialLane): Promise<void> => {
    let here: Task | undefined;
    for (let task = await take(); task !== undefined; task = here ?? (await take())) {
      const outcome = await lane.check({
        expansion: task.expansion,
        snapshot: task.node.snapshot,
        found: task.found,
        here: task === here,
      });
      if (outcome.kind !== 'agree') {
        stop ??= outcome.kind === 'time_limit' ? 'time_limit' : 'disagree';
        wake();
        return;
      }
      here = undefined;
      task.found.forEach((step, k) => {
        const child = task.children[k];
        if (child === undefined) return;
        child.snapshot = outcome.children.get(step);
        child.known = true;
        if (child.task === undefined) return;
        // The store is in this child already: this lane checks it next, without a reset.
        if (step === outcome.at && stop === undefined) here = child.task;
        else offer(child.task);
      });
      pending -= 1;
      if (pending === 0) wake();
    }
  };
  const running = workers.map(work);

  const names = scopeNames(scope, config.maxAttempts);
  const stepFn = options.step ?? modelStep;
  const invariants = options.invariants ?? STORE_INVARIANTS;
  const expander = new Expander(config, scope, names, stepFn);
  let nodes: Node[] = [{ snapshot: undefined, known: true, task: undefined }];

  const expandLevel = async ({ frontier, admit, stopReason }: Level): Promise<LevelEnd> => {
    const nextNodes: Node[] = [];
    for (let e = 0; e < frontier.ids.length; e++) {
      // The lanes stopped: what the search holds is given up (a disagreement goes to the one-store checker).
      if (stop !== undefined) return { kind: 'stopped', by: 'time-limit' };
      const why = stopReason();
      if (why !== undefined) return { kind: 'stopped', by: why };
      const source = frontier.ids[e] ?? 0;
      let broken: { index: number; name: string; message: string } | undefined;
      const found: number[] = [];
      const expansion = expander.expand(
        frontier.words.data,
        frontier.offsets[e] ?? 0,
        (s) => {
          const index = admit(source, s.step, s.hi, s.lo, s.record.data, s.at, s.length);
          if (index < 0) return;
          found.push(s.step);
          if (broken === undefined) {
            const v = violatedInvariant(s.result.state, invariants);
            if (v !== undefined) broken = { index, ...v };
          }
        },
        true,
      );
      if (broken !== undefined) return { kind: 'broken', ...broken };
      const node = nodes[e];
      if (expansion === undefined || node === undefined)
        throw new Error('exploreOverLanes: a state without its expansion');
      const children = found.map((): Node => ({ snapshot: undefined, known: false, task: undefined }));
      nextNodes.push(...children);
      const task: Task = { expansion, found, node, children };
      pending += 1;
      node.task = task;
      if (node.known) offer(task);
      // Let the lanes read their replies and send their next requests while the model runs ahead.
      if (e % 16 === 15) await new Promise<void>((r) => setImmediate(r));
    }
    nodes = nextNodes;
    return { kind: 'done' };
  };

  let outcome: Awaited<ReturnType<typeof searchFrontier>>;
  try {
    outcome = await searchFrontier({
      named,
      scope,
      names,
      expander,
      stepFn,
      invariants,
      maxStates: options.maxStates ?? DEFAULT_MAX_STATES,
      budget,
      onProgress: options.onProgress,
      transitions: () => expander.transitions,
      expandLevel,
    });
  } finally {
    expanding = false;
    wake();
    await Promise.all(running);
    await Promise.all(workers.map((w) => w.close()));
  }
  if (stop === 'disagree' || outcome.counterexample !== null) return exploreSequentially(part, named, scope, options);
  const stoppedBy = stop === 'time_limit' ? (outcome.stoppedBy ?? 'time-limit') : outcome.stoppedBy;
  const adapter = adapters[0]?.name ?? '(implementation)';
  const counts = workers.reduce(
    (n, w) => ({
      resets: n.resets + w.counts.resets,
      commands: n.commands + w.counts.commands,
      snapshots: n.snapshots + w.counts.snapshots,
    }),
    { resets: 0, commands: 0, snapshots: 0 },
  );
  return configExploration(
    part,
    named,
    scope,
    { ...outcome, stoppedBy },
    {
      transitions: expander.transitions,
      boundaries: expander.boundaries,
      extraVisitedBytes: 0,
      threads: 1,
      coverage: expander.coverage.toCoverage(`explore ${part}/${named.name} ${adapter}`, 1),
      differential: { adapter, replays: 0, ...counts, lanes: workers.length },
    },
    clock,
  );
}
