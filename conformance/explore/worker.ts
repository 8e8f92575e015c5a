/**
 * A worker thread of a parallel exploration (parallel.ts, messages in messages.ts): expands the chunks of frontier states
 * it is sent with the model's own step, and sends back, per chunk, the successors it has not
 * produced before (each with its fingerprint, the state and step it came from, its record, and
 * whether it breaks an invariant). At the end it sends its coverage and boundary counts.
 */
import { parentPort } from 'node:worker_threads';
import { STORE_INVARIANTS, violatedInvariant } from '../../model/index.ts';
import { Words } from './codec.ts';
import { Expander } from './expander.ts';
import { scopeNames } from './scope.ts';
import { VisitedSet } from './visited.ts';
import type { ChunkReply, ChunkRequest, FinishReply, WorkerInit } from './messages.ts';

interface Session {
  readonly expander: Expander;
  readonly seen: VisitedSet;
}
let session: Session | undefined;
const port = parentPort;
if (port === null) throw new Error('explore worker: no parent port');

port.on('message', (message: WorkerInit | ChunkRequest | { type: 'finish' }) => {
  if (message.type === 'begin') {
    const { named, scope } = message;
    session = {
      expander: new Expander(named.config, scope, scopeNames(scope, named.config.maxAttempts)),
      seen: new VisitedSet(1 << 14),
    };
    return;
  }
  if (session === undefined) throw new Error('explore worker: a chunk before begin');
  const { expander, seen } = session;
  if (message.type === 'finish') {
    const reply: FinishReply = {
      type: 'finish',
      coverage: expander.coverage.toData(),
      boundaries: [...expander.boundaries],
      transitions: expander.transitions,
      bytes: seen.bytes,
    };
    session = undefined;
    port.postMessage(reply);
    return;
  }
  const { data, offsets } = message;
  const out = new Words();
  const violations: ChunkReply['violations'] = [];
  let successors = 0;
  for (let e = 0; e < offsets.length; e++) {
    const at = offsets[e] ?? 0;
    expander.expand(data, at, (s) => {
      if (seen.add(s.hi, s.lo, 0, 0) < 0) return;
      out.reserve(6 + s.length);
      out.push(e);
      out.push(s.step);
      out.push(s.hi | 0);
      out.push(s.lo | 0);
      const v = violatedInvariant(s.result.state, STORE_INVARIANTS);
      out.push(v === undefined ? 0 : 1);
      if (v !== undefined) violations.push({ successor: successors, ...v });
      out.push(s.length);
      out.data.set(s.record.data.subarray(s.at, s.at + s.length), out.length);
      out.length += s.length;
      successors++;
    });
  }
  const words = out.data.slice(0, out.length);
  const reply: ChunkReply = { type: 'chunk', chunk: message.chunk, words, successors, violations };
  port.postMessage(reply, [words.buffer]);
});
