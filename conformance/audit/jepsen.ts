/**
 * Reads back a Jepsen history as jobcheck writes it (conformance/concurrent/export.ts, `toJepsen`):
 * one EDN map a line, an `:invoke` and its completion (`:ok` with the reply, `:info` for none)
 * sharing `:id`, `:time` the instant, `:value` the request then the reply. The EDN read is the
 * subset the export writes: maps, vectors, keywords, strings, integers and decimals, nil, true,
 * false. Nemesis lines (`:process :nemesis`) are faults, not operations, and are passed over.
 *
 * `jepsenHistory` gives back the history of contract commands (ids, instants, requests, replies);
 * `readJepsen` turns it into the audit's events through contractHistoryLines, so that a Jepsen
 * file and a `jobcheck-history/1` file are judged alike. The history of one file is held in memory
 * (an export is one run). Every refusal is a HistoryFileError naming the line.
 */
import type { History, Operation } from '../concurrent/history.ts';
import { contractHistoryLines, type ContractHeader } from './fromContract.ts';
import { type ReadEvent, boundedLines, readHistory } from './read.ts';
import { HistoryFileError } from './types.ts';

/** Reads one EDN value of the export's subset from `text`; throws a plain Error saying where. Pure. */
export function readEdn(text: string): unknown {
  let i = 0;
  const ws = (): void => {
    while (i < text.length && /[\s,]/.test(text[i] as string)) i++;
  };
  const fail = (what: string): never => {
    throw new Error(`${what} at character ${i + 1}`);
  };
  const value = (): unknown => {
    ws();
    const c = text[i];
    if (c === undefined) return fail('unexpected end');
    if (c === '{') {
      i++;
      const out: Record<string, unknown> = {};
      for (ws(); text[i] !== '}'; ws()) {
        const k = value();
        const v = value();
        if (typeof k !== 'string') fail('a map key that is no keyword or string');
        Object.defineProperty(out, k as string, { value: v, enumerable: true, writable: true, configurable: true });
      }
      i++;
      return out;
    }
    if (c === '[') {
      i++;
      const out: unknown[] = [];
      for (ws(); text[i] !== ']'; ws()) {
        if (i >= text.length) fail('an unclosed vector');
        out.push(value());
      }
      i++;
      return out;
    }
    if (c === '"') {
      let s = '';
      for (i++; text[i] !== '"'; i++) {
        if (i >= text.length) fail('an unclosed string');
        if (text[i] === '\\') {
          i++;
          const e = text[i];
          if (e === 'u') {
            s += String.fromCharCode(Number.parseInt(text.slice(i + 1, i + 5), 16));
            i += 4;
          } else
            s +=
              ({ n: '\n', t: '\t', r: '\r', '"': '"', '\\': '\\' } as Record<string, string>)[e ?? ''] ??
              fail('a bad escape');
        } else s += text[i];
      }
      i++;
      return s;
    }
    const m = /^[^\s,{}[\]"]+/.exec(text.slice(i));
    if (m === null) return fail('an unexpected character');
    i += m[0].length;
    const atom = m[0];
    if (atom === 'nil') return null;
    if (atom === 'true') return true;
    if (atom === 'false') return false;
    if (atom.startsWith(':')) return atom.slice(1);
    if (/^-?\d+(\.\d+)?([eE][-+]?\d+)?$/.test(atom)) return Number(atom);
    return fail(`an atom ${JSON.stringify(atom.slice(0, 40))} outside the export's subset`);
  };
  const v = value();
  ws();
  if (i < text.length) fail('text after the value');
  return v;
}

type Line = Record<string, unknown>;

/** The history of contract commands in a Jepsen file jobcheck exported. */
export async function jepsenHistory(
  source: AsyncIterable<Uint8Array | string> | Iterable<Uint8Array | string>,
  file: string,
): Promise<History<unknown, unknown>> {
  const open = new Map<number, { invoked: number; input: unknown; lane: number; line: number }>();
  const operations: Operation<unknown, unknown>[] = [];
  for await (const { text, line } of boundedLines(source, file)) {
    if (text.trim() === '') continue;
    let l: Line;
    try {
      const v = readEdn(text);
      if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new Error('not a map');
      l = v as Line;
    } catch (e) {
      throw new HistoryFileError(
        'not_edn',
        `${file}:${line}: not an EDN map of a Jepsen history (${(e as Error).message})`,
        line,
      );
    }
    if (l.process === 'nemesis') continue;
    const { type, id, time, process } = l;
    if (typeof id !== 'number' || typeof time !== 'number' || typeof process !== 'number')
      throw new HistoryFileError(
        'bad_line',
        `${file}:${line}: :id, :time and :process must be numbers (got ${text.slice(0, 60)})`,
        line,
      );
    if (type === 'invoke') {
      if (open.has(id)) throw new HistoryFileError('duplicate_id', `${file}:${line}: :id ${id} is invoked twice`, line);
      open.set(id, { invoked: time, input: l.value, lane: process, line });
      continue;
    }
    const o = open.get(id);
    if (o === undefined)
      throw new HistoryFileError(
        'return_without_invoke',
        `${file}:${line}: a completion of :id ${id} with no open :invoke`,
        line,
      );
    open.delete(id);
    if (type === 'ok') {
      if (time < o.invoked)
        throw new HistoryFileError(
          'returned_before_invoked',
          `${file}:${line}: :id ${id} completes before its invoke`,
          line,
        );
      operations.push({ id, lane: o.lane, input: o.input, invoked: o.invoked, returned: time, output: l.value });
    } else if (type === 'info' || type === 'fail')
      operations.push({ id, lane: o.lane, input: o.input, invoked: o.invoked });
    else throw new HistoryFileError('bad_line', `${file}:${line}: :type must be :invoke, :ok, :info or :fail`, line);
  }
  for (const [id, o] of open) operations.push({ id, lane: o.lane, input: o.input, invoked: o.invoked });
  return { operations };
}

/** A Jepsen file as the audit's events (a complete file: its end line is written here). */
export async function* readJepsen(
  source: AsyncIterable<Uint8Array | string> | Iterable<Uint8Array | string>,
  file: string,
  header: ContractHeader = {},
): AsyncGenerator<ReadEvent> {
  const history = await jepsenHistory(source, file);
  yield* readHistory([`${contractHistoryLines(history, { source: 'jepsen', ...header }).join('\n')}\n`], file);
}
