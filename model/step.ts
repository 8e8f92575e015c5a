/**
 * The model's public face: a pure step function over store states, plus conversion to and from
 * the canonical snapshot. Nothing here mutates its input.
 *
 * The step executes the xstate machines' own definitions, compiled once per machine into plain
 * transition tables (compileMachine.ts, runMachine.ts), over plain states (machineState.ts): the
 * machines stay the one specification, without the actor runtime's cost on every command. xstate's
 * own transition stays the reference (referenceModel.ts), and a test holds the two equal.
 *
 * `buildModel` makes the same three functions for other machines: a variant of the model
 * (model/variants.ts) is the store and job machines with some guards and actions provided
 * differently, stepped by exactly this code. The default `step` is `buildModel()`'s, built once.
 */
import type { Config, EffectRecord, JobRecord, Snapshot } from '../contract/index.ts';
import type { ParsedCommand } from '../contract/index.ts';
import { SNAPSHOT_FORMAT, parseCommandBySchema, parseConfig, parseSnapshot, putOwn } from '../contract/index.ts';
import { fastCommand } from '../contract/fastCommand.ts';
import { acceptedContext } from './acceptedSnapshot.ts';
import { jobMachine } from './jobMachine.ts';
import { machineState } from './machineState.ts';
import { rememberRejections } from './rememberedRejections.ts';
import { restoredContext } from './restoredContext.ts';
import { runMachine, tablesOf } from './runMachine.ts';
import { emptyStore, statusOf, storeMachine } from './storeMachine.ts';
import type { JobSnapshot, StoreContext, StoreEvent } from './storeMachine.ts';
import { threeSteps } from './threeSteps.ts';
import type { Model, ModelMachines, ModelState, StepResult } from './stepTypes.ts';

export type { Model, ModelMachines, ModelState, StepChoice, StepResult } from './stepTypes.ts';

const takeEvent = (state: ModelState, event: StoreEvent): ModelState => runMachine(state, event);

/**
 * `parseCommand` (a well-formed command by the fast path, anything else by the schema), with the
 * schema's rejections remembered (rememberedRejections.ts): the same answers, worded once. Each
 * model has its own memory.
 */
function rememberingParser(): (input: unknown) => ParsedCommand {
  const bySchema = rememberRejections(parseCommandBySchema);
  return (input) => {
    const command = fastCommand(input);
    return command !== undefined ? { ok: true, command } : bySchema(input);
  };
}

/**
 * The store context of a snapshot: one the model wrote itself is accepted without zod and built
 * in the same pass (acceptedContext, a fresh value); anything else is the schema's to judge, and
 * its output is copied.
 */
function contextOfSnapshot(
  input: unknown,
  jobOf: (status: JobSnapshot['value'], context: JobSnapshot['context']) => JobSnapshot,
): StoreContext {
  return acceptedContext(input, jobOf) ?? restoredContext(input, jobOf, parseSnapshot);
}

/**
 * The model over the given machines (default: the reference machines), stepped by their compiled
 * tables. A state carries its machine and each job its own, so each model's states must come from
 * its own `initialState` or `fromSnapshot`. Throws UnsupportedMachineError when a machine uses
 * something the fast step does not run. Pure.
 */
export function buildModel(machines: ModelMachines = { store: storeMachine, job: jobMachine }): Model {
  // Compile both now, so that an unsupported machine fails here rather than at its first command.
  tablesOf(machines.job);
  tablesOf(machines.store);
  const fromContext = (context: StoreContext): ModelState => machineState(machines.store, 'open', context);
  const jobOf = (status: JobSnapshot['value'], context: JobSnapshot['context']): JobSnapshot =>
    machineState(machines.job, status, context);
  const parse = rememberingParser();
  return {
    initialState: (config) => fromContext(emptyStore(parseConfig(config))),
    step: (state, command, choice) => threeSteps(takeEvent, parse, state, command, choice),
    fromSnapshot: (input) => fromContext(contextOfSnapshot(input, jobOf)),
  };
}

const fast = buildModel();

/** The empty store for a config. Throws JobcheckError `invalid_config` for a bad config. Pure. */
export function initialState(config: unknown): ModelState {
  return fast.initialState(config);
}

/**
 * Evaluates one command in the contract's three steps: validate (a malformed command or a `now`
 * before the clock is refused and nothing changes), advance the clock, apply. Pure: the input
 * state is left untouched and may be reused.
 */
export function step(state: ModelState, command: unknown): StepResult {
  return fast.step(state, command);
}

function jobRecord(job: JobSnapshot): JobRecord {
  const c = job.context;
  const record: { -readonly [K in keyof JobRecord]: JobRecord[K] } = {
    payload: { ...c.payload },
    seq: c.seq,
    status: statusOf(job),
    attempts: c.attempts,
  };
  if (c.token !== undefined) record.token = c.token;
  if (c.owner !== undefined) record.owner = c.owner;
  if (c.leaseUntil !== undefined) record.leaseUntil = c.leaseUntil;
  if (c.notBefore !== undefined) record.notBefore = c.notBefore;
  if (c.reason !== undefined) record.reason = c.reason;
  if (c.lastError !== undefined) record.lastError = c.lastError;
  return record as JobRecord;
}

/** The entries of `map` sorted by key (left as they are when already sorted, as they mostly are). */
function byKey<T>(map: ReadonlyMap<string, T>): Iterable<[string, T]> {
  let previous: string | undefined;
  for (const key of map.keys()) {
    if (previous !== undefined && !(previous < key))
      return [...map.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    previous = key;
  }
  return map.entries();
}

/** The jobs of a store in admission order (the order a store keeps them in; sorted only if not). */
function inAdmissionOrder(jobs: ReadonlyMap<string, JobSnapshot>): Iterable<JobSnapshot> {
  let previous = 0;
  for (const job of jobs.values()) {
    if (job.context.seq <= previous) return [...jobs.values()].sort((a, b) => a.context.seq - b.context.seq);
    previous = job.context.seq;
  }
  return jobs.values();
}

/**
 * The canonical snapshot of a state: a fresh JSON value (jobs in admission order, accounts and
 * keys sorted) that shares nothing with the state. Pure.
 */
export function toSnapshot(state: ModelState): Snapshot {
  const c = state.context;
  const jobs: Record<string, JobRecord> = {};
  for (const job of inAdmissionOrder(c.jobs)) putOwn(jobs, job.context.id, jobRecord(job));
  const balances: Record<string, number> = {};
  for (const [account, balance] of byKey(c.balances)) putOwn(balances, account, balance);
  const effects: Record<string, Record<string, EffectRecord>> = {};
  for (const [account, ledger] of byKey(c.effects)) {
    const copy: Record<string, EffectRecord> = {};
    for (const [key, e] of byKey(ledger)) putOwn(copy, key, { amount: e.amount, job: e.job, token: e.token });
    putOwn(effects, account, copy);
  }
  return {
    format: SNAPSHOT_FORMAT,
    config: { ...c.config },
    clock: c.clock,
    nextToken: c.nextToken,
    nextSeq: c.nextSeq,
    jobs,
    balances,
    effects,
  };
}

/**
 * A state from a snapshot (a restart). Validates the whole snapshot first and throws JobcheckError
 * `invalid_snapshot` naming the bad field; keeps no alias to the caller's object. Pure.
 */
export function fromSnapshot(input: unknown): ModelState {
  return fast.fromSnapshot(input);
}

/** The store's config. */
export const configOf = (state: ModelState): Config => state.context.config;
