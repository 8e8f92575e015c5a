/**
 * One state's expansion, shared by the single-threaded explorer, its worker threads and the
 * differential mode: decode the state's record, generate its alphabet, take every step with the
 * model's `step`, count coverage and guard boundaries, and hand each successor that is not the
 * state itself to the caller with its record and the fingerprint of its canonical key.
 */
import type { Config } from '../../contract/index.ts';
import { policyOf, step as modelStep } from '../../model/index.ts';
import type { JobPolicy, ModelState, StepResult } from '../../model/index.ts';
import type { ScriptStep } from '../lockstep/symbolic.ts';
import { observeBoundaries, BOUNDARIES } from './boundaries.ts';
import { canonicalKey, fingerprint, fingerprintOut } from './canonical.ts';
import { J, JOB_WORDS, Words, decodeState, encodeState } from './codec.ts';
import { CodecCache } from './codecCache.ts';
import { ExploreCoverage, transitionIndex } from './coverageCounter.ts';
import { alphabet } from './scope.ts';
import type { ExploreScope, ScopeNames } from './scope.ts';

/** A step function with the model's signature (the model's own by default; tests pass broken ones). */
export type StepFunction = (state: ModelState, command: unknown) => StepResult;

/** What the caller is told of each successor. */
export interface Successor {
  /** Index of the step in the state's alphabet. */
  readonly step: number;
  /** The fingerprint of its canonical key. */
  readonly hi: number;
  readonly lo: number;
  /** Its record, in `record.data` from `record.at` for `record.length` words (valid during the call only). */
  readonly record: Words;
  readonly at: number;
  readonly length: number;
  /** The model's result (the successor state, the reply, the trace). */
  readonly result: StepResult;
}

/** The outcome of expanding one state, for the differential mode. */
export interface Expansion {
  readonly state: ModelState;
  readonly steps: readonly ScriptStep[];
  /** Per step: the model's result, or undefined for a restart (whose model successor is the state itself). */
  readonly results: ReadonlyArray<StepResult | undefined>;
  /** Per step: whether the successor is the state itself (nothing but possibly the reply changed). */
  readonly selfLoop: readonly boolean[];
}

const sameState = (a: ModelState, b: ModelState): boolean => {
  const x = a.context;
  const y = b.context;
  return (
    x.jobs === y.jobs &&
    x.clock === y.clock &&
    x.nextToken === y.nextToken &&
    x.nextSeq === y.nextSeq &&
    x.balances === y.balances &&
    x.effects === y.effects
  );
};

/** The successor handed to the caller, one object reused for every successor of an expander. */
interface MutableSuccessor {
  step: number;
  hi: number;
  lo: number;
  record: Words;
  at: number;
  length: number;
  result: StepResult;
}

/** Expands states of one exploration (one config within one scope). */
export class Expander {
  readonly coverage = new ExploreCoverage();
  readonly boundaries = new Float64Array(BOUNDARIES.length);
  /** Transitions taken (alphabet steps, restarts included). */
  transitions = 0;
  private readonly policy: JobPolicy;
  private readonly scratch = new Words();
  private readonly key: Int32Array;
  private readonly histories: Int32Array;
  /** Position in the state of each job id (by its pool index), -1 for an id the state does not hold. */
  private readonly positions: Int32Array;
  private readonly cache = new CodecCache();
  private readonly successor: MutableSuccessor;
  private readonly historyOf = (k: number): number => this.histories[k] ?? 0;

  constructor(
    readonly config: Config,
    readonly scope: ExploreScope,
    readonly names: ScopeNames,
    private readonly step: StepFunction = modelStep,
  ) {
    this.policy = policyOf(config);
    this.key = new Int32Array(8 + scope.jobs * (JOB_WORDS + 5 + 2) + 8);
    this.histories = new Int32Array(scope.jobs + 1);
    this.positions = new Int32Array(names.ids.length).fill(-1);
    this.successor = { step: 0, hi: 0, lo: 0, record: this.scratch, at: 0, length: 0, result: undefined as never };
  }

  /** The model state of the record at `at`. */
  decode(data: Int32Array, at: number): ModelState {
    return decodeState(data, at, this.config, this.names, this.policy, this.cache);
  }

  /** Writes the record of `state` (with the given per-job histories) to `out`; returns its length. */
  encode(state: ModelState, out: Words, histories?: ArrayLike<number>): number {
    return encodeState(state.context, this.names, (k) => histories?.[k] ?? 0, out, this.cache);
  }

  /** Fingerprints the canonical key of the record at `at` of `data` into fingerprintOut. */
  fingerprintOf(data: Int32Array, at: number): void {
    const n = canonicalKey(data, at, this.scope.symmetry, this.key);
    fingerprint(this.key, n);
  }

  /**
   * Expands the record at `at` of `data`: every step of its alphabet, each successor other than
   * the state itself handed to `onSuccessor` (one object, reused: valid during the call only).
   * Returns the steps and results for the caller that needs them (`keep`), otherwise undefined.
   */
  expand(data: Int32Array, at: number, onSuccessor: (s: Successor) => void, keep = false): Expansion | undefined {
    const state = this.decode(data, at);
    const context = state.context;
    const steps = alphabet(context, this.scope, this.names);
    const jobs = data[at + 3] ?? 0;
    const positions = this.positions;
    for (let j = 0; j < jobs; j++) positions[data[at + 4 + j * JOB_WORDS + J.id] ?? 0] = j;
    const results: Array<StepResult | undefined> | undefined = keep ? [] : undefined;
    const selfLoop: boolean[] | undefined = keep ? [] : undefined;
    const histories = this.histories;
    const successor = this.successor;
    const out = this.scratch;
    for (let i = 0; i < steps.length; i++) {
      const s = steps[i];
      if (s === undefined) continue;
      this.transitions++;
      this.coverage.steps++;
      if (!('do' in s)) {
        // A restart: the model's successor is the state after snapshot -> JSON -> restore, which
        // the snapshot-round-trip invariant holds equal to the state itself.
        results?.push(undefined);
        selfLoop?.push(true);
        continue;
      }
      const command = s.do as Record<string, unknown>;
      observeBoundaries(context, command, this.config, this.policy, this.boundaries);
      const result = this.step(state, command);
      results?.push(result);
      const reply = result.reply;
      if (!reply.ok) this.coverage.rejection(reply.code);
      else if (reply.type === 'submit' && !reply.duplicate) this.coverage.admission();
      if (sameState(state, result.state) && result.trace.length === 0) {
        selfLoop?.push(true);
        continue;
      }
      selfLoop?.push(false);
      for (let j = 0; j < jobs; j++) histories[j] = data[at + 4 + j * JOB_WORDS + J.history] ?? 0;
      histories[jobs] = 0;
      for (const t of result.trace) {
        const known = this.names.index.get(t.job);
        const q = known === undefined || this.names.ids[known] !== t.job ? -1 : (positions[known] ?? -1);
        const p = q < 0 ? jobs : q;
        histories[p] = this.coverage.transition(histories[p] ?? 0, transitionIndex(t));
      }
      out.length = 0;
      const length = encodeState(result.state.context, this.names, this.historyOf, out, this.cache);
      this.fingerprintOf(out.data, 0);
      successor.step = i;
      successor.hi = fingerprintOut[0] ?? 0;
      successor.lo = fingerprintOut[1] ?? 0;
      successor.at = 0;
      successor.length = length;
      successor.result = result;
      onSuccessor(successor);
    }
    for (let j = 0; j < jobs; j++) positions[data[at + 4 + j * JOB_WORDS + J.id] ?? 0] = -1;
    return keep ? { state, steps, results: results ?? [], selfLoop: selfLoop ?? [] } : undefined;
  }
}
