// A fake implementation for the process adapter's tests: it speaks just enough of the jobcheck/1
// protocol to misbehave in one chosen way (the first argument), so that each failure the harness
// must report can be produced on purpose.
import { createInterface } from 'node:readline';

const mode = process.argv[2] ?? 'counter';
// The reply-snapshots modes say `replySnapshots` in their hello reply; a snapshot tells how it was
// read (`via`), so that a test sees whether the harness asked for it or took it from a reply.
const replySnapshots = mode.startsWith('reply-snapshots');
// The pipelining modes say `pipelining`; their snapshot also tells how many reads of stdin brought
// the requests so far (`reads`), so that a test sees requests written together. The
// `pipelining-first-line` mode says it but answers only the first line of each read: the
// misreading the protocol warns about. The `reads` mode tells `reads` without saying `pipelining`.
const pipelining = mode.startsWith('pipelining');
const tellsReads = pipelining || mode === 'reads';
let commands = 0;
let reads = 0;
const send = (value) => process.stdout.write(`${typeof value === 'string' ? value : JSON.stringify(value)}\n`);

const answer = (line) => {
  const msg = JSON.parse(line);
  if (msg.type === 'hello') {
    commands = 0;
    if (mode === 'refuse-hello')
      return send({ ok: false, code: 'unsupported_protocol', message: 'only jobcheck/0 here' });
    send({
      ok: true,
      type: 'hello',
      protocol: 'jobcheck/1',
      implementation: `fake-${process.pid}`,
      ...(replySnapshots ? { replySnapshots: true } : {}),
      ...(pipelining ? { pipelining: true } : {}),
    });
    if (mode === 'chatty') send('debug: ready');
    return;
  }
  if (msg.type === 'snapshot')
    return send({
      ok: true,
      type: 'snapshot',
      snapshot: { commands, ...(replySnapshots ? { via: 'request' } : {}), ...(tellsReads ? { reads } : {}) },
    });
  if (msg.type === 'restore') {
    if (mode === 'refuse-restore')
      return send({ ok: false, code: 'invalid_snapshot', message: 'invalid snapshot: clock: must be >= 0' });
    return send({ ok: true, type: 'restore' }); // deliberately ignores the snapshot
  }
  commands += 1;
  switch (mode) {
    case 'garbage':
      return msg.type === 'claim' ? send('claiming a') : send({ ok: true, type: 'tick', clock: msg.now });
    case 'extra-field':
      return send({ ok: true, type: 'tick', clock: msg.now, elapsedMs: 3 });
    case 'bad-code':
      return send({ ok: false, code: 'too_early', message: 'come back later' });
    case 'reply-snapshots':
      return send({ ok: true, type: 'tick', clock: commands, snapshot: { commands, via: 'reply' } });
    case 'reply-snapshots-missing':
      return send({ ok: true, type: 'tick', clock: commands });
    case 'reply-snapshots-array':
      return send({ ok: true, type: 'tick', clock: commands, snapshot: [commands] });
    case 'silent':
      return undefined;
    case 'exit':
      process.stderr.write('panic: lost the queue\n');
      return process.exit(3);
    default:
      return send({ ok: true, type: 'tick', clock: commands });
  }
};

process.stdin.on('data', (chunk) => {
  reads += 1;
  if (mode === 'pipelining-first-line') answer(chunk.toString().split('\n')[0]);
});
if (mode !== 'pipelining-first-line') createInterface({ input: process.stdin }).on('line', answer);
