/**
 * The lab's stories of the documented services (model/documented.ts): one a mode, each played on
 * that mode's model, never the contract's. The pair the lab exists for: a worker takes a job and
 * disappears; in Service Bus Receive-and-Delete the job is settled at the claim and lost, in
 * Peek-Lock its lock expires and another worker gets it. Each step records what the mode's model
 * answers (`expect`, `expectJobs`), so the page says when a model stops doing what its story tells;
 * lab.test.ts plays every story in Node and holds it to that.
 *
 * Invariant: each story names a mode that exists, and its steps are commands (no restarts).
 */
import { DOCUMENTED_SERVICES } from '../../../model/documented.ts';
import type { LabStory } from './labSection.ts';

const CONFIG = { capacity: 2, maxAttempts: 3, leaseTicks: 5, backoffBase: 2, backoffCap: 8 } as const;
const FOCUS = { job: 'a', account: 'x' } as const;
const submit = (id: string, now: number) => ({
  do: { type: 'submit', id, account: 'x', key: `${id}:pay`, amount: 5, deadline: 50, now },
  expect: { ok: true, type: 'submit', id },
  expectJobs: { [id]: { status: 'ready' } },
});
const claim = (worker: string, now: number, job: string | null, token?: number) => ({
  do: { type: 'claim', worker, now },
  expect: { ok: true, type: 'claim', job: job === null ? null : { id: job, token } },
});
const tick = (now: number) => ({ do: { type: 'tick', now }, expect: { ok: true, type: 'tick', clock: now } });
const commit = (worker: string, token: number, now: number) => ({
  do: { type: 'commit', worker, token, now },
  expect: { ok: true, type: 'commit', applied: true, balance: 5 },
});
const ack = (worker: string, token: number, now: number) => ({
  do: { type: 'ack', worker, token, now },
  expect: { ok: true, type: 'ack', id: 'a' },
  expectJobs: { a: { status: 'done' } },
});
const stale = (type: 'ack' | 'commit', worker: string, token: number, now: number) => ({
  do: { type, worker, token, now },
  expect: { ok: false, code: 'stale_token' },
});

/** The story of a mode, with its model named. */
const STORIES: readonly (Omit<LabStory, 'modelLabel' | 'config' | 'focus'> & { readonly model: string })[] = [
  {
    name: 'servicebus-receive-and-delete-loss',
    model: 'servicebus-receive-and-delete',
    title: 'Receive-and-Delete: the worker disappears, the job is lost',
    story:
      'Worker w1 receives job `a` and disappears before it does the work. In Receive-and-Delete, Service Bus deletes a message as soon as it delivers it: the claim itself settles the job. Nothing is left to expire, nothing is delivered again, and the effect never happens.',
    steps: [
      submit('a', 0),
      {
        ...claim('w1', 1, 'a', 1),
        expectJobs: { a: { status: 'done' } },
        note: 'Deleted as delivered: `a` is done before w1 has done anything.',
      },
      {
        ...tick(7),
        expectJobs: { a: { status: 'done' } },
        note: 'w1 is gone. Its lease would have ended at 6; a deleted message has none.',
      },
      {
        ...claim('w2', 7, null),
        expectJobs: { a: { status: 'done' } },
        note: 'Nothing to deliver: the job is lost, and the balance of `x` stays 0.',
      },
    ],
    final: { balances: {}, jobs: { a: { status: 'done', attempts: 1 } } },
  },
  {
    name: 'servicebus-peek-lock-redelivery',
    model: 'servicebus-peek-lock',
    title: 'Peek-Lock: the worker disappears, its lock expires, the job comes back',
    story:
      'The same worker w1 receives job `a` and disappears. In Peek-Lock, Service Bus only locks the message: when the lock expires unsettled, the message is back for the next receive, and w2 does the work.',
    steps: [
      submit('a', 0),
      { ...claim('w1', 1, 'a', 1), expectJobs: { a: { status: 'running', owner: 'w1' } } },
      {
        ...tick(7),
        expectJobs: { a: { status: 'ready', attempts: 1 } },
        note: 'The lock ran out at 6: `a` is ready again.',
      },
      { ...claim('w2', 7, 'a', 2), expectJobs: { a: { status: 'running', owner: 'w2', attempts: 2 } } },
      commit('w2', 2, 8),
      ack('w2', 2, 9),
    ],
    final: { balances: { x: 5 }, jobs: { a: { status: 'done', attempts: 2 } } },
  },
  {
    name: 'sqs-standard-duplicate',
    model: 'sqs-standard',
    title: 'SQS standard: the same message twice within its visibility timeout',
    story:
      'Worker w1 receives job `a` and is still at work when w2 asks for a message: a standard queue may deliver `a` again before its visibility timeout ends. The effect is committed once (the ledger recognises the repeat), and only the latest delivery can settle the job.',
    steps: [
      submit('a', 0),
      { ...claim('w1', 0, 'a', 1), expectJobs: { a: { status: 'running', owner: 'w1' } } },
      {
        ...claim('w2', 1, 'a', 2),
        expectJobs: { a: { status: 'running', owner: 'w2', attempts: 2 } },
        note: 'A duplicate within the visibility timeout: w1 still thinks it holds `a`.',
      },
      commit('w2', 2, 2),
      stale('ack', 'w1', 1, 3),
      ack('w2', 2, 3),
    ],
    final: { balances: { x: 5 }, jobs: { a: { status: 'done', attempts: 2 } } },
  },
  {
    name: 'sqs-fifo-group-order',
    model: 'sqs-fifo',
    title: 'SQS FIFO: one message of a group at a time, an id remembered five minutes',
    story:
      'Jobs `a` and `b` share the message group `x`. While `a` is in flight, a FIFO queue gives w2 nothing of the group; once `a` is deleted, `b` comes. A tick is a minute here: SQS remembers a deduplication ID five minutes from its send, and then forgets it.',
    steps: [
      submit('a', 0),
      submit('b', 0),
      { ...claim('w1', 1, 'a', 1) },
      { ...claim('w2', 1, null), note: 'The group is held by `a`.' },
      commit('w1', 1, 2),
      ack('w1', 1, 2),
      { ...claim('w2', 3, 'b', 2), expectJobs: { b: { status: 'running' } } },
      {
        do: { type: 'submit', id: 'a', account: 'x', key: 'a:pay', amount: 5, deadline: 50, now: 4 },
        expect: { ok: true, type: 'submit', id: 'a', seq: 1, duplicate: true },
        expectJobs: { a: { status: 'done' } },
        note: 'Four minutes after its send, a repeat of `a` is a duplicate, although `a` was deleted.',
      },
      {
        do: { type: 'submit', id: 'a', account: 'x', key: 'a:pay', amount: 5, deadline: 50, now: 5 },
        expect: { ok: true, type: 'submit', id: 'a', seq: 3, duplicate: false },
        expectJobs: { a: { status: 'ready' } },
        note: 'Five minutes after its send, SQS has forgotten the id: the repeat is a new message, and `a` will run again. Only the worker’s ledger keeps its effect single.',
      },
    ],
    final: { balances: { x: 5 }, jobs: { a: { status: 'ready' }, b: { status: 'running' } } },
  },
  {
    name: 'pubsub-at-least-once-duplicate',
    model: 'pubsub-at-least-once',
    title: 'Pub/Sub without exactly-once: redelivered while outstanding',
    story:
      'Without exactly-once delivery, Pub/Sub promises no redelivery before the acknowledgement deadline only on a best-effort basis: w2 may get `a` while w1 still holds it. The ledger keeps the effect single; the first acknowledgement ID is no longer the current one.',
    steps: [
      submit('a', 0),
      claim('w1', 0, 'a', 1),
      { ...claim('w2', 1, 'a', 2), note: 'Redelivered before the deadline at 5.' },
      commit('w2', 2, 2),
      stale('ack', 'w1', 1, 3),
      ack('w2', 2, 3),
    ],
    final: { balances: { x: 5 }, jobs: { a: { status: 'done', attempts: 2 } } },
  },
  {
    name: 'pubsub-exactly-once-latest-ack',
    model: 'pubsub-exactly-once',
    title: 'Pub/Sub with exactly-once: no redelivery while outstanding, only the latest ack ID counts',
    story:
      'With exactly-once delivery, `a` is not delivered again while w1 holds it. Once the deadline passes it is, and w1’s late acknowledgement, under the earlier ID, fails.',
    steps: [
      submit('a', 0),
      claim('w1', 0, 'a', 1),
      { ...claim('w2', 1, null), note: 'Outstanding: no redelivery.' },
      { ...tick(5), expectJobs: { a: { status: 'ready' } } },
      claim('w2', 5, 'a', 2),
      { ...stale('ack', 'w1', 1, 6), note: 'Only the latest acknowledgement ID can acknowledge the message.' },
      commit('w2', 2, 6),
      ack('w2', 2, 7),
    ],
    final: { balances: { x: 5 }, jobs: { a: { status: 'done', attempts: 2 } } },
  },
];

const labelOf = (mode: string): string => {
  for (const s of DOCUMENTED_SERVICES) {
    const m = s.modes.find((x) => x.id === mode);
    if (m !== undefined) return `${s.name}, ${m.name}`;
  }
  throw new RangeError(`documented story: no mode ${mode}`);
};

/** The documented modes' stories, as the lab's page takes them. Pure. */
export function documentedStories(): LabStory[] {
  return STORIES.map((s) => ({ ...s, config: { ...CONFIG }, focus: FOCUS, modelLabel: labelOf(s.model) }));
}
