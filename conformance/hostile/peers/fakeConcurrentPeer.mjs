// A fake implementation for the concurrent process adapter's tests: it speaks just enough of
// jobcheck/2 (or only jobcheck/1) to behave, or misbehave, in one chosen way (the first argument).
// Every command is answered as a tick whose clock is the command's `now`, except where a mode says
// otherwise; a snapshot tells how many commands were answered and the most ever in flight at once.
import { createInterface } from 'node:readline';

const mode = process.argv[2] ?? 'v2';
const send = (value) => process.stdout.write(`${typeof value === 'string' ? value : JSON.stringify(value)}\n`);
const v1Only = mode.startsWith('v1');
let v2 = false;
let answered = 0;
let inFlight = 0;
let mostInFlight = 0;
const held = [];

/** Answers one envelope (or, under jobcheck/1, one bare command) after `delay` ms. */
function answer(request, delay = 0) {
  inFlight += 1;
  mostInFlight = Math.max(mostInFlight, inFlight);
  setTimeout(() => {
    inFlight -= 1;
    answered += 1;
    const reply = { ok: true, type: 'tick', clock: (v2 ? request.command : request).now };
    if (!v2) return send(reply);
    switch (mode) {
      case 'unknown-id':
        return send({ type: 'reply', id: request.id + 100, reply });
      case 'duplicate':
        send({ type: 'reply', id: request.id, reply });
        return send({ type: 'reply', id: request.id, reply });
      case 'bare-reply':
        return send(reply);
      case 'string-id':
        return send({ type: 'reply', id: String(request.id), reply });
      case 'envelope-no-id':
        return send({ type: 'reply', reply });
      case 'garbage':
        return send(`reply to request ${request.id}`);
      case 'bad-reply':
        return send({ type: 'reply', id: request.id, reply: { ...reply, elapsedMs: 3 } });
      default:
        return send({ type: 'reply', id: request.id, reply });
    }
  }, delay);
}

createInterface({ input: process.stdin }).on('line', (line) => {
  const msg = JSON.parse(line);
  if (msg.type === 'hello') {
    if (msg.protocol === 'jobcheck/2' && v1Only)
      return send({
        ok: false,
        code: 'unsupported_protocol',
        message: 'protocol: this implementation speaks jobcheck/1 (got "jobcheck/2")',
      });
    if (mode === 'lax-v1') return send({ ok: true, type: 'hello', protocol: 'jobcheck/1', implementation: 'fake-lax' });
    v2 = msg.protocol === 'jobcheck/2';
    answered = 0;
    mostInFlight = 0;
    const reply = { ok: true, type: 'hello', protocol: msg.protocol, implementation: `fake-${mode}` };
    return send(v2 ? { ...reply, concurrent: mode !== 'v2-serial' } : reply);
  }
  if (msg.type === 'snapshot') return send({ ok: true, type: 'snapshot', snapshot: { answered, mostInFlight } });
  const command = v2 ? msg.command : msg;
  switch (mode) {
    case 'reverse': {
      // Holds requests until as many as the second argument arrived, then answers the last first.
      held.push(msg);
      if (held.length < Number(process.argv[3] ?? 3)) return undefined;
      const all = held.splice(0).reverse();
      for (const request of all) answer(request);
      return undefined;
    }
    case 'silent-one':
    case 'v1-silent':
      // Never answers a command whose now is 13 or more.
      if (command.now >= 13) return undefined;
      return answer(msg, 10);
    case 'die':
      // Dies once two requests are held.
      held.push(msg);
      if (held.length === 2) {
        process.stderr.write('panic: lost the queue\n');
        process.exit(3);
      }
      return undefined;
    case 'stray':
      answer(msg);
      // A bare line written later, when nothing is in flight.
      return setTimeout(() => send({ ok: true, type: 'tick', clock: 0 }), 50);
    case 'v1-slow':
    case 'v2-serial':
      return answer(msg, 20);
    default:
      return answer(msg, 5 * ((command.now ?? 0) % 4));
  }
});
