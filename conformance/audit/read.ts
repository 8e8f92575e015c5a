/**
 * Reads a `jobcheck-history/1` file as a stream: a bounded line splitter (node's readline would
 * hold a line of any length; here a line past `maxLineBytes` is an error), each line validated
 * once with the zod schemas of contract/history.ts, invokes paired with their returns by `id`.
 * What it yields is in file order: the header, then each operation once it is complete (an
 * invoke still open when the file ends becomes an operation whose outcome is `unknown`), then
 * whether the file ended with a matching `end` line.
 *
 * Invariants: memory holds one line and the open invokes (at most `maxPending`), never the file;
 * every refusal is a HistoryFileError naming the file, the line and the bad value.
 */
import {
  HISTORY_FORMAT,
  type HistoryHeader,
  type HistoryInvoke,
  type HistoryLine,
  historyLineSchema,
} from '../../contract/history.ts';
import type { z } from 'zod';
import type { AbsentField } from './absent.ts';
import type { AuditOp } from './types.ts';
import { HistoryFileError } from './types.ts';

/** Longest line read (a line is one event: a few hundred bytes). */
export const MAX_LINE_BYTES = 64 * 1024;
/** Most invokes open at once (each waits for its return). */
export const MAX_PENDING = 1_000_000;

/** What the reader yields, in file order. */
export type ReadEvent =
  | {
      readonly type: 'header';
      readonly header: HistoryHeader;
      readonly line: number;
      /** Fields the whole source lacks (an importer of spans says which; absent.ts). */
      readonly absent?: readonly AbsentField[];
    }
  | { readonly type: 'op'; readonly op: AuditOp; readonly line: number }
  | { readonly type: 'end'; readonly complete: boolean; readonly lines: number; readonly file?: string };

/** Limits of one read. */
export interface ReadOptions {
  readonly maxLineBytes?: number;
  readonly maxPending?: number;
}

/** The lines of a byte stream, 1-based, each within `maxBytes` (a `\r` before `\n` dropped). */
export async function* boundedLines(
  source: AsyncIterable<Uint8Array | string> | Iterable<Uint8Array | string>,
  file: string,
  maxBytes: number = MAX_LINE_BYTES,
): AsyncGenerator<{ readonly text: string; readonly line: number }> {
  const decoder = new TextDecoder('utf-8', { fatal: false });
  let parts: Uint8Array[] = [];
  let held = 0;
  let line = 0;
  const tooLong = (): HistoryFileError =>
    new HistoryFileError('line_too_long', `${file}:${line + 1}: a line longer than ${maxBytes} bytes`, line + 1);
  const take = (): string => {
    const joined = Buffer.concat(parts);
    parts = [];
    held = 0;
    const text = decoder.decode(joined);
    return text.endsWith('\r') ? text.slice(0, -1) : text;
  };
  for await (const chunk of source) {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk, 'utf-8') : chunk;
    let from = 0;
    for (let nl = bytes.indexOf(10, from); nl !== -1; nl = bytes.indexOf(10, from)) {
      if (held + nl - from > maxBytes) throw tooLong();
      parts.push(bytes.subarray(from, nl));
      line++;
      yield { text: take(), line };
      from = nl + 1;
    }
    if (from < bytes.length) {
      held += bytes.length - from;
      if (held > maxBytes) throw tooLong();
      parts.push(bytes.slice(from));
    }
  }
  if (held > 0) {
    line++;
    yield { text: take(), line };
  }
}

const clip = (value: unknown): string => {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
};

/** One line's JSON value, or the error `not_json` naming the line. Pure. */
export function jsonOfLine(text: string, file: string, line: number): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new HistoryFileError('not_json', `${file}:${line}: not a JSON value (got ${clip(text)})`, line);
  }
}

/** What a schema's first issue with `value` says: where, what, and the value found there. Pure. */
export function issueText(error: z.ZodError, value: unknown): string {
  const issue = error.issues[0];
  const path = issue?.path ?? [];
  let at: unknown = value;
  for (const k of path)
    at = typeof at === 'object' && at !== null ? (at as Record<PropertyKey, unknown>)[k] : undefined;
  const where = path.length === 0 ? 'the line' : path.map(String).join('.');
  const got = issue?.code === 'unrecognized_keys' ? clip(issue.keys) : clip(at);
  return `${where} ${issue?.message ?? 'is invalid'} (got ${got})`;
}

/** One line as a HistoryLine, or the error naming what is wrong with it. Pure. */
export function parseHistoryLine(text: string, file: string, line: number): HistoryLine {
  const value = jsonOfLine(text, file, line);
  const read = historyLineSchema.safeParse(value);
  if (read.success) return read.data;
  throw new HistoryFileError('bad_line', `${file}:${line}: ${issueText(read.error, value)}`, line);
}

type JobFields = Omit<AuditOp, 'kind' | 'file' | 'id' | 'outcome' | 'invokedAt' | 'returnedAt' | 'lines'>;
type Fields = Omit<Partial<HistoryInvoke>, 'type'>;

function fields(a: Fields, b: Fields = {}): JobFields {
  return {
    job: b.job ?? a.job,
    token: b.token ?? a.token,
    account: b.account ?? a.account,
    key: b.key ?? a.key,
    payloadHash: b.payloadHash ?? a.payloadHash,
    attempt: b.attempt ?? a.attempt,
    leaseUntil: b.leaseUntil ?? a.leaseUntil,
    deadline: b.deadline ?? a.deadline,
    applied: b.applied ?? a.applied,
    next: b.next ?? a.next,
    worker: b.worker ?? a.worker,
    host: b.host ?? a.host,
  };
}

/** An invoke whose return has not come, with its line. */
interface Open {
  readonly invoke: HistoryInvoke;
  readonly line: number;
}

/**
 * Reads a history from `source` (the bytes of `file`, whose name the errors carry). Throws
 * HistoryFileError for the first line that is not one of a history, or out of place.
 */
export async function* readHistory(
  source: AsyncIterable<Uint8Array | string> | Iterable<Uint8Array | string>,
  file: string,
  options: ReadOptions = {},
): AsyncGenerator<ReadEvent> {
  const maxPending = options.maxPending ?? MAX_PENDING;
  const open = new Map<string, Open>();
  let header = false;
  let ended = false;
  let last = 0;
  for await (const { text, line } of boundedLines(source, file, options.maxLineBytes)) {
    last = line;
    if (text.trim() === '') continue;
    const l = parseHistoryLine(text, file, line);
    if (ended) throw new HistoryFileError('after_end', `${file}:${line}: a line after the end line`, line);
    if (!header && l.type !== 'header')
      throw new HistoryFileError(
        'no_header',
        `${file}:${line}: the first line must be the header {"type":"header","format":"${HISTORY_FORMAT}"} (got a ${l.type} line)`,
        line,
      );
    switch (l.type) {
      case 'header':
        if (header) throw new HistoryFileError('header_twice', `${file}:${line}: a second header line`, line);
        header = true;
        yield { type: 'header', header: l, line };
        break;
      case 'invoke':
        if (open.has(l.id))
          throw new HistoryFileError(
            'duplicate_id',
            `${file}:${line}: id ${clip(l.id)} is already open since line ${open.get(l.id)?.line}`,
            line,
          );
        if (open.size >= maxPending)
          throw new HistoryFileError(
            'too_many_pending',
            `${file}:${line}: more than ${maxPending} invokes without their returns`,
            line,
          );
        open.set(l.id, { invoke: l, line });
        break;
      case 'return': {
        const o = open.get(l.id);
        if (o === undefined)
          throw new HistoryFileError(
            'return_without_invoke',
            `${file}:${line}: a return for id ${clip(l.id)} with no open invoke before it (its invoke is missing, comes later, or this return repeats one)`,
            line,
          );
        if (l.at < o.invoke.at)
          throw new HistoryFileError(
            'returned_before_invoked',
            `${file}:${line}: id ${clip(l.id)} returned at ${l.at}, before its invoke at ${o.invoke.at} (line ${o.line})`,
            line,
          );
        open.delete(l.id);
        const { type: _t, id: _i, at: _a, outcome: _o, ...reply } = l;
        yield {
          type: 'op',
          line,
          op: {
            file,
            kind: o.invoke.op,
            id: l.id,
            ...fields(o.invoke, reply),
            outcome: l.outcome,
            invokedAt: o.invoke.at,
            returnedAt: l.outcome === 'unknown' ? undefined : l.at,
            lines: [o.line, line],
          },
        };
        break;
      }
      case 'op': {
        if (l.returnedAt < l.invokedAt)
          throw new HistoryFileError(
            'returned_before_invoked',
            `${file}:${line}: id ${clip(l.id)} returned at ${l.returnedAt}, before its invoke at ${l.invokedAt}`,
            line,
          );
        if (open.has(l.id))
          throw new HistoryFileError(
            'duplicate_id',
            `${file}:${line}: id ${clip(l.id)} is already open since line ${open.get(l.id)?.line}`,
            line,
          );
        yield {
          type: 'op',
          line,
          op: {
            file,
            kind: l.op,
            id: l.id,
            ...fields(l),
            outcome: l.outcome,
            invokedAt: l.invokedAt,
            returnedAt: l.outcome === 'unknown' ? undefined : l.returnedAt,
            lines: [line],
          },
        };
        break;
      }
      case 'broker':
        yield {
          type: 'op',
          line,
          op: {
            file,
            kind: l.event,
            id: `broker@${line}`,
            ...fields({
              job: l.job,
              ...(l.token === undefined ? {} : { token: l.token }),
              ...(l.host === undefined ? {} : { host: l.host }),
            }),
            outcome: 'ok',
            invokedAt: l.at,
            returnedAt: l.at,
            lines: [line],
          },
        };
        break;
      case 'end':
        if (l.lines !== line - 1)
          throw new HistoryFileError(
            'end_count',
            `${file}:${line}: the end line counts ${l.lines} line(s) before it, but ${line - 1} came (lines lost or repeated)`,
            line,
          );
        ended = true;
        break;
    }
  }
  if (!header) throw new HistoryFileError('no_header', `${file}: no header line (an empty file?)`, 0);
  // Invokes that never returned: their outcome is unknown, in the order they were invoked.
  for (const o of [...open.values()].sort((a, b) => a.line - b.line)) {
    yield {
      type: 'op',
      line: o.line,
      op: {
        file,
        kind: o.invoke.op,
        id: o.invoke.id,
        ...fields(o.invoke),
        outcome: 'unknown',
        invokedAt: o.invoke.at,
        returnedAt: undefined,
        lines: [o.line],
      },
    };
  }
  yield { type: 'end', complete: ended, lines: last, file };
}
