import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import {
  helloReplySchema,
  helloReplyV2Schema,
  helloRequestSchema,
  protocolRejectionSchema,
  replyEnvelopeSchema,
  requestEnvelopeSchema,
} from '../../contract/protocol.ts';
import { findPython, pythonCommand } from '../../examples/python/interpreter.ts';
import { MAX_SERVE_CONNECTIONS, memoryStoreMaker, serveLines } from '../../impl/protocol/index.ts';
import type { StoreMaker } from '../../impl/protocol/index.ts';
import { modelStoreMaker } from '../stores/model.ts';
import { comparableReply } from '../lockstep/compare.ts';
import { Peer } from './peer.ts';
import { checkReply, splitCarriedSnapshot } from './replies.ts';

/**
 * The jobcheck/2 exchanges of docs/protocol.md (section 9) are executed: each ```concurrent block
 * against a fresh process of the Python example and against the built-in server (the memory store
 * and the reference model), each group of `>` lines sent together and the `<` lines after it
 * compared with the replies as a set (replies may come in any order), without `message`, `path`
 * and the implementation's name. The ```fallback block is replayed against a fake jobcheck/1
 * peer. Every documented line is also held to the schemas of contract/protocol.ts.
 */
const page = readFileSync(new URL('../../docs/protocol.md', import.meta.url), 'utf8');
const blocks = [...page.matchAll(/^```([\w-]*)\n([\s\S]*?)^```$/gm)].map((m) => ({
  lang: m[1] ?? '',
  lines: (m[2] ?? '').trimEnd().split('\n'),
}));

interface Group {
  readonly send: readonly string[];
  readonly expect: readonly string[];
}

/** A block's lines as groups: `>` lines sent together, then the `<` lines that answer them. */
function groups(lines: readonly string[]): Group[] {
  const out: { send: string[]; expect: string[] }[] = [];
  for (const line of lines) {
    if (line.startsWith('> ')) {
      const last = out.at(-1);
      if (last === undefined || last.expect.length > 0) out.push({ send: [line.slice(2)], expect: [] });
      else last.send.push(line.slice(2));
    } else if (line.startsWith('< ')) {
      const last = out.at(-1);
      if (last === undefined) throw new Error(`docs/protocol.md: a "< " line before any "> " line: ${line}`);
      last.expect.push(line.slice(2));
    } else throw new Error(`docs/protocol.md: a line of an exchange must start with "> " or "< ": ${line}`);
  }
  for (const g of out)
    if (g.send.length !== g.expect.length)
      throw new Error(`docs/protocol.md: ${g.send.length} requests but ${g.expect.length} replies at ${g.send[0]}`);
  return out;
}

const concurrentBlocks = blocks
  .filter((b) => b.lang === 'concurrent' || b.lang === 'offer')
  .map((b) => groups(b.lines));
const fallbackBlocks = blocks.filter((b) => b.lang === 'fallback').map((b) => groups(b.lines));

/** A reply as compared: no `message`, `path` or implementation name, inside an envelope too. */
function comparable(value: unknown): unknown {
  const v = value as Record<string, unknown>;
  if (v.type === 'reply' && 'id' in v) return { ...v, reply: comparable(v.reply) };
  const r = comparableReply(value) as Record<string, unknown>;
  const { path: _path, implementation: _name, ...rest } = r;
  return rest;
}
const asSet = (lines: readonly string[]): string[] =>
  lines.map((l) => JSON.stringify(comparable(JSON.parse(l)))).sort();

/** Something that takes lines and gives lines back. */
interface LineEnd {
  send(line: string): void;
  next(): Promise<string>;
}

/** Lines pushed by a source, taken one by one (with a time limit, so that a missing reply fails the test). */
function lineQueue(): { push: (line: string) => void; next: () => Promise<string> } {
  const lines: string[] = [];
  const waiting: ((line: string) => void)[] = [];
  return {
    push: (line) => {
      const w = waiting.shift();
      if (w === undefined) lines.push(line);
      else w(line);
    },
    next: () => {
      const line = lines.shift();
      if (line !== undefined) return Promise.resolve(line);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('no reply line within 10 s')), 10_000);
        waiting.push((l) => {
          clearTimeout(timer);
          resolve(l);
        });
      });
    },
  };
}

const peers: Peer[] = [];
afterAll(() => Promise.all(peers.map((p) => p.end())));

function processEnd(command: string): LineEnd {
  const peer = new Peer(command);
  peers.push(peer);
  const queue = lineQueue();
  peer.listen({ line: queue.push, failed: () => undefined });
  return { send: (line) => void peer.send(line), next: queue.next };
}

/**
 * The lines of an implementation that says replySnapshots in a jobcheck/1 hello (the Python
 * example), as the harness reads them: the hello reply without that field, and each later bare
 * reply that carries a snapshot without it (section 4, "Snapshots in replies"). The page shows the
 * protocol without the option, which the built-in servers never take.
 */
function withoutCarriedSnapshots(end: LineEnd): LineEnd {
  let carrying = false;
  return {
    send: end.send,
    next: async () => {
      const line = await end.next();
      const value = JSON.parse(line) as Record<string, unknown>;
      if (value['type'] === 'hello' && value['ok'] === true) {
        const { replySnapshots, pipelining: _pipelining, ...rest } = value;
        carrying = replySnapshots === true;
        return JSON.stringify(rest);
      }
      if (!carrying || value['type'] === 'snapshot' || value['type'] === 'restore') return line;
      const split = splitCarriedSnapshot(value);
      if (!split.ok) throw new Error(`${line}: ${split.problem}`);
      return JSON.stringify(split.value.reply);
    },
  };
}

function serverEnd(maker: StoreMaker): LineEnd & { end: () => Promise<void> } {
  const input = new PassThrough();
  const output = new PassThrough();
  const served = serveLines(input, output, maker);
  const queue = lineQueue();
  createInterface({ input: output }).on('line', queue.push);
  return {
    send: (line) => input.write(`${line}\n`),
    next: queue.next,
    end: async () => {
      input.end();
      await served;
    },
  };
}

async function replay(end: LineEnd, block: readonly Group[]): Promise<void> {
  for (const group of block) {
    for (const line of group.send) end.send(line);
    const got: string[] = [];
    for (let i = 0; i < group.expect.length; i++) got.push(await end.next());
    expect({ sent: group.send, replies: asSet(got) }).toEqual({ sent: group.send, replies: asSet(group.expect) });
  }
}

const python = findPython();
const FAKE = fileURLToPath(new URL('../hostile/peers/fakeConcurrentPeer.mjs', import.meta.url));

describe('docs/protocol.md, section 9 (jobcheck/2)', () => {
  it('holds two concurrent sessions and one fallback, and every line of them is a message of contract/protocol.ts', () => {
    expect([blocks.filter((b) => b.lang === 'offer').length, concurrentBlocks.length, fallbackBlocks.length]).toEqual([
      1, 3, 1,
    ]);
    for (const g of [...concurrentBlocks, ...fallbackBlocks].flat()) {
      for (const line of g.send) {
        const v = JSON.parse(line) as { type?: unknown };
        // Envelopes are held to the schema below (the page sends malformed ones on purpose).
        if (v.type === 'hello') expect(helloRequestSchema.safeParse(v).success).toBe(true);
      }
      for (const line of g.expect) {
        const v = JSON.parse(line) as { type?: unknown; reply?: unknown; ok?: unknown };
        if (v.type === 'reply') {
          expect(replyEnvelopeSchema.safeParse(v).success).toBe(true);
          expect(checkReply(v.reply).ok).toBe(true);
        } else if (v.type === 'hello') {
          expect(helloReplySchema.safeParse(v).success || helloReplyV2Schema.safeParse(v).success).toBe(true);
        } else if (v.ok === false) expect(checkReply(v).ok || protocolRejectionSchema.safeParse(v).success).toBe(true);
      }
    }
    // In a jobcheck/2 session, an envelope is refused bare exactly when the schema refuses it.
    let bareRefusals = 0;
    for (const block of concurrentBlocks) {
      let protocol: unknown;
      for (const g of block) {
        for (const [i, line] of g.send.entries()) {
          const sent = JSON.parse(line) as { type?: unknown; protocol?: unknown };
          const reply = JSON.parse(g.expect[i] as string) as { ok?: unknown };
          if (sent.type === 'hello') protocol = sent.protocol;
          else if (sent.type === 'request' && protocol === 'jobcheck/2' && g.send.length === 1) {
            expect({ line, bareRefusal: reply.ok === false }).toEqual({
              line,
              bareRefusal: !requestEnvelopeSchema.safeParse(sent).success,
            });
            if (reply.ok === false) bareRefusals += 1;
          }
        }
      }
    }
    expect(bareRefusals).toBeGreaterThan(0);
  });

  describe.skipIf(python === undefined)('replayed against examples/python/jobstore.py', () => {
    it.each(concurrentBlocks.map((b, i) => [i + 1, b] as const))(
      'concurrent block %i: the replies are the documented ones, in any order',
      async (_i, block) => {
        await replay(
          withoutCarriedSnapshots(processEnd(pythonCommand(python as string, 'examples/python/jobstore.py'))),
          block,
        );
      },
    );
  });

  it.each(
    concurrentBlocks.flatMap((b, i) => [
      ['memory', i + 1, memoryStoreMaker, b] as const,
      ['model', i + 1, modelStoreMaker, b] as const,
    ]),
  )('jobcheck serve --store %s gives the replies of concurrent block %i', async (_name, _i, maker, block) => {
    const end = serverEnd(maker);
    await replay(end, block);
    await end.end();
  });

  it('states the most connections the PostgreSQL server holds as the code does', () => {
    expect(page).toContain(`(up to ${MAX_SERVE_CONNECTIONS} at once)`);
  });

  it('the fallback block is what a jobcheck/1 implementation answers', async () => {
    await replay(processEnd(`'${process.execPath}' '${FAKE}' v1`), fallbackBlocks[0] as Group[]);
  });
});
