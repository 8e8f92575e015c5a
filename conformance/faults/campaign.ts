/**
 * The fault campaign: for one queue under one durability configuration, each fault's fixed
 * scenario (scenarios.ts) runs on a fresh instance with the nemesis acting between its rounds, each
 * start and end recorded in the history. Every request whose reply the fault swallowed (no reply in
 * time, or an error after a fault began) is indefinite; the history, final snapshot included, goes
 * through the linearizability checker against the target's model; the durability figures are
 * counted (durability.ts). Verdicts: `holds` (the history is explained), `departs` (not explained,
 * and so again in at least REPLAYS_NEEDED of REPLAYS replays, with the story), `unknown` with the
 * reason otherwise (a broker that did not come back, a queue that answers nothing once the fault
 * ended, an adapter that failed, a budget or checker that ran out, a departure that did not replay). Never a pass it did not establish. Whatever
 * happens, the proxy is closed, a paused broker resumed and the instance closed.
 */
import type { Reply } from '../../contract/index.ts';
import type { Adapter } from '../adapter.ts';
import type { Budget } from '../budget.ts';
import type { ConcurrentAdapter, ConcurrentRun, JobHistory } from '../concurrent/index.ts';
import {
  IndefiniteOutcome,
  checkLinearizability,
  jobModel,
  renderConcurrentStory,
  runScenario,
} from '../concurrent/index.ts';
import type { Fault, NemesisAction } from '../nemesis/index.ts';
import { startProxy } from '../nemesis/index.ts';
import type { FaultProxy } from '../nemesis/index.ts';
import { BrokerLostError } from '../profile/BrokerLostError.ts';
import { concurrentRestrictionOf } from '../profile/concurrentRestriction.ts';
import type { FaultResult } from '../profile/result.ts';
import { REPLAYS, REPLAYS_NEEDED, checkedModelOf } from '../profile/runProfile.ts';
import { figuresOf } from './durability.ts';
import { CUT_LANE, PAUSE_TICKS, faultScenario } from './scenarios.ts';
import type { FaultScenario } from './scenarios.ts';
import type { BrokerControl, FaultName, FaultSubject } from './types.ts';

/** Options of a campaign. */
export interface FaultCampaignOptions {
  readonly subject: FaultSubject;
  readonly server: BrokerControl;
  /** The faults to run (default every one, in FAULT_NAMES order). */
  readonly faults?: readonly FaultName[];
  /** How long a request may take before its outcome is indefinite, in ms (default 10 000). */
  readonly timeoutMs?: number;
  /** Replays of a departure (default REPLAYS). */
  readonly replays?: number;
  readonly budget?: Budget;
  /** Called with each run (the first and every replay) and its outcome, for tests and reports. */
  readonly onRun?: (run: ConcurrentRun | undefined, verdict: 'holds' | 'departs' | 'unknown') => void;
}

/** One run's outcome: checked (explained or not), or unknown with the reason. */
type Once =
  | { readonly kind: 'holds'; readonly run: ConcurrentRun }
  | { readonly kind: 'departs'; readonly run: ConcurrentRun; readonly story: string }
  | { readonly kind: 'unknown'; readonly reason: string; readonly run?: ConcurrentRun };

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));
const messageOf = (error: unknown): string =>
  (error instanceof Error ? error.message : String(error)).split('\n')[0] ?? '';

/**
 * A ConcurrentAdapter that turns what a fault swallowed into indefinite outcomes: a request with no
 * reply within `timeoutMs`, a lost broker, or any error once a fault began after it was sent.
 * It keeps each lane's requests in flight, so that a heal can wait for every other lane.
 */
class Watched implements ConcurrentAdapter {
  private epoch = 0;
  private active = false;
  private ended = false;
  /** Requests sent once the last fault had ended that got no reply in time: the queue did not come back. */
  unansweredAfterEnd = 0;
  private readonly flying = new Map<number, Set<Promise<unknown>>>();

  constructor(
    private readonly inner: ConcurrentAdapter,
    private readonly timeoutMs: number,
  ) {}

  get name(): string {
    return this.inner.name;
  }
  get concurrent(): boolean {
    return this.inner.concurrent;
  }

  faultStarts(): void {
    this.epoch += 1;
    this.active = true;
  }
  faultEnds(): void {
    this.active = false;
    this.ended = true;
  }

  execute(lane: number, command: unknown): Promise<Reply> {
    const sentAt = this.epoch;
    // Sent once the last fault had ended (not while one went on: the submit a kill meets is sent
    // as the fault begins, and its lost reply is the fault's doing).
    const sentAfterEnd = this.ended && !this.active;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new IndefiniteOutcome('timeout', `lane ${lane}: no reply within ${this.timeoutMs} ms`)),
        this.timeoutMs,
      );
    });
    const call = (async () => this.inner.execute(lane, command))();
    const p = Promise.race([call, timeout])
      .catch((error: unknown) => {
        if (error instanceof IndefiniteOutcome) {
          if (sentAfterEnd && this.epoch === sentAt) this.unansweredAfterEnd += 1;
          throw error;
        }
        if (error instanceof BrokerLostError || this.active || this.epoch !== sentAt)
          throw new IndefiniteOutcome('closed', `lane ${lane}: ${messageOf(error)}`);
        throw error;
      })
      .finally(() => clearTimeout(timer));
    const mine = this.flying.get(lane) ?? new Set();
    this.flying.set(lane, mine);
    mine.add(p);
    p.then(
      () => mine.delete(p),
      () => mine.delete(p),
    );
    return p;
  }

  /** How many requests of `lane` are in flight. */
  inFlight(lane: number): number {
    return this.flying.get(lane)?.size ?? 0;
  }

  /** Resolves once every request in flight on a lane other than `lane` has settled. */
  async settledExcept(lane: number): Promise<void> {
    // A round's requests are handed over a turn of the event loop after the round begins.
    await new Promise((resolve) => setImmediate(resolve));
    for (;;) {
      const others = [...this.flying.entries()].filter(([l]) => l !== lane).flatMap(([, s]) => [...s]);
      if (others.length === 0) return;
      await Promise.allSettled(others);
    }
  }

  snapshot() {
    return this.inner.snapshot();
  }
  close(): Promise<void> {
    return this.inner.close();
  }
}

/** A sequential adapter as a one-lane ConcurrentAdapter that takes one request at a time. */
const sequential = (adapter: Adapter): ConcurrentAdapter => ({
  name: adapter.name,
  concurrent: false,
  execute: (_lane, command) => adapter.execute(command),
  snapshot: () => adapter.snapshot(),
  close: () => adapter.close(),
});

const BROKER = { kind: 'broker' } as const;

/** What a fault needs set up and torn down around its run, and its nemesis. */
interface Staged {
  readonly adapter: Watched;
  readonly nemesis: (round: number, stamp: (action: NemesisAction) => void) => Promise<readonly NemesisAction[]>;
  /** Why the fault could not be made (a broker that did not come back), once known. */
  broken(): string | undefined;
  teardown(): Promise<void>;
}

async function stage(
  subject: FaultSubject,
  server: BrokerControl,
  plan: FaultScenario,
  timeoutMs: number,
): Promise<Staged | { readonly unknown: string }> {
  const { scenario } = plan;
  let broken: string | undefined;
  if (plan.fault === 'partition-hold') {
    if (subject.routedFactory === undefined)
      return { unknown: subject.unroutable ?? 'the adapter cannot route one worker through a proxy' };
    const proxy: FaultProxy = await startProxy({ upstream: subject.upstream });
    let inner: ConcurrentAdapter;
    try {
      inner = await subject.routedFactory(CUT_LANE, `${proxy.host}:${proxy.port}`)(scenario.config, {
        workers: scenario.workers,
      });
    } catch (error) {
      await proxy.close();
      return { unknown: `the instance could not be created: ${messageOf(error)}` };
    }
    const adapter = new Watched(inner, timeoutMs);
    const fault: Fault = { kind: 'partition', target: { kind: 'worker', lane: CUT_LANE }, mode: 'hold' };
    return {
      adapter,
      broken: () => broken,
      nemesis: async (round) => {
        if (round === plan.startBefore) {
          proxy.set({ kind: 'partition', mode: 'hold' });
          adapter.faultStarts();
          return [{ phase: 'start', fault }];
        }
        if (round === plan.endBefore) {
          await Promise.race([adapter.settledExcept(CUT_LANE), sleep(timeoutMs)]);
          // A request of the cut lane in flight may not have reached the proxy yet (a client that
          // signs or encodes slowly on a loaded machine): the heal waits for its bytes, so that it
          // is held and lands late, as the scenario says, rather than passing after the heal.
          const until = Date.now() + timeoutMs;
          while (adapter.inFlight(CUT_LANE) > 0 && proxy.counts().heldBytes === 0 && Date.now() < until)
            await sleep(10);
          const held = proxy.counts().heldBytes;
          proxy.set({ kind: 'pass' });
          adapter.faultEnds();
          return [{ phase: 'end', fault, note: `${held} bytes held, delivered on heal` }];
        }
        return [];
      },
      teardown: async () => {
        await adapter.close().catch(() => undefined);
        await proxy.close();
      },
    };
  }
  let seq: Adapter;
  try {
    seq = await subject.factory(scenario.config);
  } catch (error) {
    return { unknown: `the instance could not be created: ${messageOf(error)}` };
  }
  const adapter = new Watched(sequential(seq), timeoutMs);
  let paused = false;
  let pausedAt = 0;
  const fault: Fault = { kind: plan.fault === 'kill' ? 'kill' : 'pause', target: BROKER };
  const nemesis = async (round: number, stamp: (action: NemesisAction) => void): Promise<readonly NemesisAction[]> => {
    if (plan.fault === 'kill' && round === plan.startBefore) {
      adapter.faultStarts();
      // Stamped as the SIGKILL goes: a reply that comes while the broker restarts comes after it.
      stamp({ phase: 'start', fault });
      try {
        await server.kill();
      } catch (error) {
        broken = `the broker could not be killed: ${messageOf(error)}`;
        return [];
      }
      try {
        await server.restart();
      } catch (error) {
        broken = `the broker did not come back after the kill: ${messageOf(error)}`;
        return [];
      }
      try {
        await seq.restart();
      } catch (error) {
        broken = `the client did not reconnect after the broker's restart: ${messageOf(error)}`;
        return [];
      }
      adapter.faultEnds();
      return [{ phase: 'end', fault, note: 'restarted on the same data folder; the client reconnected' }];
    }
    if (plan.fault === 'pause' && round === plan.startBefore) {
      server.pause();
      paused = true;
      pausedAt = performance.now();
      adapter.faultStarts();
      return [{ phase: 'start', fault }];
    }
    if (plan.fault === 'pause' && round === plan.endBefore && paused) {
      await sleep(pausedAt + PAUSE_TICKS * subject.tickMs - performance.now());
      server.resume();
      paused = false;
      adapter.faultEnds();
      return [{ phase: 'end', fault, note: `SIGCONT after ${PAUSE_TICKS} ticks` }];
    }
    return [];
  };
  return {
    adapter,
    nemesis,
    broken: () => broken,
    teardown: async () => {
      if (paused) {
        server.resume();
        paused = false;
      }
      await adapter.close().catch(() => undefined);
    },
  };
}

/** Runs a fault's scenario once and checks it. Never throws for what the queue or the broker does. */
async function once(
  subject: FaultSubject,
  server: BrokerControl,
  plan: FaultScenario,
  timeoutMs: number,
  budget: Budget | undefined,
): Promise<Once> {
  const staged = await stage(subject, server, plan, timeoutMs);
  if ('unknown' in staged) return { kind: 'unknown', reason: staged.unknown };
  let run: ConcurrentRun;
  try {
    run = await runScenario(plan.scenario, staged.adapter, {
      timeoutMs: timeoutMs + 1000,
      nemesis: staged.nemesis,
      ...(budget === undefined ? {} : { budget }),
    });
  } finally {
    await staged.teardown();
  }
  const broken = staged.broken();
  if (broken !== undefined) return { kind: 'unknown', reason: broken, run };
  // Indefinite requests may not have happened, so a history of them is easy to explain: a queue
  // that answers nothing once the fault has ended has not come back, which no verdict may hide.
  const silent = staged.adapter.unansweredAfterEnd;
  if (silent > 0)
    return {
      kind: 'unknown',
      reason: `${silent} request(s) sent after the fault ended got no reply within ${timeoutMs} ms: the queue did not come back`,
      run,
    };
  if (run.interrupted) return { kind: 'unknown', reason: 'the time limit was reached before the run ended', run };
  if (run.errors.length > 0 || run.snapshotMissing !== undefined) {
    const why = [...run.errors.map((e) => `request #${e.id}: ${e.message}`), run.snapshotMissing ?? []].flat();
    return { kind: 'unknown', reason: `the adapter failed: ${why.join('; ')}`, run };
  }
  const checked = checkedModelOf(subject.target);
  const ignoreFields = concurrentRestrictionOf(subject.target).restriction.ignoreFields;
  const comparison = ignoreFields === undefined ? {} : { ignoreFields };
  const outcome = checkLinearizability(
    jobModel(plan.scenario.config, checked.model, comparison),
    run.history as JobHistory,
    { timeoutMs: 30_000 },
  );
  if (outcome.verdict === 'linearizable') return { kind: 'holds', run };
  if (outcome.verdict === 'unknown')
    return { kind: 'unknown', reason: `the linearizability checker's budget ran out (${outcome.reason})`, run };
  const story = renderConcurrentStory(
    { kind: 'not_linearizable', scenario: plan.scenario, run, witness: outcome.witness, error: null },
    {
      adapter: `${subject.target.queue} (${subject.configuration})`,
      workers: plan.scenario.workers,
      reproduceCommand: subject.replayCommand(plan.fault),
      model: checked.model,
      ...comparison,
    },
  );
  return { kind: 'departs', run, story };
}

/** One fault against the subject: its run, and on a departure its replays. */
export async function runFault(options: FaultCampaignOptions & { readonly fault: FaultName }): Promise<FaultResult> {
  const { subject, server, fault, budget } = options;
  const timeoutMs = options.timeoutMs ?? 10_000;
  const replays = options.replays ?? REPLAYS;
  const started = performance.now();
  const plan = faultScenario(fault);
  const base = { fault, configuration: subject.configuration };
  const wall = (): number => Math.round(performance.now() - started);
  let first: Once;
  try {
    first = await once(subject, server, plan, timeoutMs, budget);
  } catch (error) {
    first = { kind: 'unknown', reason: `the fault could not be run: ${messageOf(error)}` };
  }
  options.onRun?.(first.run, first.kind);
  const figures = first.run === undefined ? undefined : figuresOf(first.run);
  const withFigures = figures === undefined ? {} : { figures };
  if (first.kind === 'holds') return { ...base, verdict: 'holds', ...withFigures, wallMs: wall() };
  if (first.kind === 'unknown')
    return { ...base, verdict: 'unknown', reason: first.reason, ...withFigures, wallMs: wall() };
  let departed = 0;
  let ran = 0;
  for (let i = 0; i < replays; i++) {
    if (budget?.expired === true) break;
    let again: Once;
    try {
      again = await once(subject, server, plan, timeoutMs, budget);
    } catch (error) {
      again = { kind: 'unknown', reason: messageOf(error) };
    }
    options.onRun?.(again.run, again.kind);
    if (again.kind === 'unknown') continue;
    ran += 1;
    if (again.kind === 'departs') departed += 1;
  }
  const told = { story: first.story, replay: subject.replayCommand(fault), replays: { runs: replays, departed } };
  if (departed >= REPLAYS_NEEDED) return { ...base, verdict: 'departs', ...told, ...withFigures, wallMs: wall() };
  return {
    ...base,
    verdict: 'unknown',
    reason: `the departure replayed ${departed} time(s) of ${replays} (${ran} replay(s) ran to their end): not established`,
    ...told,
    ...withFigures,
    wallMs: wall(),
  };
}

/** Every fault asked (default all) against the subject, one after another. */
export async function runFaultCampaign(options: FaultCampaignOptions): Promise<FaultResult[]> {
  const results: FaultResult[] = [];
  for (const fault of options.faults ?? (['partition-hold', 'pause', 'kill'] as const))
    results.push(await runFault({ ...options, fault }));
  return results;
}
