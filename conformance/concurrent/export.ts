/**
 * A recorded history as Porcupine (JSON) and Jepsen (EDN) read it, pure text builders, written beside
 * the race page as `history.porcupine.json` and `history.jepsen.edn`. An instant is a position in the
 * event sequence (0, 1, 2, ...): both tools read only order (Call against Return; `:index`).
 * Porcupine: a JSON array that encoding/json decodes into `[]porcupine.Operation`, each key spelt as
 * its field (`type Operation struct`, model.go, anishathalye/porcupine at 55508eb201b3): `ClientId`
 * the lane; `Input` the request; `Call` the instant it was sent; `Output` the reply or null;
 * `Return` the instant the reply was read; `Metadata` `{id, lane, indefinite}`. A request with no
 * reply gets `Return` one past the last instant and `Output` null, as `parseJepsenLog` in
 * porcupine_test.go treats unfinished operations, so a model for the import must accept any reply
 * where `Output` is null. Operations are listed by Call.
 * Jepsen: one EDN map a line (`write-history!`, jepsen/src/jepsen/store.clj at 024ed072cd63; fields
 * per jepsen-io/history's README at 03a8ecf3934a), an `:invoke` and its completion in instant order.
 * `:type` is `:ok` for every reply read (a refusal may advance the clock, so it is no `:fail`) and
 * `:info` for none (those come last, one past the last instant); `:f` the command type as a keyword;
 * `:value` the request, then the reply; `:process` the lane, renumbered after an `:info` as
 * `next-process` does (generator/context.clj at 7a59089c842d: plus the lane count); `:time` the
 * instant; `:index` file order; `:id` jobcheck's operation id. A fault is a `:nemesis` `:info` pair
 * (nemesisLines); Porcupine's operations have no place for it and leave it out.
 */
import { ednString, jsonText } from '../outside/outsideText.ts';
import type { Fault, NemesisEvent } from '../nemesis/fault.ts';
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
  for (const event of history.nemesis ?? []) last = Math.max(last, event.at);
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
  /** jobcheck's operation id; null for a nemesis operation. */
  readonly id: number | null;
  readonly fields: string;
}

/**
 * The `:f` of a fault's start or end, as jepsen.nemesis.combined names them (`:start-partition`,
 * `:kill`/`:start`, `:pause`/`:resume`, `:start-packet` for latency); disk-full has no name there. Pure.
 */
function nemesisFunction(fault: Fault, phase: NemesisEvent['phase']): string {
  const start = phase === 'start';
  switch (fault.kind) {
    case 'partition':
      return start ? ':start-partition' : ':stop-partition';
    case 'latency':
      return start ? ':start-packet' : ':stop-packet';
    case 'kill':
      return start ? ':kill' : ':start';
    case 'pause':
      return start ? ':pause' : ':resume';
    case 'disk-full':
      return start ? ':start-disk-full' : ':stop-disk-full';
  }
}

/**
 * A fault's start or end as Jepsen writes a nemesis operation (jepsen-io/history's README:
 * `:process :nemesis`, `:info` at invoke and at completion), at the fault's instant: `:f` as
 * jepsen.nemesis.combined names it (nemesisFunction), `:value` the fault, then the nemesis's note. Pure.
 */
function nemesisLines(event: NemesisEvent): JepsenEvent[] {
  const common = `:type :info, :f ${nemesisFunction(event.fault, event.phase)}, :process :nemesis`;
  return [
    { at: event.at, phase: 0, id: null, fields: `${common}, :value ${toEdn(event.fault)}` },
    { at: event.at, phase: 1, id: null, fields: `${common}, :value ${toEdn(event.note ?? event.fault)}` },
  ];
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
  for (const event of history.nemesis ?? []) events.push(...nemesisLines(event));
  events.sort((a, b) => a.at - b.at || a.phase - b.phase || (a.id ?? -1) - (b.id ?? -1));
  return events
    .map((e, index) => `{${e.fields}, :time ${e.at}, :index ${index}${e.id === null ? '' : `, :id ${e.id}`}}\n`)
    .join('');
}
