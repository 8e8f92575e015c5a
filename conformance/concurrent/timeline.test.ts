import { describe, expect, it } from 'vitest';
import type { History, Operation } from './history.ts';
import { jobModel, jobStoreRoundHistory } from './jobModel.ts';
import { kvRegister } from './kvRegister.ts';
import type { KvInput, KvOutput } from './kvRegister.ts';
import { checkLinearizability } from './linearizability.ts';
import { renderTimeline } from './timeline.ts';

interface Element {
  readonly name: string;
  readonly attributes: Record<string, string>;
  readonly children: Element[];
  text: string;
  readonly parent: Element | undefined;
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'" };
const decode = (s: string): string =>
  s.replace(/&([^;]*);?/g, (whole, name: string) => {
    const v = ENTITIES[name];
    if (v === undefined || !whole.endsWith(';')) throw new Error(`bad entity ${whole}`);
    return v;
  });

/**
 * A strict parser for the XML subset the timeline writes (elements, double-quoted attributes,
 * text, the five entities): it throws on anything unbalanced or malformed, so a passing parse
 * means the fragment is well-formed.
 */
function parse(xml: string): Element {
  const root: Element = { name: '#root', attributes: {}, children: [], text: '', parent: undefined };
  let current = root;
  const token = /<\/([\w-]+)\s*>|<([\w-]+)((?:\s+[\w:-]+="[^"<]*")*)\s*(\/?)>|([^<]+)/gy;
  let m: RegExpExecArray | null;
  let at = 0;
  while (at < xml.length) {
    token.lastIndex = at;
    m = token.exec(xml);
    if (m === null) throw new Error(`malformed markup at ${at}: ${xml.slice(at, at + 40)}`);
    at = token.lastIndex;
    const [, close, open, attrs, selfClose, text] = m;
    if (close !== undefined) {
      if (current.name !== close) throw new Error(`</${close}> closes <${current.name}>`);
      current = current.parent as Element;
    } else if (open !== undefined) {
      const attributes: Record<string, string> = {};
      for (const a of (attrs ?? '').matchAll(/([\w:-]+)="([^"]*)"/g)) {
        if ((a[1] as string) in attributes) throw new Error(`repeated attribute ${a[1]}`);
        attributes[a[1] as string] = decode(a[2] as string);
      }
      const el: Element = { name: open, attributes, children: [], text: '', parent: current };
      current.children.push(el);
      if (selfClose !== '/') current = el;
    } else if (text !== undefined) {
      current.text += decode(text);
    }
  }
  if (current !== root) throw new Error(`<${current.name}> is never closed`);
  return root;
}

const all = (el: Element, pred: (e: Element) => boolean): Element[] => [
  ...(pred(el) ? [el] : []),
  ...el.children.flatMap((c) => all(c, pred)),
];
const hasClass = (el: Element, cls: string): boolean => (el.attributes.class ?? '').split(' ').includes(cls);
const textOf = (el: Element): string => el.text + el.children.map(textOf).join('');

/** Checks that each operation appears exactly once, inside the group of its own lane. */
function expectEachOperationOnceOnItsLane<I, O>(html: string, history: History<I, O>): Element[] {
  const root = parse(html);
  const bars = all(root, (e) => e.name === 'g' && hasClass(e, 'op'));
  expect(bars.length).toBe(history.operations.length);
  for (const op of history.operations) {
    const mine = bars.filter((b) => b.attributes['data-id'] === String(op.id));
    expect(mine.length).toBe(1);
    const bar = mine[0] as Element;
    expect(bar.attributes['data-lane']).toBe(String(op.lane));
    const laneGroup = bar.parent as Element;
    expect(hasClass(laneGroup, 'lane')).toBe(true);
    expect(laneGroup.attributes['data-lane']).toBe(String(op.lane));
    expect(hasClass(bar, op.returned === undefined ? 'indefinite' : 'returned')).toBe(true);
  }
  return bars;
}

const op = (
  id: number,
  lane: number,
  input: KvInput,
  invoked: number,
  returned?: number,
  output?: KvOutput,
): Operation<KvInput, KvOutput> =>
  returned === undefined
    ? { id, lane, input, invoked }
    : { id, lane, input, invoked, returned, output: output as KvOutput };

describe('the lanes timeline', () => {
  it('draws each operation once on its lane, numbered in the order found, indefinite ones marked', () => {
    const h: History<KvInput, KvOutput> = {
      operations: [
        op(1, 0, { type: 'put', key: 'x', value: '<a&b>' }, 0, 3, { type: 'put' }),
        op(2, 1, { type: 'get', key: 'x' }, 1, 2, { type: 'get', value: null }),
        op(3, 2, { type: 'put', key: 'x', value: 'lost' }, 4),
        op(4, 1, { type: 'get', key: 'x' }, 5, 6, { type: 'get', value: '<a&b>' }),
      ],
    };
    const r = checkLinearizability(kvRegister, h);
    expect(r.verdict).toBe('linearizable');
    const html = renderTimeline(h, r);
    const bars = expectEachOperationOnceOnItsLane(html, h);
    if (r.verdict !== 'linearizable') return;
    for (const bar of bars) {
      const id = Number(bar.attributes['data-id']);
      const k = r.order.indexOf(id);
      expect(bar.attributes['data-order']).toBe(k < 0 ? undefined : String(k + 1));
    }
    // Text is escaped, never markup.
    expect(textOf(parse(html))).toContain('value=<a&b>');
    const indefinite = bars.find((b) => b.attributes['data-id'] === '3') as Element;
    expect(textOf(indefinite)).toContain('no reply');
  });

  it('highlights the operations the search was stuck on, with the reply the model gives', () => {
    const h: History<KvInput, KvOutput> = {
      operations: [
        op(1, 0, { type: 'put', key: 'x', value: 'a' }, 0, 1, { type: 'put' }),
        op(2, 1, { type: 'put', key: 'x', value: 'b' }, 2, 3, { type: 'put' }),
        op(3, 2, { type: 'get', key: 'x' }, 4, 5, { type: 'get', value: 'a' }),
      ],
    };
    const r = checkLinearizability(kvRegister, h);
    expect(r.verdict).toBe('not_linearizable');
    if (r.verdict !== 'not_linearizable') return;
    const html = renderTimeline(h, r);
    const bars = expectEachOperationOnceOnItsLane(html, h);
    const stuck = bars.filter((b) => hasClass(b, 'stuck'));
    expect(stuck.map((b) => b.attributes['data-id'])).toEqual(r.witness.stuck.map((s) => String(s.id)));
    expect(textOf(stuck[0] as Element)).toContain('the model replies get value=b');
    expect(parse(html).children[0]?.attributes['data-verdict']).toBe('not_linearizable');
  });

  it('draws a recorded job-store history, whatever its size, as well-formed markup', () => {
    const config = { capacity: 8, maxAttempts: 2, leaseTicks: 4, backoffBase: 1, backoffCap: 2 };
    const h = jobStoreRoundHistory({ config, workers: 4, requests: 60, seed: 3, indefinite: 0.1 });
    const r = checkLinearizability(jobModel(config), h);
    expectEachOperationOnceOnItsLane(renderTimeline(h, r), h);
    expectEachOperationOnceOnItsLane(renderTimeline(h), h);
  });
});
