import { describe, expect, it } from 'vitest';
import { porcupineOperations, toEdn, toJepsen, toPorcupine } from './export.ts';
import type { History, Operation } from './history.ts';
import { jobStoreRoundHistory } from './jobModel.ts';

/** Two lanes: lane 1's claim gets no reply, so its tick runs as a new process. */
const TWO_LANES: History<unknown, unknown> = {
  operations: [
    {
      id: 1,
      lane: 0,
      input: { type: 'submit', id: 'a', account: 'x', key: 'k1', amount: 1, deadline: 4, now: 0 },
      invoked: 0,
      returned: 2,
      output: { ok: true, type: 'submit', id: 'a', seq: 1, duplicate: false },
    },
    { id: 2, lane: 1, input: { type: 'claim', worker: 'w2', now: 0 }, invoked: 1 },
    {
      id: 3,
      lane: 1,
      input: { type: 'tick', now: 1 },
      invoked: 3,
      returned: 4,
      output: { ok: false, code: 'clock_regressed', message: 'say "no"\nthen stop' },
    },
  ],
};

// Worked by hand from Jepsen's history documentation: invokes and completions in the order of
// instants, refusals are :ok (they may move the clock), the reply-less claim completes :info at
// the end (instant 5), and lane 1 runs its next request as process 1 + 2 lanes = 3.
const TWO_LANES_EDN = [
  '{:type :invoke, :f :submit, :process 0, :value {:type "submit", :id "a", :account "x", :key "k1", :amount 1, :deadline 4, :now 0}, :time 0, :index 0, :id 1}',
  '{:type :invoke, :f :claim, :process 1, :value {:type "claim", :worker "w2", :now 0}, :time 1, :index 1, :id 2}',
  '{:type :ok, :f :submit, :process 0, :value {:ok true, :type "submit", :id "a", :seq 1, :duplicate false}, :time 2, :index 2, :id 1}',
  '{:type :invoke, :f :tick, :process 3, :value {:type "tick", :now 1}, :time 3, :index 3, :id 3}',
  '{:type :ok, :f :tick, :process 3, :value {:ok false, :code "clock_regressed", :message "say \\"no\\"\\nthen stop"}, :time 4, :index 4, :id 3}',
  '{:type :info, :f :claim, :process 1, :value nil, :time 5, :index 5, :id 2}',
].join('\n');

// --- A tiny EDN reader: maps, vectors, keywords, strings, integers, floats, booleans, nil. ----------

type Edn = null | boolean | number | string | { keyword: string } | Edn[] | Map<Edn, Edn>;

function readEdn(text: string): Edn[] {
  let at = 0;
  const skip = (): void => {
    while (at < text.length && /[\s,]/.test(text[at] as string)) at++;
  };
  const value = (): Edn => {
    skip();
    const c = text[at];
    if (c === '{' || c === '[') {
      const close = c === '{' ? '}' : ']';
      at++;
      const items: Edn[] = [];
      for (;;) {
        skip();
        if (text[at] === close) break;
        if (at >= text.length) throw new Error(`unclosed ${c}`);
        items.push(value());
      }
      at++;
      if (c === '[') return items;
      if (items.length % 2 !== 0) throw new Error('a map with an odd number of forms');
      const map = new Map<Edn, Edn>();
      for (let i = 0; i < items.length; i += 2) {
        const k = items[i] as Edn;
        const key = typeof k === 'object' && k !== null && 'keyword' in k ? `:${k.keyword}` : k;
        if (map.has(key)) throw new Error(`duplicate key ${String(key)}`);
        map.set(key, items[i + 1] as Edn);
      }
      return map;
    }
    if (c === '"') {
      let s = '';
      at++;
      while (text[at] !== '"') {
        if (at >= text.length) throw new Error('unclosed string');
        if (text[at] === '\\') {
          const e = text[at + 1];
          if (e === 'u') {
            s += String.fromCharCode(Number.parseInt(text.slice(at + 2, at + 6), 16));
            at += 6;
            continue;
          }
          const escapes: Record<string, string> = { n: '\n', t: '\t', r: '\r', '"': '"', '\\': '\\' };
          const out = escapes[e as string];
          if (out === undefined) throw new Error(`bad escape \\${e}`);
          s += out;
          at += 2;
        } else s += text[at++];
      }
      at++;
      return s;
    }
    const token = /^[^\s,{}[\]"]+/.exec(text.slice(at))?.[0];
    if (token === undefined) throw new Error(`unexpected ${c} at ${at}`);
    at += token.length;
    if (token === 'nil') return null;
    if (token === 'true' || token === 'false') return token === 'true';
    if (token.startsWith(':')) return { keyword: token.slice(1) };
    if (/^-?\d+$/.test(token)) return Number(token);
    if (/^-?\d+(\.\d+)?([eE][-+]?\d+)?$/.test(token)) return Number(token);
    throw new Error(`not an EDN form this reader knows: ${token}`);
  };
  const forms: Edn[] = [];
  for (skip(); at < text.length; skip()) forms.push(value());
  return forms;
}

/** An EDN value as plain JSON-like data: keywords as ':name', maps as objects keyed by their printed key. */
function plain(v: Edn): unknown {
  if (v instanceof Map) return Object.fromEntries([...v].map(([k, x]) => [String(k).replace(/^:/, ''), plain(x)]));
  if (Array.isArray(v)) return v.map(plain);
  if (typeof v === 'object' && v !== null) return `:${v.keyword}`;
  return v;
}

describe('toJepsen', () => {
  it('writes a two-lane history as the hand-worked EDN: invokes, :ok replies, :info for no reply, a new process after a crash', () => {
    expect(toJepsen(TWO_LANES)).toBe(`${TWO_LANES_EDN}\n`);
  });

  it('reads back, one map a line, with every completion on its invoke process and no crashed process invoking again', () => {
    const history = jobStoreRoundHistory({
      config: { capacity: 3, maxAttempts: 2, leaseTicks: 2, backoffBase: 1, backoffCap: 4 },
      workers: 4,
      requests: 60,
      seed: 11,
      indefinite: 0.2,
    });
    const text = toJepsen(history);
    const lines = text.trimEnd().split('\n');
    const ops = lines.map((line) => {
      const forms = readEdn(line);
      expect(forms).toHaveLength(1);
      return plain(forms[0] as Edn) as {
        type: string;
        f: string;
        process: number;
        time: number;
        index: number;
        id: number;
        value: unknown;
      };
    });
    expect(ops).toHaveLength(history.operations.length * 2);
    const byId = new Map(history.operations.map((o) => [o.id, o]));
    const open = new Map<number, number>();
    const crashed = new Set<number>();
    let time = -1;
    ops.forEach((op, i) => {
      expect(op.index).toBe(i);
      expect(op.time).toBeGreaterThanOrEqual(time);
      time = op.time;
      const source = byId.get(op.id) as Operation<unknown, unknown>;
      expect(op.f).toBe(`:${(source.input as { type: string }).type}`);
      if (op.type === ':invoke') {
        expect(crashed.has(op.process), `process ${op.process} invokes after it crashed`).toBe(false);
        expect(open.has(op.process), `process ${op.process} invokes twice at once`).toBe(false);
        open.set(op.process, op.id);
        expect(op.value).toEqual(source.input);
        expect(op.time).toBe(source.invoked);
      } else {
        expect(open.get(op.process)).toBe(op.id);
        if (op.type === ':info') {
          expect(source.returned).toBeUndefined();
          expect(op.value).toBeNull();
          crashed.add(op.process);
        } else {
          expect(op.type).toBe(':ok');
          expect(op.value).toEqual(source.output);
          expect(op.time).toBe(source.returned);
          open.delete(op.process);
        }
      }
    });
    expect(crashed.size).toBeGreaterThan(0);
  });

  it('keeps a key that is no keyword as a string, and escapes control characters', () => {
    expect(toEdn({ 'a b': [1, 1.5, null, true], ok: 'x\u0001' })).toBe('{"a b" [1 1.5 nil true], :ok "x\\u0001"}');
  });
});

describe('toPorcupine', () => {
  it("gives each request Porcupine's Operation fields: lane as ClientId, instants as Call and Return, the end for no reply", () => {
    expect(porcupineOperations(TWO_LANES)).toEqual([
      {
        ClientId: 0,
        Input: TWO_LANES.operations[0]?.input,
        Call: 0,
        Output: TWO_LANES.operations[0]?.output,
        Return: 2,
        Metadata: { id: 1, lane: 0, indefinite: false },
      },
      {
        ClientId: 1,
        Input: { type: 'claim', worker: 'w2', now: 0 },
        Call: 1,
        Output: null,
        Return: 5,
        Metadata: { id: 2, lane: 1, indefinite: true },
      },
      {
        ClientId: 1,
        Input: { type: 'tick', now: 1 },
        Call: 3,
        Output: TWO_LANES.operations[2]?.output,
        Return: 4,
        Metadata: { id: 3, lane: 1, indefinite: false },
      },
    ]);
  });

  it('writes a JSON array, one operation a line, with integer times', () => {
    const text = toPorcupine(TWO_LANES);
    const parsed = JSON.parse(text) as { Call: number; Return: number }[];
    expect(parsed).toEqual(porcupineOperations(TWO_LANES));
    expect(text.split('\n')).toHaveLength(parsed.length + 3);
    for (const op of parsed) expect(Number.isSafeInteger(op.Call) && Number.isSafeInteger(op.Return)).toBe(true);
    expect(toPorcupine({ operations: [] })).toBe('[]\n');
  });
});

/** Worker lane 1 cut off (hold) around its claim, which gets no reply; lane 0 claims meanwhile. */
const WITH_FAULT: History<unknown, unknown> = {
  operations: [
    {
      id: 1,
      lane: 0,
      input: { type: 'submit', id: 'a', account: 'x', key: 'k1', amount: 1, deadline: 4, now: 0 },
      invoked: 0,
      returned: 1,
      output: { ok: true, type: 'submit', id: 'a', seq: 1, duplicate: false },
    },
    { id: 2, lane: 1, input: { type: 'claim', worker: 'w2', now: 1 }, invoked: 3 },
    {
      id: 3,
      lane: 0,
      input: { type: 'claim', worker: 'w1', now: 1 },
      invoked: 4,
      returned: 5,
      output: { ok: true, type: 'claim', job: null },
    },
  ],
  nemesis: [
    { phase: 'start', at: 2, fault: { kind: 'partition', target: { kind: 'worker', lane: 1 }, mode: 'hold' } },
    {
      phase: 'end',
      at: 6,
      fault: { kind: 'partition', target: { kind: 'worker', lane: 1 }, mode: 'hold' },
      note: 'held 14 bytes',
    },
  ],
};

// Worked by hand from jepsen-io/history's README (a nemesis op is :info at invoke and completion,
// :process :nemesis) and jepsen.nemesis.combined's :f names; the reply-less claim completes :info
// one past the last instant, the fault's end (6) included.
const FAULT = '{:kind "partition", :target {:kind "worker", :lane 1}, :mode "hold"}';
const WITH_FAULT_EDN = [
  '{:type :invoke, :f :submit, :process 0, :value {:type "submit", :id "a", :account "x", :key "k1", :amount 1, :deadline 4, :now 0}, :time 0, :index 0, :id 1}',
  '{:type :ok, :f :submit, :process 0, :value {:ok true, :type "submit", :id "a", :seq 1, :duplicate false}, :time 1, :index 1, :id 1}',
  `{:type :info, :f :start-partition, :process :nemesis, :value ${FAULT}, :time 2, :index 2}`,
  `{:type :info, :f :start-partition, :process :nemesis, :value ${FAULT}, :time 2, :index 3}`,
  '{:type :invoke, :f :claim, :process 1, :value {:type "claim", :worker "w2", :now 1}, :time 3, :index 4, :id 2}',
  '{:type :invoke, :f :claim, :process 0, :value {:type "claim", :worker "w1", :now 1}, :time 4, :index 5, :id 3}',
  '{:type :ok, :f :claim, :process 0, :value {:ok true, :type "claim", :job nil}, :time 5, :index 6, :id 3}',
  `{:type :info, :f :stop-partition, :process :nemesis, :value ${FAULT}, :time 6, :index 7}`,
  '{:type :info, :f :stop-partition, :process :nemesis, :value "held 14 bytes", :time 6, :index 8}',
  '{:type :info, :f :claim, :process 1, :value nil, :time 7, :index 9, :id 2}',
].join('\n');

describe('faults in the exports', () => {
  it("writes each fault's start and end as a :nemesis :info pair, as Jepsen does, between the requests", () => {
    expect(toJepsen(WITH_FAULT)).toBe(`${WITH_FAULT_EDN}\n`);
    const nemesis = toJepsen(WITH_FAULT)
      .trimEnd()
      .split('\n')
      .map((line) => plain(readEdn(line)[0] as Edn) as { process: unknown; type: string; f: string })
      .filter((op) => op.process === ':nemesis');
    expect(nemesis.map((op) => `${op.type} ${op.f}`)).toEqual([
      ':info :start-partition',
      ':info :start-partition',
      ':info :stop-partition',
      ':info :stop-partition',
    ]);
  });

  it("names kill, pause, latency and disk-full by jepsen.nemesis.combined's :f", () => {
    const broker = { kind: 'broker' } as const;
    const fs = (['kill', 'pause', 'disk-full'] as const).flatMap((kind) =>
      (['start', 'end'] as const).map(
        (phase) =>
          toJepsen({ operations: [], nemesis: [{ phase, at: 0, fault: { kind, target: broker } }] }).match(
            /:f (:[a-z-]+)/,
          )?.[1],
      ),
    );
    expect(fs).toEqual([':kill', ':start', ':pause', ':resume', ':start-disk-full', ':stop-disk-full']);
    const latency = { kind: 'latency', target: { kind: 'worker', lane: 0 }, ms: 50 } as const;
    expect(toJepsen({ operations: [], nemesis: [{ phase: 'start', at: 0, fault: latency }] })).toContain(
      ':f :start-packet, :process :nemesis, :value {:kind "latency", :target {:kind "worker", :lane 0}, :ms 50}',
    );
  });

  it("leaves faults out of Porcupine's operations, which have no place for them, and ends a reply-less request after the last fault", () => {
    const ops = porcupineOperations(WITH_FAULT);
    expect(ops.map((o) => o.Metadata.id)).toEqual([1, 2, 3]);
    expect(ops[1]).toMatchObject({ Call: 3, Return: 7, Output: null });
    expect(JSON.parse(toPorcupine(WITH_FAULT))).toEqual(ops);
  });
});
