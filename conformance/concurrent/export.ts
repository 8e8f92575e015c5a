/**
 * A recorded history in the formats of the two tools people cross-check linearizability with:
 * Porcupine's operations (JSON) and Jepsen's history (EDN). Both are pure text builders; the
 * report writer puts them beside the race page as `history.porcupine.json` and `history.jepsen.edn`.
 *
 * Times. jobcheck records order, not wall time: an instant is a position in one event sequence
 * (0, 1, 2, ... as the harness stamped each send and each reply read), and both exports write
 * these instants as they are, as integers in the unit "one recorded event". Neither tool needs
 * more: Porcupine compares Call and Return only with each other, and Jepsen's checkers read the
 * order of the history (`:index`); `:time` only scales Jepsen's plots.
 *
 * Porcupine, checked field by field against `type Operation struct` in model.go,
 * https://github.com/anishathalye/porcupine/blob/55508eb201b314c218d7e8412c3ea4b9499a5f53/model.go
 * (its last field, `_ struct{}`, is unexported: encoding/json neither reads nor writes it). The
 * file is a JSON array that Go's encoding/json decodes straight into `[]porcupine.Operation`, each
 * key spelt exactly as its field (encoding/json would forgive another case; a stricter reader not):
 * - `ClientId` (int, zero-indexed; Porcupine draws one row per client): the lane.
 * - `Input` (interface{}): the request as sent, a contract command or `{"type":"snapshot"}`.
 * - `Call` (int64, "invocation timestamp"): the instant the request was sent.
 * - `Output` (interface{}): the reply as read, or `null` when none came.
 * - `Return` (int64, "response timestamp"): the instant the reply was read. Porcupine reads
 *   [Call, Return] as a closed interval; jobcheck's instants are distinct, so an operation
 *   precedes another exactly when its Return is below the other's Call, as in the checker.
 * - `Metadata` (interface{}, "not used for linearizability checking but can be used for
 *   visualization"): `{"id": <the operation id of the page and the story>, "lane": <lane>,
 *   "indefinite": <true when no reply came>}`.
 * A request with no reply gets `Return` one past the last instant of the history and `Output`
 * null: it stays concurrent with everything after its call, which is how Porcupine's own tests
 * read a Jepsen log's unfinished operations (`parseJepsenLog` in porcupine_test.go, same commit,
 * appends their return at the end with an "unknown" output). A model written for the import must
 * therefore accept any reply where `Output` is null (and may ignore the snapshot request, which
 * changes nothing). Operations are listed by Call.
 *
 * Jepsen, checked against the history documentation of jepsen.history ("Operation Structure" and
 * "Operation Semantics" in
 * https://github.com/jepsen-io/history/blob/03a8ecf3934089981dba05107fe280d47239a2f2/README.md)
 * and the file Jepsen writes (`write-history!` in jepsen/src/jepsen/store.clj,
 * https://github.com/jepsen-io/jepsen/blob/024ed072cd630affa4294f9202a260670a50ea55/jepsen/src/jepsen/store.clj,
 * prints one operation a line with `prn`): `history.jepsen.edn` holds one EDN map a line, an
 * `:invoke` when a request was sent and its completion when the reply was read, in the order of
 * instants:
 * - `:type`: `:invoke`; `:ok` for every reply read (a refusal included: the contract lets a
 *   refused command advance the clock, so it is not Jepsen's `:fail`, which "must have no logical
 *   effect"); `:info` for a request with no reply ("an indeterminate result: the operation either
 *   may or may not have completed").
 * - `:f`: the command's type as a keyword (`:submit`, `:claim`, `:commit`, `:ack`, `:fail`,
 *   `:tick`, `:snapshot`).
 * - `:value`: on the invoke, the request; on the completion, the reply (nil for `:info`). JSON
 *   objects become maps with keyword keys, arrays vectors, null nil.
 * - `:process`: the lane, while it lives. "If a process crashes (e.g. by beginning an `:invoke`
 *   followed by an `:info`) it can never invoke an operation again", so a lane's requests after
 *   one with no reply run as a new process, numbered as Jepsen's generator numbers the next
 *   process of a crashed thread (`next-process` in jepsen/src/jepsen/generator/context.clj, at
 *   commit 7a59089c842d777d70e6e01ee4c9799905d6a848: the old process plus the number of client
 *   processes, here the lanes).
 * - `:time`: the instant (see Times above). The `:info` completions come last, one past the last
 *   instant: nobody saw when, or whether, such a request took effect.
 * - `:index`: 0, 1, 2, ... in file order.
 * - `:id`: jobcheck's operation id (Jepsen allows "any number of additional fields").
 */
import { ednString, jsonText } from '../outside/outsideText.ts';
import type { History, Operation } from './history.ts';

/** One element of the Porcupine export: the fields of Porcupine's `Operation`, as Go's encoding/json names them. */
export interface PorcupineOperation {
  readonly ClientId: number;
  readonly Input: unknown;
  readonly Call: number;
  readonly Output: unknown;
  readonly Return: number;
  readonly Metadata: { readonly id: number; readonly lane: number; readonly indefinite: boolean };
}

/** The last instant of a history (-1 when it is empty). Pure. */
function lastInstant<I, O>(history: History<I, O>): number {
  let last = -1;
  for (const op of history.operations) last = Math.max(last, op.invoked, op.returned ?? op.invoked);
  return last;
}

const byCall = <I, O>(a: Operation<I, O>, b: Operation<I, O>): number => a.invoked - b.invoked || a.id - b.id;

/**
 * The history as Porcupine's operations, one object a request, sorted by Call (see the file's
 * header for each field). Pure.
 */
export function porcupineOperations<I, O>(history: History<I, O>): PorcupineOperation[] {
  const end = lastInstant(history) + 1;
  return [...history.operations].sort(byCall).map((op) => ({
    ClientId: op.lane,
    Input: op.input ?? null,
    Call: op.invoked,
    Output: op.returned === undefined ? null : (op.output ?? null),
    Return: op.returned ?? end,
    Metadata: { id: op.id, lane: op.lane, indefinite: op.returned === undefined },
  }));
}

/**
 * The text of `history.porcupine.json`: a JSON array that decodes into `[]porcupine.Operation`,
 * one operation a line. Pure.
 */
export function toPorcupine<I, O>(history: History<I, O>): string {
  const ops = porcupineOperations(history);
  return ops.length === 0 ? '[]\n' : `[\n${ops.map((o) => jsonText(o)).join(',\n')}\n]\n`;
}

const KEYWORD = /^[A-Za-z*!_?<>=][A-Za-z0-9*+!_?<>=.-]*$/;

/** A JSON value as EDN: maps with keyword keys (a key that is no keyword stays a string), vectors, nil. Pure. */
export function toEdn(value: unknown): string {
  if (value === null || value === undefined) return 'nil';
  if (typeof value === 'boolean') return String(value);
  if (typeof value === 'number') {
    // JSON has no infinities; an integer prints as one, a fraction as Clojure reads a double (1.5, 1e-7).
    return Number.isFinite(value) ? String(value) : 'nil';
  }
  if (typeof value === 'string') return ednString(value);
  if (Array.isArray(value)) return `[${value.map(toEdn).join(' ')}]`;
  if (typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
    return `{${entries.map(([k, v]) => `${KEYWORD.test(k) ? `:${k}` : ednString(k)} ${toEdn(v)}`).join(', ')}}`;
  }
  return ednString(String(value));
}

/** The `:f` of a request: its `type` as a keyword, or `:op` when it has none that can be one. Pure. */
function functionOf(input: unknown): string {
  const type = typeof input === 'object' && input !== null ? (input as { type?: unknown }).type : undefined;
  return typeof type === 'string' && KEYWORD.test(type) ? `:${type}` : ':op';
}

/** How `toJepsen` numbers processes. */
export interface JepsenOptions {
  /**
   * The number of client processes a crashed lane's next process is offset by (Jepsen's thread
   * count); default: the highest lane + 1.
   */
  readonly lanes?: number;
}

/** One line of the Jepsen export, before it is printed. */
interface JepsenEvent {
  readonly at: number;
  /** 0 for an invoke, 1 for a completion, so that at one instant an invoke comes first. */
  readonly phase: 0 | 1;
  readonly id: number;
  readonly fields: string;
}

/**
 * The text of `history.jepsen.edn`: Jepsen's history of the requests, one EDN map a line (see
 * the file's header for each field). Pure.
 */
export function toJepsen<I, O>(history: History<I, O>, options: JepsenOptions = {}): string {
  const ops = [...history.operations].sort(byCall);
  const lanes = options.lanes ?? Math.max(0, ...ops.map((op) => op.lane)) + 1;
  const end = lastInstant(history) + 1;
  const crashes = new Map<number, number>();
  const events: JepsenEvent[] = [];
  for (const op of ops) {
    const process = op.lane + lanes * (crashes.get(op.lane) ?? 0);
    const f = functionOf(op.input);
    const common = `:f ${f}, :process ${process}`;
    events.push({ at: op.invoked, phase: 0, id: op.id, fields: `:type :invoke, ${common}, :value ${toEdn(op.input)}` });
    if (op.returned === undefined) {
      crashes.set(op.lane, (crashes.get(op.lane) ?? 0) + 1);
      events.push({ at: end, phase: 1, id: op.id, fields: `:type :info, ${common}, :value nil` });
    } else {
      events.push({ at: op.returned, phase: 1, id: op.id, fields: `:type :ok, ${common}, :value ${toEdn(op.output)}` });
    }
  }
  events.sort((a, b) => a.at - b.at || a.phase - b.phase || a.id - b.id);
  return events.map((e, index) => `{${e.fields}, :time ${e.at}, :index ${index}, :id ${e.id}}\n`).join('');
}
