/**
 * The model's public face: a pure step function over store states, plus conversion to and from
 * the canonical snapshot. Built on pure transitions of the store machine (pureTransition.ts);
 * nothing here mutates its input.
 *
 * `buildModel` makes the same three functions for other machines: a variant of the model
 * (model/variants.ts) is the store and job machines with some guards and actions provided
 * differently, stepped by exactly this code. The default `step` is `buildModel()`'s, built once.
 */
import type { SnapshotFrom } from 'xstate';
import type { Config, EffectRecord, JobRecord, Reply, Snapshot } from '../contract/index.ts';
import { SNAPSHOT_FORMAT, parseCommand, parseConfig, parseSnapshot } from '../contract/index.ts';
import { jobMachine, policyOf } from './jobMachine.ts';
import type { JobContext } from './jobMachine.ts';
import { pureTransition } from './pureTransition.ts';
import type { PureTransition } from './pureTransition.ts';
import { emptyStore, statusOf, storeMachine } from './storeMachine.ts';
import type { JobSnapshot, JobStep, StoreContext } from './storeMachine.ts';

/** A state of the reference model: a snapshot of the store machine. Treat it as an immutable value. */
export type ModelState = SnapshotFrom<typeof storeMachine>;

/** The outcome of one step: the next state, the reply, and the job transitions it caused. */
export interface StepResult {
  readonly state: ModelState;
  readonly reply: Reply;
  /** Job lifecycle transitions taken, clock advance first, in order. */
  readonly trace: readonly JobStep[];
}

/**
 * Extra fields a nondeterministic variant of the model reads from the store event of one step (for
 * `jittered-backoff`, the delay the implementation chose); the default model reads none.
 */
export type StepChoice = Readonly<Record<string, unknown>>;

/** The store and job machines a model is built from; a variant provides some of their guards and actions differently. */
export interface ModelMachines {
  readonly store: typeof storeMachine;
  readonly job: typeof jobMachine;
}

/** A model: its empty state, its pure step, and restore from a snapshot (toSnapshot serves every model). */
export interface Model {
  /** The empty store for a config. Throws JobcheckError `invalid_config` for a bad config. Pure. */
  readonly initialState: (config: unknown) => ModelState;
  /** One command in the contract's three steps; `choice` is merged into the store event after validation. Pure. */
  readonly step: (state: ModelState, command: unknown, choice?: StepChoice) => StepResult;
  /** A state from a snapshot; throws JobcheckError `invalid_snapshot`. Pure. */
  readonly fromSnapshot: (input: unknown) => ModelState;
}

/**
 * The model over the given machines (default: the reference machines). A state carries its machine
 * (xstate resolves guards and actions through `snapshot.machine`), so each model's states must come
 * from its own `initialState` or `fromSnapshot`. Pure.
 */
export function buildModel(machines: ModelMachines = { store: storeMachine, job: jobMachine }): Model {
  const storeTransition = pureTransition(machines.store);
  const fromContext = (context: StoreContext): ModelState => machines.store.resolveState({ value: 'open', context });
  return {
    initialState: (config) => fromContext(emptyStore(parseConfig(config))),
    step: (state, command, choice) => stepWith(storeTransition, state, command, choice),
    fromSnapshot: (input) => fromContext(restoredContext(input, machines.job)),
  };
}

const reference = buildModel();

/** The empty store for a config. Throws JobcheckError `invalid_config` for a bad config. Pure. */
export function initialState(config: unknown): ModelState {
  return reference.initialState(config);
}

/**
 * Evaluates one command in the contract's three steps: validate (a malformed command or a `now`
 * before the clock is refused and nothing changes), advance the clock, apply. Pure: the input
 * state is left untouched and may be reused.
 */
export function step(state: ModelState, command: unknown): StepResult {
  return reference.step(state, command);
}

function stepWith(
  storeTransition: PureTransition<typeof storeMachine>,
  state: ModelState,
  command: unknown,
  choice: StepChoice | undefined,
): StepResult {
  const parsed = parseCommand(command);
  if (!parsed.ok) return { state, reply: parsed.rejection, trace: [] };
  const cmd = choice === undefined ? parsed.command : ({ ...parsed.command, ...choice } as typeof parsed.command);
  if (cmd.now < state.context.clock) {
    const reply: Reply = {
      ok: false,
      code: 'clock_regressed',
      message: `now: ${cmd.now} is before the clock (${state.context.clock})`,
    };
    return { state, reply, trace: [] };
  }
  // Every instant a job waits for (deadline, leaseUntil, notBefore) lies strictly after the clock
  // once a command is done (leaseTicks, backoffBase >= 1 and deadline > now guarantee it), so an
  // advance to the current clock can change nothing; it is skipped only to save time.
  const skip = cmd.now === state.context.clock;
  const advanced = skip ? state : storeTransition(state, { type: 'advance', now: cmd.now });
  const applied = storeTransition(advanced, cmd);
  const reply = applied.context.reply;
  if (reply === undefined) throw new Error(`model: no reply for ${cmd.type}`);
  const expired = skip ? [] : advanced.context.trace;
  return { state: applied, reply, trace: [...expired, ...applied.context.trace] };
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

/**
 * Sets `key` as an own, enumerable property, even for keys such as `__proto__` that plain
 * assignment would treat specially. Ids, accounts and operation keys are arbitrary strings.
 */
function put<T>(target: Record<string, T>, key: string, value: T): void {
  // defineProperty only where needed: it is slow, and leaves the object in a slower shape.
  if (key === '__proto__')
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}

const byKey = <T>(map: ReadonlyMap<string, T>): [string, T][] =>
  [...map.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));

/**
 * The canonical snapshot of a state: a fresh JSON value (jobs in admission order, accounts and
 * keys sorted) that shares nothing with the state. Pure.
 */
export function toSnapshot(state: ModelState): Snapshot {
  const c = state.context;
  const jobs: Record<string, JobRecord> = {};
  const ordered = [...c.jobs.values()].sort((a, b) => a.context.seq - b.context.seq);
  for (const job of ordered) put(jobs, job.context.id, jobRecord(job));
  const balances: Record<string, number> = {};
  for (const [account, balance] of byKey(c.balances)) put(balances, account, balance);
  const effects: Record<string, Record<string, EffectRecord>> = {};
  for (const [account, ledger] of byKey(c.effects)) {
    const copy: Record<string, EffectRecord> = {};
    for (const [key, e] of byKey(ledger)) put(copy, key, { amount: e.amount, job: e.job, token: e.token });
    put(effects, account, copy);
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
  return reference.fromSnapshot(input);
}

function restoredContext(input: unknown, machine: typeof jobMachine): StoreContext {
  const s = parseSnapshot(input);
  const policy = policyOf(s.config);
  const jobs = new Map<string, JobSnapshot>();
  const ordered = Object.entries(s.jobs).sort(([, a], [, b]) => a.seq - b.seq);
  for (const [id, r] of ordered) {
    const context: JobContext = {
      id,
      payload: { ...r.payload },
      seq: r.seq,
      policy,
      attempts: r.attempts,
      token: r.token,
      owner: r.owner,
      leaseUntil: r.leaseUntil,
      notBefore: r.notBefore,
      reason: r.reason,
      lastError: r.lastError,
    };
    jobs.set(id, machine.resolveState({ value: r.status, context }));
  }
  const effects = new Map<string, ReadonlyMap<string, EffectRecord>>();
  for (const [account, ledger] of Object.entries(s.effects)) {
    effects.set(account, new Map(Object.entries(ledger).map(([key, e]) => [key, { ...e }])));
  }
  return {
    config: { ...s.config },
    clock: s.clock,
    nextToken: s.nextToken,
    nextSeq: s.nextSeq,
    jobs,
    balances: new Map(Object.entries(s.balances)),
    effects,
    reply: undefined,
    trace: [],
  };
}

/** The store's config. */
export const configOf = (state: ModelState): Config => state.context.config;
