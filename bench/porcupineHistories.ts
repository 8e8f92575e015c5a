/**
 * Porcupine's own test histories read as the checker's histories, for the audit benchmark. They
 * are not in this repository: the benchmark reads them from the `test_data` folder of a Porcupine
 * checkout the user names (docs/audit-bench.md says how to get it and under what licence).
 * - `jepsen/etcd_NNN.log`: Jepsen's log of one etcd register (read, write, compare-and-set), lines
 *   `INFO jepsen.util - <process> :invoke|:ok|:fail|:info :read|:write|:cas <value>`; checked
 *   with kvRegister on one key. An `:info` (or a read that failed `:timed-out`) has no reply: an
 *   indefinite operation, as Porcupine reads it.
 * - `kv/cNN-{ok,bad}.txt`: a key-value store's log (get, put, append), one EDN map a line; checked
 *   with `kvAppend` below, partitioned by key as Porcupine's own key-value model is. A key never
 *   written reads as the empty string.
 * Instants are line numbers. A line that is neither is an error naming the file and line.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { History, Operation, SequentialModel } from '../conformance/concurrent/history.ts';
import type { KvInput, KvOutput } from '../conformance/concurrent/kvRegister.ts';
import type { SearchHints } from '../conformance/concurrent/linearizability.ts';

/** A request of Porcupine's key-value test store. */
export type AppendInput =
  | { readonly type: 'get'; readonly key: string }
  | { readonly type: 'put'; readonly key: string; readonly value: string }
  | { readonly type: 'append'; readonly key: string; readonly value: string };

/** Its reply: a get's value, or nothing. */
export type AppendOutput = { readonly value: string | undefined };

/** One key's value (the model is partitioned by key, so a state is one key's). */
export const kvAppend: SequentialModel<ReadonlyMap<string, string>, AppendInput, AppendOutput> &
  SearchHints<ReadonlyMap<string, string>, AppendInput, AppendOutput> = {
  init: () => new Map(),
  step(state, input) {
    const now = state.get(input.key) ?? '';
    if (input.type === 'get') return { state, output: { value: now } };
    const next = input.type === 'put' ? input.value : now + input.value;
    return { state: new Map(state).set(input.key, next), output: { value: undefined } };
  },
  key: (state) => JSON.stringify([...state.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))),
  equal: (expected, observed) => expected.value === observed.value,
  stableWhenUnchanged: (input) => input.type === 'get',
  partitionKey: (input) => input.key,
};

/** A history file that is not one of Porcupine's. */
export class PorcupineFileError extends Error {
  override name = 'PorcupineFileError' as const;
}

/** Pairs invokes with their completions by process; what stays open is indefinite. */
class Pairs<I, O> {
  private readonly open = new Map<string, { id: number; input: I; invoked: number }>();
  readonly operations: Operation<I, O>[] = [];
  private next = 0;

  invoke(process: string, input: I, at: number): void {
    this.close(process);
    this.open.set(process, { id: this.next++, input, invoked: at });
  }

  complete(process: string, at: number, output: O | undefined, where: string): void {
    const o = this.open.get(process);
    if (o === undefined) throw new PorcupineFileError(`${where}: a completion of process ${process} with no invoke`);
    this.open.delete(process);
    this.operations.push(
      output === undefined
        ? { id: o.id, lane: Number(process), input: o.input, invoked: o.invoked }
        : { id: o.id, lane: Number(process), input: o.input, invoked: o.invoked, returned: at, output },
    );
  }

  /** Ends an invoke with no reply (indefinite). */
  close(process: string): void {
    const o = this.open.get(process);
    if (o === undefined) return;
    this.open.delete(process);
    this.operations.push({ id: o.id, lane: Number(process), input: o.input, invoked: o.invoked });
  }

  done(): Operation<I, O>[] {
    for (const p of [...this.open.keys()]) this.close(p);
    return this.operations;
  }
}

const ETCD = /^INFO\s+jepsen\.util\s+-\s+(\d+)\s+:(invoke|ok|fail|info)\s+:(read|write|cas)\s+(.*)$/;

/** An etcd log as a kvRegister history on key `x`. */
export function etcdHistory(text: string, file: string): History<KvInput, KvOutput> {
  const pairs = new Pairs<KvInput, KvOutput>();
  text.split('\n').forEach((line, i) => {
    if (line.trim() === '') return;
    const where = `${file}:${i + 1}`;
    const m = ETCD.exec(line);
    if (m === null) throw new PorcupineFileError(`${where}: not a Jepsen etcd line`);
    const [, process = '', type, f, arg = ''] = m;
    const cas = /^\[(\d+) (\d+)\]$/.exec(arg);
    if (type === 'invoke') {
      if (f === 'read') pairs.invoke(process, { type: 'get', key: 'x' }, i);
      else if (f === 'write') pairs.invoke(process, { type: 'put', key: 'x', value: arg }, i);
      else if (cas !== null)
        pairs.invoke(process, { type: 'cas', key: 'x', expect: cas[1] ?? '', value: cas[2] ?? '' }, i);
      else throw new PorcupineFileError(`${where}: a cas without [from to]`);
    } else if (type === 'info' || arg === ':timed-out') pairs.complete(process, i, undefined, where);
    else if (f === 'read') pairs.complete(process, i, { type: 'get', value: arg === 'nil' ? null : arg }, where);
    else if (f === 'write') pairs.complete(process, i, { type: 'put' }, where);
    else pairs.complete(process, i, { type: 'cas', swapped: type === 'ok' }, where);
  });
  return { operations: pairs.done() };
}

const KV =
  /^\{:process (\d+), :type :(invoke|ok|info|fail), :f :(get|put|append), :key "([^"]*)", :value (nil|"[^"]*")\}$/;

/** A key-value log as a kvAppend history. */
export function kvHistory(text: string, file: string): History<AppendInput, AppendOutput> {
  const pairs = new Pairs<AppendInput, AppendOutput>();
  text.split('\n').forEach((line, i) => {
    if (line.trim() === '') return;
    const where = `${file}:${i + 1}`;
    const m = KV.exec(line);
    if (m === null) throw new PorcupineFileError(`${where}: not a key-value log line`);
    const [, process = '', type, f, key = '', raw = 'nil'] = m;
    const value = raw === 'nil' ? undefined : raw.slice(1, -1);
    if (type === 'invoke')
      pairs.invoke(
        process,
        f === 'get' ? { type: 'get', key } : { type: f === 'put' ? 'put' : 'append', key, value: value ?? '' },
        i,
      );
    else if (type === 'ok') pairs.complete(process, i, { value: f === 'get' ? (value ?? '') : undefined }, where);
    else pairs.complete(process, i, undefined, where);
  });
  return { operations: pairs.done() };
}

/** The files of one kind in a Porcupine `test_data` folder, sorted by name. */
export function porcupineFiles(dir: string, kind: 'etcd' | 'kv'): { name: string; text: string }[] {
  const sub = join(dir, kind === 'etcd' ? 'jepsen' : 'kv');
  return readdirSync(sub)
    .filter((n) => (kind === 'etcd' ? /^etcd_\d+\.log$/.test(n) : /\.txt$/.test(n)))
    .sort()
    .map((name) => ({ name, text: readFileSync(join(sub, name), 'utf8') }));
}
