// A starter job store for jobcheck in plain Node (no dependencies): it speaks the protocol
// (docs/protocol.md) and implements `submit`; every other command still answers "not implemented".
// Run it against the model with
//
//     npx --no-install jobcheck check --impl "node starters/javascript/jobstore.mjs"
//
// and implement what the first failure story names (README.md says what comes next).
import { createInterface } from 'node:readline';

// The store's whole state, shaped like the snapshot the harness compares after every command, except
// that the jobs are kept in a Map: a job id may be any string, "__proto__" included.
let state = null;
let jobs = new Map();

const refuse = (code, message) => ({ ok: false, code, message });

function submit(c) {
  // [clock-never-regresses]: a command from the past changes nothing.
  if (c.now < state.clock) return refuse('clock_regressed', `now: ${c.now} is before the clock (${state.clock})`);
  state.clock = c.now;
  const payload = { account: c.account, key: c.key, amount: c.amount, deadline: c.deadline };
  const job = jobs.get(c.id);
  if (job !== undefined) {
    // The same id again: a duplicate if the payload is equal, else a conflict.
    if (JSON.stringify(job.payload) !== JSON.stringify(payload))
      return refuse('conflict', `job ${JSON.stringify(c.id)} already exists with another payload`);
    return { ok: true, type: 'submit', id: c.id, seq: job.seq, duplicate: true };
  }
  // [capacity-counts-running]: ready, waiting and running jobs all count against the capacity.
  const unresolved = [...jobs.values()].filter((j) => ['ready', 'waiting', 'running'].includes(j.status)).length;
  if (unresolved >= state.config.capacity) return refuse('capacity_exceeded', `the store holds ${unresolved} jobs`);
  const seq = state.nextSeq++;
  jobs.set(c.id, { payload, seq, status: 'ready', attempts: 0 });
  return { ok: true, type: 'submit', id: c.id, seq, duplicate: false };
}

const snapshot = () => ({ ...state, jobs: Object.fromEntries(jobs) });

// A command of the contract (docs/contract.md, section 7).
function execute(c) {
  if (c.type === 'submit') return submit(c);
  return refuse('invalid_argument', `not implemented yet: ${c.type}`); // claim, commit, ack, fail, tick
}

function handle(message) {
  if (message.type === 'hello') {
    // (Re)start an empty store with this config.
    const { protocol, config } = message;
    if (protocol !== 'jobcheck/1' && protocol !== 'jobcheck/2')
      return refuse('unsupported_protocol', 'this starter speaks jobcheck/1 and jobcheck/2');
    state = { format: 'jobcheck.snapshot/1', config, clock: 0, nextToken: 1, nextSeq: 1, balances: {}, effects: {} };
    jobs = new Map();
    const reply = { ok: true, type: 'hello', protocol, implementation: 'javascript-starter' };
    // jobcheck/2: commands come in envelopes, but one at a time.
    return protocol === 'jobcheck/2' ? { ...reply, concurrent: false } : reply;
  }
  if (state === null) return refuse('invalid_argument', 'send hello first');
  if (message.type === 'snapshot') return { ok: true, type: 'snapshot', snapshot: snapshot() };
  if (message.type === 'restore') {
    // A restart: the state is exactly the snapshot the previous process gave.
    const { jobs: restored, ...rest } = message.snapshot;
    state = rest;
    jobs = new Map(Object.entries(restored));
    return { ok: true, type: 'restore' };
  }
  // jobcheck/2: a command in an envelope, answered in an envelope with its id.
  if (message.type === 'request') return { type: 'reply', id: message.id, reply: execute(message.command) };
  return execute(message);
}

// One request per line, one reply per line. process.stdout.write on a pipe is asynchronous but
// ordered, and Node flushes it as the event loop turns: nothing waits in a buffer of this process,
// unlike print() in Python or fmt in Go, where a reply left in the buffer looks like a timeout.
for await (const line of createInterface({ input: process.stdin })) {
  if (line.trim() !== '') process.stdout.write(`${JSON.stringify(handle(JSON.parse(line)))}\n`);
}
