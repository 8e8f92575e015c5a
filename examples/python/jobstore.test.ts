import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { parseSnapshot } from '../../contract/index.ts';
import type { Snapshot } from '../../contract/index.ts';
import { runLockstep } from '../../conformance/lockstep/index.ts';
import type { ScriptStep } from '../../conformance/lockstep/symbolic.ts';
import { processAdapterFactory } from '../../conformance/protocol/index.ts';
import { Peer } from '../../conformance/protocol/index.ts';
import { initialState, step, toSnapshot } from '../../model/index.ts';
import { findPython, pythonCommand } from './interpreter.ts';

/**
 * The Python example is checked here for what random campaigns reach only rarely: that it refuses
 * exactly the malformed commands the contract's schema refuses (wrong types, booleans and
 * fractions for integers, empty strings, unknown and missing fields, unsafe integers), with the
 * same codes, and that its `restore` accepts exactly the snapshots the contract's schema accepts.
 * The expected outcomes come from the reference model and contract/schema.ts, never from Python.
 */
const python = findPython();
const command = python === undefined ? '' : pythonCommand(python, 'examples/python/jobstore.py');
const factory = processAdapterFactory(command);
const peers: Peer[] = [];
afterAll(async () => {
  await factory.close();
  await Promise.all(peers.map((p) => p.end()));
});

const config = { capacity: 3, maxAttempts: 2, leaseTicks: 2, backoffBase: 1, backoffCap: 3 };
const MAX = Number.MAX_SAFE_INTEGER;
/** Values that are right for some field and wrong for others. JSON-safe: the wire cannot carry others. */
const oddValue = fc.oneof(
  { weight: 2, arbitrary: fc.constantFrom<unknown>(true, false, 1.5, '5', null, '') },
  {
    weight: 3,
    arbitrary: fc.constantFrom<unknown>(
      0,
      1,
      2,
      3,
      5,
      -1,
      MAX,
      MAX + 1,
      -MAX,
      -MAX - 2,
      'a',
      'x',
      'w1',
      'transient',
      'permanent',
      'sometimes',
      [],
      {},
      1e21,
    ),
  },
);
const text = fc.constantFrom('a', 'b', 'x', 'y', 'k1', 'k2', 'w1', 'w2');
const time = fc.integer({ min: 0, max: 12 });

const wellFormed = fc.oneof(
  fc.record({
    type: fc.constant('submit'),
    id: text,
    account: text,
    key: text,
    amount: fc.integer({ min: -3, max: 3 }),
    deadline: fc.integer({ min: 1, max: 20 }),
    now: time,
  }),
  fc.record({ type: fc.constant('claim'), worker: text, now: time }),
  fc.record({ type: fc.constantFrom('commit', 'ack'), worker: text, token: fc.integer({ min: 1, max: 4 }), now: time }),
  fc.record({
    type: fc.constant('fail'),
    worker: text,
    token: fc.integer({ min: 1, max: 4 }),
    kind: fc.constantFrom('transient', 'permanent'),
    error: text,
    now: time,
  }),
  fc.record({ type: fc.constant('tick'), now: time }),
);
/** A well-formed command with one field replaced, removed, or one field added; or not a command at all. */
const malformed = fc.oneof(
  fc.tuple(wellFormed, fc.nat(), oddValue).map(([c, i, v]) => {
    const keys = Object.keys(c);
    return { ...c, [keys[i % keys.length] as string]: v };
  }),
  fc.tuple(wellFormed, fc.nat(), oddValue).map(([c, i, v]) => {
    const keys = Object.keys(c);
    return { ...c, [keys[1 + (i % (keys.length - 1))] as string]: v };
  }),
  fc.tuple(wellFormed, fc.nat()).map(([c, i]) => {
    const keys = Object.keys(c);
    const { [keys[1 + (i % (keys.length - 1))] as string]: _dropped, ...rest } = c as Record<string, unknown>;
    return rest;
  }),
  fc
    .tuple(wellFormed, fc.constantFrom('priority', 'Now', 'id', 'token', '__extra'))
    .map(([c, k]) => ({ ...c, [k]: 1 })),
  fc.constantFrom<unknown>(
    null,
    7,
    'tick',
    [],
    [{ type: 'tick', now: 1 }],
    { type: 'launch', now: 1 },
    { type: 'snapshotx' },
    {},
  ),
);
const script = fc.array(
  fc.oneof(
    { weight: 5, arbitrary: wellFormed.map((c): ScriptStep => ({ do: c })) },
    { weight: 5, arbitrary: malformed.map((c): ScriptStep => ({ do: c })) },
    {
      weight: 1,
      arbitrary: fc.constant<ScriptStep>({ restart: true }),
    },
  ),
  { minLength: 1, maxLength: 25 },
);

/** A reachable snapshot: the model's state after some well-formed commands, time moving forward, deliveries settled by their owners. */
const reachable = fc.array(wellFormed, { maxLength: 24 }).map((commands): Snapshot => {
  let state = initialState(config);
  for (const c of commands) {
    const now = state.context.clock + (c.now % 3);
    let next: Record<string, unknown> = { ...c, now };
    if (c.type === 'submit') next = { ...next, deadline: now + 1 + (c.deadline % 15) };
    if ('token' in c) {
      const running = Object.values(toSnapshot(state).jobs).filter((j) => j.status === 'running');
      const job = running[c.token % Math.max(running.length, 1)];
      if (job !== undefined) next = { ...next, token: job.token, worker: job.owner };
    }
    state = step(state, next).state;
  }
  return toSnapshot(state);
});

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
/** Every path (list of keys) to a value inside a JSON value, the root included. */
function pathsOf(value: Json, prefix: string[] = []): string[][] {
  const out = [prefix];
  if (value !== null && typeof value === 'object' && !Array.isArray(value))
    for (const [k, v] of Object.entries(value)) out.push(...pathsOf(v, [...prefix, k]));
  return out;
}
type Mutation =
  | { kind: 'set'; value: unknown }
  | { kind: 'nudge'; delta: number }
  | { kind: 'delete' }
  | { kind: 'add'; key: string; value: unknown }
  | { kind: 'swapSeq'; other: number };
const mutation = fc.oneof(
  { weight: 3, arbitrary: oddValue.map((value): Mutation => ({ kind: 'set', value })) },
  { weight: 3, arbitrary: fc.constantFrom(-2, -1, 1, 2).map((delta): Mutation => ({ kind: 'nudge', delta })) },
  { weight: 1, arbitrary: fc.nat().map((other): Mutation => ({ kind: 'swapSeq', other })) },
  { weight: 1, arbitrary: fc.constant<Mutation>({ kind: 'delete' }) },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.constantFrom('a', 'zz', 'extra', 'seq'), oddValue)
      .map(([key, value]): Mutation => ({ kind: 'add', key, value })),
  },
);
/** The counters and config: few paths, but the ones most cross-field rules depend on. */
const COUNTERS = [['clock'], ['nextToken'], ['nextSeq'], ['config', 'capacity'], ['config', 'maxAttempts']];
function mutate(snapshot: Snapshot, pick: number, m: Mutation): unknown {
  const copy = JSON.parse(JSON.stringify(snapshot)) as Json;
  if (m.kind === 'swapSeq') {
    // Two jobs trade admission numbers: every number stays valid, only the order changes.
    const jobs = Object.values((copy as { jobs: { [id: string]: { seq: number } } }).jobs);
    const a = jobs[pick % Math.max(jobs.length, 1)];
    const b = jobs[m.other % Math.max(jobs.length, 1)];
    if (a !== undefined && b !== undefined) [a.seq, b.seq] = [b.seq, a.seq];
    return copy;
  }
  const paths = pick % 2 === 0 ? COUNTERS : pathsOf(copy);
  const path = paths[Math.floor(pick / 2) % paths.length] as string[];
  if (path.length === 0) return m.kind === 'set' ? m.value : copy;
  let parent = copy as { [k: string]: Json };
  for (const k of path.slice(0, -1)) parent = parent[k] as { [k: string]: Json };
  const last = path[path.length - 1] as string;
  if (m.kind === 'set') parent[last] = m.value as Json;
  else if (m.kind === 'nudge') {
    const v = parent[last];
    if (typeof v === 'number') parent[last] = v + m.delta;
  } else if (m.kind === 'delete') delete parent[last];
  else {
    const target = parent[last];
    if (target !== null && typeof target === 'object' && !Array.isArray(target)) target[m.key] = m.value as Json;
  }
  return copy;
}

describe.skipIf(python === undefined)(
  `examples/python/jobstore.py against the contract${python === undefined ? ' (skipped: python3 is not installed)' : ''}`,
  () => {
    it("answers every command, well-formed or not, with the model's reply and ends in the model's snapshot (restarts included)", async () => {
      await fc.assert(
        fc.asyncProperty(script, async (steps) => {
          const wire = steps.map((s) => ('do' in s ? { do: JSON.parse(JSON.stringify(s.do)) as unknown } : s));
          const result = await runLockstep(config, wire, factory);
          expect(result.divergence).toBeNull();
        }),
        { numRuns: 60, seed: 20261129 },
      );
    });

    it("accepts in `restore` exactly the snapshots the contract's schema accepts", async () => {
      const peer = new Peer(command);
      peers.push(peer);
      await peer.request(JSON.stringify({ type: 'hello', protocol: 'jobcheck/1', config }), 10_000);
      let accepted = 0;
      let refused = 0;
      await fc.assert(
        fc.asyncProperty(reachable, fc.nat(), mutation, async (snapshot, pick, m) => {
          const candidate = mutate(snapshot, pick, m);
          let valid = true;
          try {
            parseSnapshot(candidate);
          } catch {
            valid = false;
          }
          const reply = JSON.parse(
            await peer.request(JSON.stringify({ type: 'restore', snapshot: candidate }), 10_000),
          ) as { ok: boolean; code?: string };
          expect({ candidate, accepted: reply.ok }).toEqual({ candidate, accepted: valid });
          if (!reply.ok) expect(reply.code).toBe('invalid_snapshot');
          if (valid) accepted += 1;
          else refused += 1;
        }),
        { numRuns: 600, seed: 20261129 },
      );
      // Both outcomes must actually have been exercised for the property to mean anything.
      expect(accepted).toBeGreaterThan(20);
      expect(refused).toBeGreaterThan(100);
    });
  },
);
