/**
 * Stories at the diverging step: the model's transitions with their guards, the contract rule
 * behind the expected value, and every differing field of the reply and of the snapshot.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ruleOf } from '../../contract/rules.ts';
import { allDifferences, firstDifference } from './compare.ts';
import { jobStoreFactory } from '../stores/jobStore.ts';
import { BROKEN_VARIANTS } from '../broken/index.ts';
import { catalogueVariant } from '../broken/index.ts';
import { runLockstep } from './index.ts';
import type { LockstepResult } from './index.ts';
import { SHOWN_DIFFERENCES, renderStory } from './story.ts';

/** The value at a dotted path (keys here contain no dots), or undefined. */
function at(value: unknown, path: string): unknown {
  if (path === '') return value;
  let v = value;
  for (const key of path.split('.')) {
    if (typeof v !== 'object' || v === null || !Object.hasOwn(v, key)) return undefined;
    v = (v as Record<string, unknown>)[key];
  }
  return v;
}

/** Whether every key, at any depth, can be named in a dotted path (no dot, not empty). */
const plainKeys = (v: unknown): boolean =>
  typeof v !== 'object' ||
  v === null ||
  Object.entries(v).every(([k, x]) => k !== '' && !k.includes('.') && plainKeys(x));
const json = fc
  .jsonValue({ maxDepth: 3 })
  .chain((a) => fc.tuple(fc.constant(a), fc.oneof(fc.constant(a), fc.jsonValue({ maxDepth: 3 }))));
const plainObject = fc
  .dictionary(fc.string({ minLength: 1, maxLength: 3 }), fc.jsonValue({ maxDepth: 2 }))
  .filter(plainKeys);
const objects = fc.tuple(plainObject, plainObject);

describe('allDifferences', () => {
  it('starts with the first difference, is empty exactly when the values are equal, and respects the limit', () => {
    fc.assert(
      fc.property(json, fc.integer({ min: 1, max: 5 }), ([a, b], limit) => {
        const first = firstDifference(a, b);
        const all = allDifferences(a, b, '', limit);
        expect(all.differences[0]).toEqual(first);
        expect(all.total === 0).toBe(first === undefined);
        expect(all.differences.length).toBe(Math.min(all.total, limit));
      }),
    );
  });

  it('names places that really differ, each once', () => {
    fc.assert(
      fc.property(objects, ([a, b]) => {
        const { differences } = allDifferences(a, b);
        const paths = differences.map((d) => d.path);
        expect(new Set(paths).size).toBe(paths.length);
        for (const d of differences) {
          // Each difference is a leaf: what it reports on each side is what sits at its path.
          expect(d.model).toEqual(at(a, d.path));
          expect(d.impl).toEqual(at(b, d.path));
          expect(firstDifference(d.model, d.impl)).toBeDefined();
        }
      }),
    );
  });
});

const capacityForgetsRunning = BROKEN_VARIANTS.find((v) => v.name === 'capacity-forgets-running');
const config = { capacity: 1, maxAttempts: 2, leaseTicks: 5, backoffBase: 1, backoffCap: 4 };
const script = [
  { do: { type: 'submit', id: 'a', account: 'x', key: 'k1', amount: 1, deadline: 50, now: 0 } },
  { do: { type: 'claim', worker: 'w1', now: 1 } },
  { do: { type: 'submit', id: 'b', account: 'y', key: 'k2', amount: 2, deadline: 50, now: 2 } },
];

describe('the story of a divergence', () => {
  it('names the rule behind the expected value with its sentence, and every differing field of reply and snapshot', async () => {
    if (capacityForgetsRunning === undefined)
      throw new Error('the broken variant capacity-forgets-running is not registered');
    const result = await runLockstep(config, script, capacityForgetsRunning.factory);
    expect(result.divergence?.step).toBe(3);
    const story = renderStory(result);
    // The store is full (capacity 1) with job a running: the contract refuses b.
    const rule = ruleOf('capacity-counts-running');
    expect(story).toContain(
      `rule capacity-counts-running (docs/contract.md#rule-capacity-counts-running): ${rule.sentence.replaceAll('**', '')}`,
    );
    expect(story).toContain('model took no lifecycle transition');
    // The reply: a rejection from the model, an admission from the implementation: every field differs.
    for (const field of ['ok', 'code', 'type', 'id', 'seq', 'duplicate'])
      expect(story).toMatch(new RegExp(`>> reply differs at reply\\.${field}: `));
    // The snapshot: the implementation admitted b with the next admission number.
    expect(story).toContain('>> snapshot differs at nextSeq: model 2, impl 3');
    expect(story).toMatch(/>> snapshot differs at jobs\.b: model absent, impl \{/);
  });

  it('shows the transitions the model took, guards as written, at the diverging step', async () => {
    // An implementation that never expires a lease: at 6 the model requeues a, the implementation does not.
    const late = [
      { do: { type: 'submit', id: 'a', account: 'x', key: 'k1', amount: 1, deadline: 50, now: 0 } },
      { do: { type: 'claim', worker: 'w1', now: 1 } },
      { do: { type: 'tick', now: 6 } },
    ];
    const result = await runLockstep(config, late, jobStoreFactory());
    expect(result.divergence).toBeNull();
    // Told as if the implementation had kept the delivery: the model's side of step 3 is what the story explains.
    const last = result.steps[2];
    if (last === undefined) throw new Error('no step 3');
    const kept = structuredClone(last.modelSnapshot) as unknown as { jobs: Record<string, Record<string, unknown>> };
    kept.jobs['a'] = { ...kept.jobs['a'], status: 'running', token: 1, owner: 'w1', leaseUntil: 6 };
    const told: LockstepResult = {
      ...result,
      divergence: {
        step: 3,
        kind: 'snapshot',
        snapshot: { path: 'jobs.a.status', model: 'ready', impl: 'running' },
        implSnapshot: kept,
      },
    };
    const story = renderStory(told);
    expect(story).toContain('model took a: running --ADVANCE [leaseExpired]--> ready');
    expect(story).toContain('rule lease-equality-expires');
    expect(story).toContain('rule expiry-with-attempts-left-requeues');
    for (const field of ['status', 'token', 'owner', 'leaseUntil'])
      expect(story).toContain(`>> snapshot differs at jobs.a.${field}: `);
  });

  it('tells a live alias by the rule that snapshots are copies, not by the rules of the last command', async () => {
    const alias = catalogueVariant('snapshot-live-alias');
    if (alias === undefined) throw new Error('the broken variant snapshot-live-alias is not in the catalogue');
    const result = await runLockstep(config, script.slice(0, 2), alias.factory);
    expect(result.divergence?.kind).toBe('alias');
    const story = renderStory(result);
    expect(story).toContain(
      `rule snapshot-is-a-copy (docs/contract.md#rule-snapshot-is-a-copy): ${ruleOf('snapshot-is-a-copy').sentence.replaceAll('**', '')}`,
    );
    expect(story).not.toContain('rule lease-from-claim');
    expect(story).toMatch(/>> and the next snapshot differs at /);
  });

  it(`lists at most ${SHOWN_DIFFERENCES} differing fields and counts the rest`, async () => {
    const result = await runLockstep(config, script.slice(0, 1), jobStoreFactory());
    const snapshot = result.steps[0]?.modelSnapshot;
    if (snapshot === undefined) throw new Error('no step 1');
    const extra = SHOWN_DIFFERENCES + 5;
    const impl = { ...snapshot, ...Object.fromEntries(Array.from({ length: extra }, (_, i) => [`extra${i}`, i])) };
    const first = firstDifference(snapshot, impl);
    if (first === undefined) throw new Error('no difference');
    const told: LockstepResult = {
      ...result,
      divergence: { step: 1, kind: 'snapshot', snapshot: first, implSnapshot: impl },
    };
    const story = renderStory(told);
    expect(story.match(/>> snapshot differs at /g)).toHaveLength(SHOWN_DIFFERENCES);
    expect(story).toContain(`>> and ${extra - SHOWN_DIFFERENCES} more snapshot fields`);
  });
});
