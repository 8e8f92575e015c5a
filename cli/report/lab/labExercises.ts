/**
 * The four experiments of the queue-delivery lab (the changed key, the changed payload, the lease
 * boundary, effect before acknowledgement with an interruption between them) as guided exercises
 * on the fixture stories they belong to. Each starts from a fixture (put back to the original
 * where the fixture holds the change already), asks for predictions first, then makes its change
 * through the lab's own editor (labEdit.ts) and lets the model answer. The right answers are never
 * written here: the page reads them from the model's replies (`answerOf`). Pure data and pure
 * functions; runs in the page and in Node.
 */
import type { RuleId } from '../../../contract/rules.ts';
import type { StoryEdit } from './labEdit.ts';

/** What a question asks about the deciding step's reply, and so which answers it offers. */
export type QuestionKind = 'commit' | 'claim' | 'interruption';

/** One question of an exercise: asked about the deciding step before the change, or after it. */
export interface ExerciseQuestion {
  readonly id: string;
  readonly text: string;
  readonly kind: QuestionKind;
  readonly on: 'before' | 'after';
}

/** A guided exercise. */
export interface LabExercise {
  readonly id: 'changed-key' | 'changed-payload' | 'lease-boundary' | 'interruption';
  readonly title: string;
  /** The fixture story it is built on. */
  readonly base: string;
  /** Edits that put the fixture back to the original the experiment starts from. */
  readonly restore: readonly StoryEdit[];
  /** What the exercise asks the learner to change, in words, and the edits that change it. */
  readonly task: string;
  readonly change: readonly StoryEdit[];
  /** The step (1-based) whose reply answers the questions. */
  readonly step: number;
  readonly questions: readonly ExerciseQuestion[];
  /** A question answered in the learner's own words, kept in the worksheet. */
  readonly explain: string;
  /** The rules of the contract the exercise is about, quoted word for word when it is run. */
  readonly rules: readonly RuleId[];
}

const replay = (key: string, amount: number): Record<string, unknown> => ({
  type: 'submit',
  id: 'J-12-replay',
  account: 'north',
  key,
  amount,
  deadline: 20,
  now: 3,
});

/** The four exercises, in the order the source sets them. */
export const LAB_EXERCISES: readonly LabExercise[] = [
  {
    id: 'changed-key',
    title: 'Change the operation key of the replay',
    base: 'changed-operation-key',
    restore: [{ op: 'set', at: 4, command: replay('J-12:draft:v1', 1) }],
    task: 'Step 5 submits the replay of J-12 under the key J-12:draft:v1, the key of the draft already saved. Change its key to J-12:draft:v2.',
    change: [{ op: 'set', at: 4, command: replay('J-12:draft:v2', 1) }],
    step: 7,
    questions: [
      {
        id: 'before',
        text: "As the story stands (key J-12:draft:v1), worker-2's commit at step 7:",
        kind: 'commit',
        on: 'before',
      },
      {
        id: 'after',
        text: "With the key changed to J-12:draft:v2, worker-2's commit at step 7:",
        kind: 'commit',
        on: 'after',
      },
    ],
    explain: 'Why does the changed key make a second effect?',
    rules: ['effect-idempotent'],
  },
  {
    id: 'changed-payload',
    title: 'Change the payload under the same key',
    base: 'changed-operation-key',
    restore: [{ op: 'set', at: 4, command: replay('J-12:draft:v1', 1) }],
    task: 'Put the key back to J-12:draft:v1, and change the payload of the replay at step 5 instead: amount 2 in place of 1.',
    change: [{ op: 'set', at: 4, command: replay('J-12:draft:v1', 2) }],
    step: 7,
    questions: [
      {
        id: 'after',
        text: "With amount 2 under the key J-12:draft:v1, worker-2's commit at step 7:",
        kind: 'commit',
        on: 'after',
      },
    ],
    explain: 'Why is changed work under the same key refused rather than treated as a repeat?',
    rules: ['changed-amount-conflicts', 'effect-idempotent'],
  },
  {
    id: 'lease-boundary',
    title: 'Move now across the lease boundary',
    base: 'lease-boundary-now4-now5',
    restore: [],
    task: 'J-12 is claimed at now=0 with leaseTicks 5. Step 3 is worker-2 asking for work at now=4. Change its now to 5.',
    change: [{ op: 'set', at: 2, command: { type: 'claim', worker: 'worker-2', now: 5 } }],
    step: 3,
    questions: [
      { id: 'before', text: 'At now=4, worker-2 asking for work:', kind: 'claim', on: 'before' },
      { id: 'after', text: 'At now=5, worker-2 asking for work:', kind: 'claim', on: 'after' },
    ],
    explain: 'Why is a new delivery refused at now=4 and permitted at now=5?',
    rules: ['lease-equality-expires', 'lease-from-claim'],
  },
  {
    id: 'interruption',
    title: 'Effect before acknowledgement, interrupted between them',
    base: 'lost-ack-safe-replay',
    restore: [],
    task: "Worker-1 commits the draft (the effect) and stops before its acknowledgement. Nothing is changed: mark where the interruption falls, and predict what worker-2's commit finds.",
    change: [],
    step: 7,
    questions: [
      { id: 'gap', text: 'The interruption falls:', kind: 'interruption', on: 'after' },
      { id: 'after', text: "Worker-2's commit at step 7:", kind: 'commit', on: 'after' },
    ],
    explain: 'Which evidence does the next worker read, and where is it kept?',
    rules: ['commit-keeps-delivery', 'effect-idempotent', 'ack-settles-done'],
  },
];

/** The answers a question offers, as [value, label]. `steps` is the story's length (for the interruption's places). Pure. */
export function answersOf(kind: QuestionKind, steps: number): [string, string][] {
  if (kind === 'commit')
    return [
      ['applied', 'is applied: a second effect'],
      ['reused', 'reuses the recorded effect: no second effect'],
      ['conflict', 'is refused as a conflict'],
      ['refused', 'is refused for another reason'],
    ];
  if (kind === 'claim')
    return [
      ['delivered', 'gets J-12, under a new token'],
      ['nothing', 'gets nothing'],
      ['refused', 'is refused'],
    ];
  return Array.from({ length: Math.max(0, steps - 1) }, (_, i): [string, string] => [
    `after-${i + 1}`,
    `after step ${i + 1}, before step ${i + 2}`,
  ]);
}

/**
 * The right answer to a question of `kind`, read from the model's reply at the deciding step (a
 * commit or claim question), or from the places where a delivery's effect was committed and never
 * acknowledged (`interrupted`, from labTimeline.ts). Pure.
 */
export function answerOf(kind: QuestionKind, reply: unknown, interrupted: readonly number[]): string {
  if (kind === 'interruption') return interrupted.length === 0 ? 'none' : `after-${interrupted[0]}`;
  const r = (reply ?? {}) as { ok?: unknown; code?: unknown; applied?: unknown; job?: unknown };
  if (r.ok !== true) return kind === 'commit' && r.code === 'conflict' ? 'conflict' : 'refused';
  if (kind === 'commit') return r.applied === true ? 'applied' : 'reused';
  return r.job === null || r.job === undefined ? 'nothing' : 'delivered';
}
