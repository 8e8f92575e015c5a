// A correct implementation that misbehaves only in its jobcheck/2 sessions, for the tests of the
// concurrent phase's time budget: it runs a correct store speaking both revisions (the command after
// the delay, e.g. `python3 examples/python/jobstore.py`; default `jobcheck serve --store memory`)
// and passes every line through, except as the mode (first argument) says. jobcheck/1 sessions
// (the sequential phases) are passed through untouched, so that a check reaches its concurrent
// phase quickly.
//   slow-liar <ms>      a claim reply that hands out a job comes <ms> later, its token plus 1000
//   slow <ms>           every request envelope's reply comes <ms> later, unchanged (a slow, correct store)
//   silent-snapshot     never answers the snapshot of a jobcheck/2 session
//   slow-hello <ms>     answers each jobcheck/2 hello <ms> later
// The delay (default 2500 ms) is the second argument.
//   node conformance/hostile/peers/slowConcurrentPeer.mjs <mode> [<ms> [<store command>...]]
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const mode = process.argv[2] ?? 'slow-liar';
const delay = Number(process.argv[3] ?? 2500);
const BIN = fileURLToPath(new URL('../../../bin/jobcheck.js', import.meta.url));
const backend = process.argv.length > 4 ? process.argv.slice(4) : [process.execPath, BIN, 'serve', '--store', 'memory'];
const store = spawn(backend[0], backend.slice(1), { stdio: ['pipe', 'pipe', 'inherit'] });
const write = (line) => process.stdout.write(`${line}\n`);
let v2 = false;
// What each line sent to the store was: replies come back in order for bare lines (hello, snapshot).
const bare = [];

createInterface({ input: process.stdin })
  .on('line', (line) => {
    let msg;
    try {
      msg = JSON.parse(line);
    } catch {
      msg = undefined;
    }
    if (msg?.type === 'hello') {
      v2 = msg.protocol === 'jobcheck/2';
      bare.push('hello');
    } else if (!v2 || msg?.type !== 'request') bare.push(msg?.type ?? 'other');
    store.stdin.write(`${line}\n`);
  })
  .on('close', () => store.stdin.end());

createInterface({ input: store.stdout }).on('line', (line) => {
  let msg;
  try {
    msg = JSON.parse(line);
  } catch {
    return write(line);
  }
  if (msg?.type === 'reply' && v2) {
    if (mode === 'slow') return setTimeout(() => write(line), delay);
    const r = msg.reply;
    if (mode === 'slow-liar' && r?.ok === true && r.type === 'claim' && r.job !== null) {
      return setTimeout(
        () => write(JSON.stringify({ ...msg, reply: { ...r, job: { ...r.job, token: r.job.token + 1000 } } })),
        delay,
      );
    }
    return write(line);
  }
  const what = bare.shift();
  if (v2 && what === 'snapshot' && mode === 'silent-snapshot') return undefined;
  if (v2 && what === 'hello' && mode === 'slow-hello') return setTimeout(() => write(line), delay);
  return write(line);
});
store.on('exit', (code) => process.exit(code ?? 1));
