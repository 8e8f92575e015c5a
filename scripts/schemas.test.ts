/**
 * The JSON Schemas of schemas/ are what `npm run schemas` makes of the zod schemas today, and they
 * accept real messages and refuse wrong ones. Real messages: a session recorded from the Python
 * example (every request of docs/protocol.md's jobcheck/1 sessions sent to it, every reply it
 * wrote), and the jobcheck/2 exchanges of docs/protocol.md, which docs/protocol.test.ts replays
 * against real implementations. Each line is validated with Ajv against the schema of its message.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { findPython } from '../examples/python/interpreter.ts';
import { SCHEMAS_DIR, schemaFiles } from './schemas.ts';
import { splitCarriedSnapshot } from '../conformance/protocol/replies.ts';
import { isProtocolMessageType } from '../contract/protocol.ts';

const ajv = new Ajv2020({ strict: true, allErrors: false });
for (const name of readdirSync(SCHEMAS_DIR)) ajv.addSchema(JSON.parse(readFileSync(join(SCHEMAS_DIR, name), 'utf8')));

type Json = Record<string, unknown>;

/** Ajv's verdict on a message against schemas/<name>.schema.json: undefined when valid, else the first error. */
function problem(name: string, message: unknown): string | undefined {
  const validate = ajv.getSchema(`${name}.schema.json`);
  if (validate === undefined) throw new Error(`no schema ${name}`);
  if (validate(message)) return undefined;
  const e = validate.errors?.[0];
  return `${name}: ${e?.instancePath} ${e?.message} ${JSON.stringify(e?.params)}`;
}

/** The schema a reply must match, from the request it answers (a bare request, or an envelope's command). */
function replySchema(request: Json, reply: Json): string {
  const type = String(request['type']);
  if (isProtocolMessageType(type)) {
    if (reply['ok'] !== true) return 'protocol-rejection';
    return type === 'hello' && reply['protocol'] === 'jobcheck/2' ? 'hello-reply-v2' : `${type}-reply`;
  }
  return reply['ok'] === true ? `reply-${type}` : 'rejection';
}

/** The schema of a request the implementation accepted. */
const requestSchema = (request: Json): string => {
  const type = String(request['type']);
  if (type === 'request') return 'request-envelope';
  return isProtocolMessageType(type) ? `${type}-request` : `command-${type}`;
};

const page = readFileSync(new URL('../docs/protocol.md', import.meta.url), 'utf8');
const blocks = (lang: string) =>
  [...page.matchAll(/^```([\w-]*)\n([\s\S]*?)^```$/gm)]
    .filter((m) => m[1] === lang)
    .map((m) => (m[2] ?? '').trimEnd().split('\n'));

/** Validates one request and its reply; an accepted request must match its schema too (a refused one may be malformed on purpose). */
function checkPair(request: Json, reply: Json, problems: string[]): void {
  if (reply['type'] === 'reply') {
    problems.push(...[problem('reply-envelope', reply)].filter((p) => p !== undefined));
    const command = request['command'] as Json;
    const inner = reply['reply'] as Json;
    problems.push(...[problem(replySchema(command, inner), inner)].filter((p) => p !== undefined));
    if (inner['ok'] === true)
      problems.push(...[problem(requestSchema(request), request)].filter((p) => p !== undefined));
    return;
  }
  const bareRefusalOfEnvelope = request['type'] === 'request';
  const schema = bareRefusalOfEnvelope ? 'rejection' : replySchema(request, reply);
  problems.push(...[problem(schema, reply)].filter((p) => p !== undefined));
  if (reply['ok'] === true) problems.push(...[problem(requestSchema(request), request)].filter((p) => p !== undefined));
}

describe('schemas/', () => {
  it('holds exactly what `npm run schemas` generates from the zod schemas (run it after changing them)', () => {
    const expected = schemaFiles();
    expect(readdirSync(SCHEMAS_DIR).sort()).toEqual([...expected.keys()].sort());
    for (const [name, text] of expected) expect(readFileSync(join(SCHEMAS_DIR, name), 'utf8'), name).toBe(text);
  });

  it('gives every file an $id, a title and a description', () => {
    for (const name of readdirSync(SCHEMAS_DIR)) {
      const schema = JSON.parse(readFileSync(join(SCHEMAS_DIR, name), 'utf8')) as Json;
      expect(schema['$id']).toBe(name);
      expect(typeof schema['title'] === 'string' && typeof schema['description'] === 'string', name).toBe(true);
    }
  });

  const python = findPython();
  it.skipIf(python === undefined)('accepts every line of a session recorded from the Python example', () => {
    const problems: string[] = [];
    let lines = 0;
    for (const block of blocks('session')) {
      const requests = block.filter((l) => l.startsWith('> ')).map((l) => l.slice(2));
      const run = spawnSync(python ?? 'python3', ['-S', 'examples/python/jobstore.py'], {
        cwd: join(SCHEMAS_DIR, '..'),
        input: `${requests.join('\n')}\n`,
        encoding: 'utf8',
        timeout: 30_000,
      });
      const replies = run.stdout.trimEnd().split('\n');
      expect(replies).toHaveLength(requests.length);
      let replySnapshots = false;
      for (const [i, request] of requests.entries()) {
        const sent = JSON.parse(request) as Json;
        let reply = JSON.parse(replies[i] ?? 'null') as Json;
        if (sent['type'] === 'hello' && reply['ok'] === true) replySnapshots = reply['replySnapshots'] === true;
        else if (replySnapshots && !isProtocolMessageType(sent['type'])) {
          // The example says replySnapshots: each command reply carries a snapshot, which must be one.
          const split = splitCarriedSnapshot(reply);
          if (!split.ok) throw new Error(`${request}: ${split.problem}`);
          problems.push(...[problem('snapshot', split.value.snapshot)].filter((p) => p !== undefined));
          reply = split.value.reply as Json;
        }
        checkPair(sent, reply, problems);
        lines += 2;
      }
    }
    expect(lines).toBeGreaterThan(60);
    expect(problems).toEqual([]);
  });

  it("accepts every line of docs/protocol.md's jobcheck/2 exchanges", () => {
    const problems: string[] = [];
    for (const block of [...blocks('offer'), ...blocks('fallback'), ...blocks('concurrent')]) {
      const sent: Json[] = [];
      const bare: Json[] = [];
      for (const line of block) {
        const message = JSON.parse(line.slice(2)) as Json;
        if (line.startsWith('> ')) {
          sent.push(message);
          continue;
        }
        // A reply envelope answers the request of its id; a bare reply, the oldest request not in an envelope's reach.
        const request =
          message['type'] === 'reply'
            ? sent.find((r) => r['type'] === 'request' && r['id'] === message['id'])
            : sent.find((r) => !bare.includes(r) && !(r['type'] === 'request' && isAnsweredLater(block, r)));
        if (request === undefined) throw new Error(`no request for ${line}`);
        bare.push(request);
        checkPair(request, message, problems);
      }
    }
    expect(problems).toEqual([]);
  });

  it('refuses messages that break the protocol', () => {
    const config = { capacity: 2, maxAttempts: 2, leaseTicks: 3, backoffBase: 2, backoffCap: 4 };
    const snapshot = {
      format: 'jobcheck.snapshot/1',
      config,
      clock: 0,
      nextToken: 1,
      nextSeq: 2,
      jobs: {
        a: { payload: { account: 'x', key: 'k', amount: 1, deadline: 9 }, seq: 1, status: 'ready', attempts: 0 },
      },
      balances: {},
      effects: {},
    };
    expect(problem('snapshot', snapshot)).toBeUndefined();
    const wrong: Array<[string, unknown]> = [
      ['reply-submit', { ok: true, type: 'submit', id: 'a', seq: 1, duplicate: false, extra: 1 }],
      ['reply-submit', { ok: true, type: 'submit', id: 'a', seq: 1.5, duplicate: false }],
      ['reply-claim', { ok: true, type: 'claim', job: { id: 'a', token: 0, attempt: 1, leaseUntil: 4, payload: {} } }],
      ['hello-reply', { ok: true, type: 'hello', protocol: 'jobcheck/2', implementation: 'x' }],
      ['hello-reply-v2', { ok: true, type: 'hello', protocol: 'jobcheck/2', implementation: 'x' }],
      ['rejection', { ok: false, code: 'not_a_code', message: 'm' }],
      ['command-fail', { type: 'fail', worker: 'w', token: 1, kind: 'maybe', error: 'e', now: 0 }],
      ['snapshot', { ...snapshot, jobs: { '': snapshot.jobs.a } }],
      ['snapshot', { ...snapshot, jobs: { a: { ...snapshot.jobs.a, status: 'paused' } } }],
      ['snapshot', { ...snapshot, jobs: { a: { ...snapshot.jobs.a, reason: null } } }],
      ['snapshot', { ...snapshot, effects: undefined }],
      ['request-envelope', { type: 'request', id: -1, lane: 0, command: { type: 'tick', now: 1 } }],
      ['reply-envelope', { type: 'reply', id: 1, reply: { ok: true, type: 'tick' } }],
    ];
    for (const [name, message] of wrong) expect(problem(name, message), JSON.stringify(message)).toBeDefined();
  });
});

/** Whether a request envelope is answered in an envelope later in the block (else it was refused bare). */
function isAnsweredLater(block: readonly string[], request: Json): boolean {
  return block.some((l) => l.startsWith('< ') && l.includes(`"type":"reply","id":${String(request['id'])},`));
}
