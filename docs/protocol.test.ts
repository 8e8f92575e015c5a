import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { isProtocolMessageType } from '../contract/protocol.ts';
import { comparableReply } from '../conformance/lockstep/compare.ts';
import { Peer } from '../conformance/protocol/index.ts';
import { splitCarriedSnapshot } from '../conformance/protocol/replies.ts';
import { findPython, pythonCommand } from '../examples/python/interpreter.ts';
import { modelStoreMaker } from '../conformance/stores/model.ts';
import { answerLine } from '../impl/protocol/index.ts';
import type { Session } from '../impl/protocol/index.ts';
import { protocolLimitsTable } from './tools/protocolLimits.ts';

/**
 * The exchanges in docs/protocol.md are executed: each ```session block in a fresh process of the
 * Python example, and the unlabelled fragments of section 4 (read in order, they form one session
 * too). Replies are compared without `message`, as the harness compares them. Every exchange,
 * refusals included, is also answered by the reference model behind the protocol server
 * (`jobcheck serve --store model`), so the page cannot drift from the contract.
 */
interface Exchange {
  readonly send: string;
  readonly expect: string;
}

const page = readFileSync(new URL('./protocol.md', import.meta.url), 'utf8');
const blocks = [...page.matchAll(/^```([\w-]*)\n([\s\S]*?)^```$/gm)].map((m) => ({
  lang: m[1] ?? '',
  lines: (m[2] ?? '').trimEnd().split('\n'),
}));
const isExchange = (lines: readonly string[]): boolean =>
  lines.length > 0 && lines.every((l) => l.startsWith('> ') || l.startsWith('< '));

function exchanges(lines: readonly string[]): Exchange[] {
  const out: Exchange[] = [];
  for (let i = 0; i < lines.length; i += 2) {
    const send = lines[i] ?? '';
    const reply = lines[i + 1] ?? '';
    if (!send.startsWith('> ') || !reply.startsWith('< '))
      throw new Error(`docs/protocol.md: expected a "> " line followed by a "< " line at ${send}`);
    out.push({ send: send.slice(2), expect: reply.slice(2) });
  }
  return out;
}

const sessions: { name: string; exchanges: Exchange[] }[] = [
  ...blocks
    .filter((b) => b.lang === 'session')
    .map((b, i) => ({ name: `session block ${i + 1}`, exchanges: exchanges(b.lines) })),
  {
    name: 'the fragments of section 4',
    exchanges: blocks.filter((b) => b.lang === '' && isExchange(b.lines)).flatMap((b) => exchanges(b.lines)),
  },
];

const python = findPython();
const peers: Peer[] = [];
afterAll(() => Promise.all(peers.map((p) => p.end())));

/**
 * A reply as the harness compares it: without a rejection's `message`, without the optional `path`
 * of a protocol refusal, and without the name an implementation gives itself in `hello`.
 */
/** Whether a request line is hello, snapshot or restore (any other is answered as a command). */
function isProtocolRequest(line: string): boolean {
  try {
    const type = (JSON.parse(line) as { type?: unknown } | null)?.type;
    return isProtocolMessageType(type);
  } catch {
    return false;
  }
}

function comparable(reply: unknown): unknown {
  const r = comparableReply(reply);
  if (typeof r !== 'object' || r === null) return r;
  const { path: _path, implementation: _name, ...rest } = r as Record<string, unknown>;
  return rest;
}

describe('docs/protocol.md', () => {
  it('holds five session blocks and the section 4 fragments', () => {
    expect(sessions.map((s) => s.exchanges.length)).toEqual([16, 4, 6, 10, 6, 6]);
  });

  describe.skipIf(python === undefined)(
    `replayed against examples/python/jobstore.py${python === undefined ? ' (skipped: python3 is not installed)' : ''}`,
    () => {
      it.each(sessions.map((s) => [s.name, s] as const))(
        '%s: every reply is the documented one',
        async (_name, session) => {
          const peer = new Peer(pythonCommand(python as string, 'examples/python/jobstore.py'));
          peers.push(peer);
          let replySnapshots = false;
          for (const x of session.exchanges) {
            let got = JSON.parse(await peer.request(x.send, 10_000)) as Record<string, unknown>;
            // The example says replySnapshots in jobcheck/1: its command replies carry the snapshot a
            // request sent next returns, which the harness takes out (section 4, "Snapshots in replies").
            if (got['type'] === 'hello' && got['ok'] === true) {
              // pipelining changes nothing a request at a time (section 4, "Requests written ahead").
              const { replySnapshots: said, pipelining: _pipelining, ...rest } = got;
              replySnapshots = said === true;
              got = rest;
            } else if (replySnapshots && !isProtocolRequest(x.send)) {
              const split = splitCarriedSnapshot(got);
              if (!split.ok) throw new Error(`${x.send}: ${split.problem}`);
              const asked = JSON.parse(await peer.request('{"type":"snapshot"}', 10_000)) as { snapshot?: unknown };
              expect({ send: x.send, snapshot: split.value.snapshot }).toEqual({
                send: x.send,
                snapshot: asked.snapshot,
              });
              got = split.value.reply as Record<string, unknown>;
            }
            expect({ send: x.send, reply: comparable(got) }).toEqual({
              send: x.send,
              reply: comparable(JSON.parse(x.expect)),
            });
          }
        },
      );
    },
  );

  it.skipIf(python === undefined)(
    'shows what the Python example answers with replySnapshots, snapshots included',
    async () => {
      const block = blocks.filter((b) => b.lang === 'reply-snapshots');
      expect(block).toHaveLength(1);
      const peer = new Peer(pythonCommand(python as string, 'examples/python/jobstore.py'));
      peers.push(peer);
      for (const x of exchanges(block[0]?.lines ?? [])) {
        const got = JSON.parse(await peer.request(x.send, 10_000)) as unknown;
        expect({ send: x.send, reply: got }).toEqual({ send: x.send, reply: JSON.parse(x.expect) });
      }
    },
  );

  it.skipIf(python === undefined)(
    'shows what the Python example answers to requests written ahead, each group of requests in one write',
    async () => {
      const block = blocks.filter((b) => b.lang === 'written-ahead');
      expect(block).toHaveLength(1);
      const lines = block[0]?.lines ?? [];
      // Groups: consecutive "> " lines, written at once, then their "< " replies, in order.
      const groups: { send: string[]; expect: string[] }[] = [];
      for (const line of lines) {
        const last = groups[groups.length - 1];
        if (line.startsWith('> ') && (last === undefined || last.expect.length > 0))
          groups.push({ send: [line.slice(2)], expect: [] });
        else if (line.startsWith('> ')) last?.send.push(line.slice(2));
        else last?.expect.push(line.slice(2));
      }
      expect(groups.map((g) => [g.send.length, g.expect.length])).toEqual([
        [1, 1],
        [3, 3],
      ]);
      const peer = new Peer(pythonCommand(python as string, 'examples/python/jobstore.py'));
      peers.push(peer);
      for (const group of groups) {
        const written = peer.requestAll(
          group.send,
          group.send.map(() => 10_000),
        );
        const got = await Promise.all(written.map(async (w) => JSON.parse(await w.reply) as unknown));
        expect({ send: group.send, replies: got }).toEqual({
          send: group.send,
          replies: group.expect.map((e) => JSON.parse(e) as unknown),
        });
      }
    },
  );

  it.each(sessions.map((s) => [s.name, s] as const))(
    '%s: the reference model, served over the protocol, gives every documented reply',
    async (_name, session) => {
      const served: Session = {};
      for (const x of session.exchanges) {
        const got = await answerLine(served, x.send, modelStoreMaker);
        expect({ send: x.send, reply: comparable(got) }).toEqual({
          send: x.send,
          reply: comparable(JSON.parse(x.expect)),
        });
      }
    },
  );

  it('states, in its limits table, the constants the harness uses', async () => {
    const region = page.match(/<!-- generated:protocol-limits -->\n([\s\S]*?)\n<!-- \/generated -->/)?.[1];
    expect(region).toBe(protocolLimitsTable());
  });
});
