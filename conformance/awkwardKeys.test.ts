/**
 * Ids, accounts, operation keys and workers are arbitrary non-empty strings. Names that plain
 * JavaScript objects treat specially (`__proto__`, `constructor`, `toString`) must behave like any
 * other name in the model, in JobStore, and through snapshots and restarts.
 */
import { describe, expect, it } from 'vitest';
import { JobcheckError, parseSnapshot } from '../contract/index.ts';
import { fromSnapshot, initialState, step, toSnapshot } from '../model/index.ts';
import { jobStoreFactory } from './stores/jobStore.ts';
import { runLockstep } from './lockstep/index.ts';
import type { ScriptStep } from './lockstep/symbolic.ts';

const config = { capacity: 3, maxAttempts: 2, leaseTicks: 5, backoffBase: 1, backoffCap: 4 };
const names = ['__proto__', 'constructor', 'toString'] as const;

function script(): ScriptStep[] {
  const steps: ScriptStep[] = [];
  names.forEach((name, i) => {
    steps.push({
      do: {
        type: 'submit',
        id: name,
        account: names[(i + 1) % 3] ?? name,
        key: name,
        amount: i + 1,
        deadline: 100,
        now: i,
      },
    });
  });
  for (let t = 1; t <= 3; t++) {
    steps.push({ do: { type: 'claim', worker: 'hasOwnProperty', now: 10 * t } });
    steps.push({ do: { type: 'commit', worker: 'hasOwnProperty', token: t, now: 10 * t } });
    steps.push({ restart: true });
    steps.push({ do: { type: 'commit', worker: 'hasOwnProperty', token: t, now: 10 * t + 1 } });
    steps.push({ do: { type: 'ack', worker: 'hasOwnProperty', token: t, now: 10 * t + 1 } });
  }
  return steps;
}

describe('names that plain objects treat specially', () => {
  it('are ordinary ids, accounts and keys in the model, and survive a snapshot round trip', () => {
    let state = initialState(config);
    for (const s of script()) {
      if ('do' in s) {
        const { reply, state: next } = step(state, s.do);
        expect(reply.ok).toBe(true);
        state = next;
      } else {
        state = fromSnapshot(JSON.parse(JSON.stringify(toSnapshot(state))));
      }
    }
    const snap = toSnapshot(state);
    expect(Object.keys(snap.jobs)).toEqual(['__proto__', 'constructor', 'toString']);
    expect(Object.keys(snap.balances).sort()).toEqual(['__proto__', 'constructor', 'toString']);
    expect(JSON.parse(JSON.stringify(snap)).balances).toEqual(
      JSON.parse('{"constructor":1,"toString":2,"__proto__":3}'),
    );
  });

  it('make JobStore agree with the model step by step, through restarts', async () => {
    const result = await runLockstep(config, script(), jobStoreFactory());
    expect(result.divergence).toBeNull();
  });

  it('are validated in snapshots like any other key', () => {
    const snap = JSON.parse(JSON.stringify(toSnapshot(initialState(config))));
    const bad = JSON.parse('{"__proto__": {"payload": 1}}');
    expect(() => parseSnapshot({ ...snap, jobs: bad })).toThrow(JobcheckError);
    expect(() => parseSnapshot({ ...snap, jobs: bad })).toThrow(/jobs\.__proto__\.payload/);
    const effects = { toString: { k: { amount: 1, job: 'toString', token: 1 } } };
    expect(() => parseSnapshot({ ...snap, nextToken: 2, balances: { toString: 1 }, effects })).toThrow(
      /effects\.toString\.k\.job/,
    );
  });
});
