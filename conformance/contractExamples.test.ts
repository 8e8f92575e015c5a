/**
 * The worked examples of docs/contract.md, held against the implementations as they are against
 * the model (model/contractDoc.test.ts): impl/JobStore in process, and the Python example over the
 * protocol (restore the state before, send the command, compare the reply without `message` and
 * the snapshot after).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { JobStore } from '../impl/index.ts';
import { contractExamples } from '../model/contractExamples.ts';
import { findPython, pythonCommand } from '../examples/python/interpreter.ts';
import { comparableReply } from './lockstep/compare.ts';
import { Peer } from './protocol/index.ts';
import { splitCarriedSnapshot } from './protocol/replies.ts';

const examples = contractExamples();
const python = findPython();
const peers: Peer[] = [];
afterAll(() => Promise.all(peers.map((p) => p.end())));

describe('the worked examples of docs/contract.md', () => {
  it.each(examples)('example at line $line holds in impl/JobStore', (example) => {
    const store = JobStore.restore(example.before);
    expect(comparableReply(store.execute(example.command))).toEqual(comparableReply(example.reply));
    expect(store.snapshot()).toEqual(example.after);
  });

  it.skipIf(python === undefined)('every example holds in the Python example, over the protocol', async () => {
    const peer = new Peer(pythonCommand(python as string, 'examples/python/jobstore.py'));
    peers.push(peer);
    for (const example of examples) {
      const ask = async (message: unknown): Promise<unknown> =>
        JSON.parse(await peer.request(JSON.stringify(message), 10_000));
      const greeting = (await ask({ type: 'hello', protocol: 'jobcheck/1', config: example.before.config })) as {
        replySnapshots?: unknown;
      };
      expect(await ask({ type: 'restore', snapshot: example.before })).toEqual({ ok: true, type: 'restore' });
      let reply = await ask(example.command);
      if (greeting.replySnapshots === true) {
        // The example's command replies carry the snapshot after the command (replySnapshots): the state after, too.
        const split = splitCarriedSnapshot(reply);
        if (!split.ok) throw new Error(`line ${example.line}: ${split.problem}`);
        expect({ line: example.line, carried: split.value.snapshot }).toEqual({
          line: example.line,
          carried: example.after,
        });
        reply = split.value.reply;
      }
      expect({ line: example.line, reply: comparableReply(reply) }).toEqual({
        line: example.line,
        reply: comparableReply(example.reply),
      });
      expect({ line: example.line, after: await ask({ type: 'snapshot' }) }).toEqual({
        line: example.line,
        after: { ok: true, type: 'snapshot', snapshot: example.after },
      });
    }
  });
});
