import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { comparableReply } from '../conformance/compare.ts';
import { Peer } from '../conformance/processPeer.ts';
import { findPython, pythonCommand } from '../examples/python/interpreter.ts';
import { fromSnapshot, initialState, step, toSnapshot } from '../model/index.ts';
import type { ModelState } from '../model/index.ts';

/**
 * The exchanges in docs/protocol.md are executed: each ```session block in a fresh process of the
 * Python example, and the unlabelled fragments of section 4 (read in order, they form one session
 * too). Replies are compared without `message`, as the harness compares them. The command replies
 * are also checked against the reference model, so the page cannot drift from the contract.
 */
interface Exchange {
  readonly send: string;
  readonly expect: string;
}

const page = readFileSync(new URL('./protocol.md', import.meta.url), 'utf8');
const blocks = [...page.matchAll(/^```(\w*)\n([\s\S]*?)^```$/gm)].map((m) => ({ lang: m[1] ?? '', lines: (m[2] ?? '').trimEnd().split('\n') }));
const isExchange = (lines: readonly string[]): boolean => lines.length > 0 && lines.every((l) => l.startsWith('> ') || l.startsWith('< '));

function exchanges(lines: readonly string[]): Exchange[] {
  const out: Exchange[] = [];
  for (let i = 0; i < lines.length; i += 2) {
    const send = lines[i] ?? '';
    const reply = lines[i + 1] ?? '';
    if (!send.startsWith('> ') || !reply.startsWith('< ')) throw new Error(`docs/protocol.md: expected a "> " line followed by a "< " line at ${send}`);
    out.push({ send: send.slice(2), expect: reply.slice(2) });
  }
  return out;
}

const sessions: { name: string; exchanges: Exchange[] }[] = [
  ...blocks.filter((b) => b.lang === 'session').map((b, i) => ({ name: `session block ${i + 1}`, exchanges: exchanges(b.lines) })),
  { name: 'the fragments of section 4', exchanges: blocks.filter((b) => b.lang === '' && isExchange(b.lines)).flatMap((b) => exchanges(b.lines)) },
];

const python = findPython();
const peers: Peer[] = [];
afterAll(() => Promise.all(peers.map((p) => p.end())));

describe('docs/protocol.md', () => {
  it('holds three session blocks and the section 4 fragments', () => {
    expect(sessions.map((s) => s.exchanges.length)).toEqual([16, 4, 6, 6]);
  });

  describe.skipIf(python === undefined)(`replayed against examples/python/jobstore.py${python === undefined ? ' (skipped: python3 is not installed)' : ''}`, () => {
    it.each(sessions.map((s) => [s.name, s] as const))('%s: every reply is the documented one', async (_name, session) => {
      const peer = new Peer(pythonCommand(python as string, 'examples/python/jobstore.py'));
      peers.push(peer);
      for (const x of session.exchanges) {
        const got = JSON.parse(await peer.request(x.send, 10_000)) as unknown;
        expect({ send: x.send, reply: comparableReply(got) }).toEqual({ send: x.send, reply: comparableReply(JSON.parse(x.expect)) });
      }
    });
  });

  it.each(sessions.map((s) => [s.name, s] as const))('%s: the reference model gives the documented replies and snapshots', (_name, session) => {
    let state: ModelState | undefined;
    for (const x of session.exchanges) {
      const msg = JSON.parse(x.send) as { type: string; protocol?: string; config?: unknown; snapshot?: unknown };
      const want = comparableReply(JSON.parse(x.expect));
      if (msg.type === 'hello') {
        if (msg.protocol === 'jobcheck/1') state = initialState(msg.config);
      } else if (msg.type === 'restore') {
        let restored: ModelState | undefined;
        try {
          restored = fromSnapshot(msg.snapshot);
        } catch {
          restored = undefined;
        }
        expect({ send: x.send, accepted: restored !== undefined }).toEqual({ send: x.send, accepted: (want as { ok: boolean }).ok });
        if (restored !== undefined) state = restored;
      } else if (msg.type === 'snapshot') {
        expect(want).toEqual({ ok: true, type: 'snapshot', snapshot: toSnapshot(state as ModelState) });
      } else {
        const result = step(state as ModelState, msg);
        state = result.state;
        expect({ send: x.send, reply: comparableReply(result.reply) }).toEqual({ send: x.send, reply: want });
      }
    }
  });
});
