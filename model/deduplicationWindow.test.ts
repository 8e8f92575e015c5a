import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Config, Reply } from '../contract/index.ts';
import { buildModel, toSnapshot } from './step.ts';
import type { Model } from './step.ts';
import { deduplicationWindow, modelVariant } from './variants.ts';

const contract = buildModel();
const config: Config = { capacity: 3, maxAttempts: 3, leaseTicks: 50, backoffBase: 1, backoffCap: 1 };
const DEADLINE = 10_000;

const submit = (now: number, amount = 1) => ({
  type: 'submit',
  id: 'a',
  account: 'x',
  key: 'k',
  amount,
  deadline: DEADLINE,
  now,
});

/** Runs commands from an empty store, or from `state`; returns the last state and every reply. */
function run(model: Model, commands: readonly unknown[], state = model.initialState(config)) {
  const replies: Reply[] = [];
  for (const c of commands) {
    const r = model.step(state, c);
    state = r.state;
    replies.push(r.reply);
  }
  return { state, replies };
}

/** How the first job ends before the repeat: settled by an ack or a permanent failure, or still ready or running. */
type Ending = 'ack' | 'permanent' | 'ready' | 'running';
const ENDINGS: readonly Ending[] = ['ack', 'permanent', 'ready', 'running'];

/** Job a admitted at `at`, claimed and (by `ending`) settled one tick later, its effect committed. */
function firstLife(at: number, ending: Ending): unknown[] {
  const claimed = [
    { type: 'claim', worker: 'w', now: at + 1 },
    { type: 'commit', worker: 'w', token: 1, now: at + 1 },
  ];
  const settle =
    ending === 'ack'
      ? [{ type: 'ack', worker: 'w', token: 1, now: at + 1 }]
      : ending === 'permanent'
        ? [{ type: 'fail', worker: 'w', token: 1, kind: 'permanent', error: 'e', now: at + 1 }]
        : [];
  return [submit(at), ...(ending === 'ready' ? [] : [...claimed, ...settle])];
}

const submitted = (r: Reply | undefined): { seq: number; duplicate: boolean } | undefined =>
  r?.ok === true && r.type === 'submit' ? { seq: r.seq, duplicate: r.duplicate } : undefined;

describe('deduplication-window:W (SQS FIFO MessageDeduplicationId)', () => {
  it('a repeat inside the window is a duplicate; after it, once the job is settled, a new job that takes the id', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 2, max: 12 }),
        fc.integer({ min: 0, max: 20 }),
        fc.integer({ min: 1, max: 30 }),
        fc.constantFrom(...ENDINGS),
        (window, at, after, ending) => {
          const variant = deduplicationWindow(window).model;
          const first = run(variant, firstLife(at, ending));
          // The repeat comes at least two ticks after the admission, when the first life is over.
          const now = at + 1 + after;
          const repeat = run(variant, [submit(now)], first.state);
          const reply = submitted(repeat.replies[0]);
          const settled = ending === 'ack' || ending === 'permanent';
          const job = toSnapshot(repeat.state).jobs['a'];
          if (now - at < window || !settled) {
            expect(reply).toEqual({ seq: 1, duplicate: true });
            // Inside the window the variant answers exactly as the contract does.
            expect(toSnapshot(repeat.state)).toEqual(
              toSnapshot(run(contract, [...firstLife(at, ending), submit(now)]).state),
            );
          } else {
            expect(reply).toEqual({ seq: 2, duplicate: false });
            expect(job).toMatchObject({ seq: 2, status: 'ready', attempts: 0 });
            // The worker's ledger keeps the effect once: the new job's commit reuses it.
            const again = run(
              variant,
              [
                { type: 'claim', worker: 'w', now },
                { type: 'commit', worker: 'w', token: 2, now },
              ],
              repeat.state,
            );
            const commit = again.replies[1];
            expect(commit?.ok === true && commit.type === 'commit' ? commit.applied : undefined).toBe(false);
          }
        },
      ),
    );
  });

  it('counts the window from each admission: a job admitted again is remembered for W ticks more', () => {
    const variant = deduplicationWindow(5).model;
    const { replies } = run(variant, [
      ...firstLife(0, 'ack'),
      submit(5),
      { type: 'claim', worker: 'w', now: 6 },
      { type: 'ack', worker: 'w', token: 2, now: 6 },
      submit(9),
      submit(10),
    ]);
    expect(replies.map(submitted).filter((r) => r !== undefined)).toEqual([
      { seq: 1, duplicate: false },
      { seq: 2, duplicate: false },
      { seq: 2, duplicate: true },
      { seq: 3, duplicate: false },
    ]);
  });

  it('a changed payload is a conflict inside the window and after it, as in the contract', () => {
    const variant = deduplicationWindow(3).model;
    for (const now of [2, 3, 40]) {
      const { state, replies } = run(variant, [...firstLife(0, 'ack'), submit(now, 7)]);
      expect(replies.at(-1), `at ${now}`).toMatchObject({ ok: false, code: 'conflict' });
      expect(toSnapshot(state).jobs['a']?.payload.amount).toBe(1);
    }
  });

  it('after a restart the window counts from the clock of the snapshot, which holds no admission time', () => {
    const variant = deduplicationWindow(5).model;
    const first = run(variant, [...firstLife(0, 'ack'), { type: 'tick', now: 3 }]);
    const restored = variant.fromSnapshot(JSON.parse(JSON.stringify(toSnapshot(first.state))));
    expect(submitted(run(variant, [submit(7)], restored).replies[0])).toEqual({ seq: 1, duplicate: true });
    expect(submitted(run(variant, [submit(8)], restored).replies[0])).toEqual({ seq: 2, duplicate: false });
    // Without the restart the window, counted from the admission at 0, was over at 5.
    expect(submitted(run(variant, [submit(7)], first.state).replies[0])).toEqual({ seq: 2, duplicate: false });
  });

  it('is named by its window, declarable, and refuses a window that is not a positive whole number', () => {
    expect(modelVariant('deduplication-window:300')).toBe(deduplicationWindow(300));
    expect(deduplicationWindow(300)).toMatchObject({ rule: 'duplicate-submit-accepted', declarable: true });
    for (const name of [
      'deduplication-window',
      'deduplication-window:0',
      'deduplication-window:1.5',
      'deduplication-window:-3',
    ])
      expect(modelVariant(name), name).toBeUndefined();
    expect(() => deduplicationWindow(0)).toThrow(RangeError);
  });

  it('leaves the contract as it was: a repeat is a duplicate whatever the time', () => {
    const { replies } = run(contract, [...firstLife(0, 'ack'), submit(9_000)]);
    expect(submitted(replies.at(-1))).toEqual({ seq: 1, duplicate: true });
    expect(contract.initialState(config).context.admitted).toBeUndefined();
  });
});
