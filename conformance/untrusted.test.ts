/**
 * Everything that comes from outside ends in a typed result, whatever it is: random and mutated
 * commands, snapshots, artifacts, coverage files and bytes on the protocol, with the odd values a
 * careless or hostile source produces (nesting 100,000 deep, megabyte strings, `__proto__` and
 * other prototype keys, empty keys, bytes that are not UTF-8). A command gets a reply with a
 * contract code; a snapshot is restored or refused with JobcheckError; an artifact or coverage file
 * is accepted or refused with ConformanceError; a reply line is read or described as a problem.
 * Nothing else is ever thrown (no RangeError from a recursion, no TypeError from a prototype).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { JobcheckError, REJECTION_CODES } from '../contract/index.ts';
import type { Reply, Snapshot } from '../contract/index.ts';
import { snapshotReplySchema } from '../contract/protocol.ts';
import { JobStore } from '../impl/index.ts';
import { answerLine } from '../impl/protocol/index.ts';
import { loadFixtures, modelDriver } from '../model/fixtures.ts';
import { fromSnapshot, step, toSnapshot } from '../model/index.ts';
import { modelStoreMaker } from './stores/model.ts';
import { parseArtifact, toArtifact, verifyArtifact } from './lockstep/artifact.ts';
import { comparableReply, firstDifference, showValue } from './lockstep/compare.ts';
import { emptyCoverage, mergeCoverage } from './coverage/coverage.ts';
import { parseCoverage } from './coverage/coverageFiles.ts';
import { ConformanceError } from './errors.ts';
import { runLockstep } from './lockstep/index.ts';
import { jobStoreFactory } from './stores/jobStore.ts';
import { LineSplitter, decodeStrictUtf8 } from './protocol/lineSplitter.ts';
import { checkReply, checkShape, parseJsonLine } from './protocol/replies.ts';
import { renderStory } from './lockstep/story.ts';

const RUNS = Number(process.env['JOBCHECK_UNTRUSTED_RUNS'] ?? 150);

/** Every snapshot the fixtures pass through. */
async function fixtureSnapshots(): Promise<Snapshot[]> {
  const out: Snapshot[] = [];
  for (const fixture of loadFixtures()) {
    const driver = modelDriver(fixture.config);
    out.push(await driver.snapshot());
    for (const s of fixture.steps) {
      if ('do' in s) await driver.execute(s.do);
      else if ('restart' in s) await driver.restart();
      out.push(await driver.snapshot());
    }
  }
  return out;
}
const SNAPSHOTS = await fixtureSnapshots();

/** A value nested `depth` deep, built without recursion. */
function nested(depth: number, inObjects: boolean): unknown {
  let v: unknown = 0;
  for (let i = 0; i < depth; i++) v = inObjects ? { a: v } : [v];
  return v;
}

const protoKey = fc.constantFrom('__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf', '');
/** Odd values: deep, huge, prototype-keyed, non-finite-ish, and plain wrong ones. */
const oddValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.tuple(fc.integer({ min: 4_000, max: 100_000 }), fc.boolean()).map(([d, o]) => nested(d, o)),
  fc.constantFrom(1, 1024, 1_048_576, 4_000_000).map((n) => 'x'.repeat(n)),
  protoKey.map((k) => JSON.parse(`{${JSON.stringify(k)}:{"x":1}}`) as unknown),
  fc.constantFrom<unknown>(null, true, -0, 1e308, -1e308, 2 ** 53, -(2 ** 53), 0.5, '', [], {}, 'w1', 3, -1),
  fc.jsonValue({ maxDepth: 4 }),
);

/** Sets `value` at a random path of a JSON value (a copy), possibly under a prototype key. */
function mutate(
  base: unknown,
  picks: readonly number[],
  key: string | undefined,
  value: unknown,
  drop: boolean,
): unknown {
  const root = JSON.parse(JSON.stringify(base)) as unknown;
  let node: unknown = root;
  for (const pick of picks) {
    if (typeof node !== 'object' || node === null) break;
    const keys = Object.keys(node);
    if (keys.length === 0) break;
    const k = keys[pick % keys.length] as string;
    const child = (node as Record<string, unknown>)[k];
    if (typeof child !== 'object' || child === null) {
      if (drop) delete (node as Record<string, unknown>)[k];
      else Object.defineProperty(node, key ?? k, { value, enumerable: true, writable: true, configurable: true });
      return root;
    }
    node = child;
  }
  if (typeof node === 'object' && node !== null)
    Object.defineProperty(node, key ?? 'extra', { value, enumerable: true, writable: true, configurable: true });
  return root;
}

/** Odd request lines as text (JSON.stringify itself overflows on the deepest values). */
const oddLine: fc.Arbitrary<string> = fc.oneof(
  fc.integer({ min: 100, max: 100_000 }).map((d) => `{"type":"restore","snapshot":${'['.repeat(d)}${']'.repeat(d)}}`),
  fc.integer({ min: 100, max: 100_000 }).map((d) => `${'{"a":'.repeat(d)}1${'}'.repeat(d)}`),
  fc.constantFrom(1_048_576, 4_000_000).map((n) => `{"type":"claim","worker":"${'w'.repeat(n)}","now":0}`),
  protoKey.map((k) => `{"type":"snapshot",${JSON.stringify(k)}:1}`),
  protoKey.map((k) => `{"type":"hello","protocol":"jobcheck/1","config":{${JSON.stringify(k)}:1}}`),
  fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v)),
);

const mutation = fc.record({
  picks: fc.array(fc.nat(), { maxLength: 5 }),
  key: fc.option(protoKey, { nil: undefined }),
  value: oddValue,
  drop: fc.boolean(),
});

const isContractReply = (r: Reply): boolean =>
  r.ok ? typeof r.type === 'string' : (REJECTION_CODES as readonly string[]).includes(r.code);

describe('every input from outside ends in a typed result', () => {
  it('a command: the model and impl/JobStore both reply with a contract code, the same one, and never throw', () => {
    const command = fc.oneof(
      oddValue,
      fc.tuple(fc.constantFrom('submit', 'claim', 'commit', 'ack', 'fail', 'tick'), mutation).map(([type, m]) =>
        mutate(
          {
            type,
            id: 'a',
            account: 'x',
            key: 'k',
            amount: 1,
            deadline: 9,
            worker: 'w1',
            token: 1,
            kind: 'transient',
            error: 'e',
            now: 0,
          },
          m.picks,
          m.key,
          m.value,
          m.drop,
        ),
      ),
    );
    fc.assert(
      fc.property(fc.nat({ max: SNAPSHOTS.length - 1 }), command, (i, cmd) => {
        const snapshot = SNAPSHOTS[i] as Snapshot;
        const modelResult = step(fromSnapshot(snapshot), cmd);
        const store = JobStore.restore(snapshot);
        const implReply = store.execute(cmd);
        expect(isContractReply(modelResult.reply)).toBe(true);
        expect(comparableReply(implReply)).toEqual(comparableReply(modelResult.reply));
        expect(store.snapshot()).toEqual(toSnapshot(modelResult.state));
        expect(showValue(cmd).length).toBeLessThan(500);
      }),
      { numRuns: RUNS },
    );
  });

  it('a snapshot: both restore it, or both refuse it with JobcheckError invalid_snapshot', () => {
    fc.assert(
      fc.property(
        fc.nat({ max: SNAPSHOTS.length - 1 }),
        fc.oneof(
          mutation.map((m) => ({ m })),
          oddValue.map((raw) => ({ raw })),
        ),
        (i, what) => {
          const input =
            'raw' in what ? what.raw : mutate(SNAPSHOTS[i], what.m.picks, what.m.key, what.m.value, what.m.drop);
          const outcome = (restore: () => unknown): string => {
            try {
              restore();
              return 'restored';
            } catch (error) {
              if (error instanceof JobcheckError) return error.code;
              throw error;
            }
          };
          const model = outcome(() => toSnapshot(fromSnapshot(input)));
          const impl = outcome(() => JobStore.restore(input).snapshot());
          expect(['restored', 'invalid_snapshot']).toContain(model);
          expect(impl).toBe(model);
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('an artifact: accepted and still matching the model, or refused with ConformanceError', async () => {
    const run = await runLockstep(
      { capacity: 2, maxAttempts: 2, leaseTicks: 3, backoffBase: 1, backoffCap: 2 },
      [
        { do: { type: 'submit', id: 'a', account: 'x', key: 'k', amount: 1, deadline: 9, now: 0 } },
        { do: { type: 'claim', worker: 'w1', now: 1 } },
        { restart: true },
        { do: { type: 'commit', worker: 'w1', token: 1, now: 2 } },
      ],
      jobStoreFactory(),
    );
    const artifact = toArtifact(run, { createdAt: '2026-12-01T00:00:00.000Z' });
    fc.assert(
      fc.property(
        fc.oneof(
          mutation.map((m) => mutate(artifact, m.picks, m.key, m.value, m.drop)),
          oddValue,
        ),
        (input) => {
          try {
            verifyArtifact(parseArtifact(input));
          } catch (error) {
            expect(error).toBeInstanceOf(ConformanceError);
            expect(['invalid_artifact', 'changed_artifact']).toContain((error as ConformanceError).code);
          }
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('a coverage file: accepted and mergeable, or refused with ConformanceError (unknown items included)', () => {
    const base = emptyCoverage('a run');
    fc.assert(
      fc.property(
        fc.oneof(
          mutation.map((m) => mutate(base, m.picks, m.key, m.value, m.drop)),
          oddValue,
        ),
        (input) => {
          try {
            const cov = parseCoverage(input);
            expect(Object.keys(cov.items.states).every((k) => Object.hasOwn(base.items.states, k))).toBe(true);
            mergeCoverage(cov, cov);
          } catch (error) {
            expect(error).toBeInstanceOf(ConformanceError);
          }
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('bytes on the protocol: every line is read or described as a problem, and a read value can be compared and shown', () => {
    const interesting = fc.oneof(
      fc.uint8Array({ maxLength: 200 }),
      fc
        .constantFrom(
          '{"ok":true,"type":"tick","clock":1}',
          '{"ok":true,"type":"snapshot","snapshot":{"__proto__":{"a":1}}}',
          '{"ok":false,"code":"stale_token","message":"m","__proto__":1}',
        )
        .map((t) => new TextEncoder().encode(t)),
      fc
        .integer({ min: 100, max: 100_000 })
        .map((d) =>
          new TextEncoder().encode(`{"ok":true,"type":"snapshot","snapshot":{"x":${'['.repeat(d)}${']'.repeat(d)}}}`),
        ),
      fc.constantFrom(
        new Uint8Array([0x7b, 0x22, 0xff, 0x22, 0x7d]),
        new Uint8Array([0xed, 0xa0, 0x80]),
        new Uint8Array([0xc0, 0xaf]),
        new Uint8Array([0xf4, 0x90, 0x80, 0x80]),
      ),
    );
    fc.assert(
      fc.property(fc.array(interesting, { maxLength: 6 }), fc.nat({ max: 64 }), (chunks, cut) => {
        const lines: Buffer[] = [];
        const splitter = new LineSplitter(4096, { line: (l) => lines.push(l.head) });
        const all = Buffer.concat(chunks.map((c) => Buffer.concat([Buffer.from(c), Buffer.from('\n')])));
        splitter.push(all.subarray(0, cut));
        splitter.push(all.subarray(cut));
        splitter.end();
        for (const line of lines) {
          expect(line.length).toBeLessThanOrEqual(4096);
          const text = decodeStrictUtf8(line);
          if (!text.ok) continue;
          const json = parseJsonLine(text.text);
          if (!json.ok) continue;
          const reply = checkReply(json.value);
          const snap = checkShape(snapshotReplySchema, json.value);
          if (snap.ok) {
            firstDifference(SNAPSHOTS[0], snap.value.snapshot);
            expect(showValue(snap.value.snapshot).length).toBeLessThan(500);
          }
          if (reply.ok) expect(typeof comparableReply(reply.value)).toBe('object');
        }
      }),
      { numRuns: RUNS },
    );
  });

  it('a request line to the protocol server: always answered with a reply object', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.oneof(
            oddLine,
            fc.string(),
            fc.constant(
              '{"type":"hello","protocol":"jobcheck/1","config":{"capacity":1,"maxAttempts":1,"leaseTicks":1,"backoffBase":1,"backoffCap":1}}',
            ),
          ),
          { maxLength: 5 },
        ),
        async (lines) => {
          const session = {};
          for (const line of lines) {
            const reply = await answerLine(session, line, modelStoreMaker);
            expect(typeof reply.ok).toBe('boolean');
          }
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('a story of a run whose implementation answered odd values stays short', async () => {
    const odd = nested(50, true);
    const result = await runLockstep(
      { capacity: 1, maxAttempts: 1, leaseTicks: 1, backoffBase: 1, backoffCap: 1 },
      [{ do: { type: 'tick', now: 1 } }],
      async () => ({
        name: 'odd',
        execute: async () => ({ ok: true, type: 'tick', clock: 'x'.repeat(5_000_000) }) as unknown as Reply,
        snapshot: async () => ({ deep: odd, big: 'y'.repeat(5_000_000) }) as unknown as Snapshot,
        restart: async () => undefined,
        close: async () => undefined,
      }),
    );
    expect(result.divergence?.kind).toBe('reply');
    expect(renderStory(result).length).toBeLessThan(4_000);
  });
});
