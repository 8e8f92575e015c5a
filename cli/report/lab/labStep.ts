/**
 * One step of a fixture story on the reference model, as the lab's page plays it in the browser:
 * the model's own `step` (or a restart, or an aliasing check), the reply, the transitions taken,
 * the rules that decided it with their sentences, why (model/explain.ts), and whether the model
 * did what the story records. The same code runs in the page (bundled by labBundle.ts) and in
 * Node, so it imports nothing that needs Node: the story arrives as data, never read from a file.
 */
import type { Reply, Snapshot } from '../../../contract/index.ts';
import { RULES } from '../../../contract/rules.ts';
import { explainRestart, explainSnapshotCopy, explainStep } from '../../../model/explain.ts';
import type { Explanation } from '../../../model/explain.ts';
import { transitionOf } from '../../../model/lifecycle.ts';
import { rulesExercised } from '../../../model/rules.ts';
import { fromSnapshot, step, toSnapshot } from '../../../model/step.ts';
import type { Model, ModelState } from '../../../model/step.ts';

/** The contract's model, which a story plays unless it names a documented mode's (model/documented.ts). */
const CONTRACT: Pick<Model, 'step' | 'fromSnapshot'> = { step, fromSnapshot };

/** A story step as the fixture file holds it (model/fixtures.ts's schema, checked before it reaches the page). */
export type LabStoryStep =
  | {
      readonly do: Readonly<Record<string, unknown>>;
      readonly expect?: Readonly<Record<string, unknown>>;
      readonly expectJobs?: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
      readonly note?: string;
    }
  | {
      readonly restart?: true;
      readonly aliasSnapshot?: true;
      readonly aliasRestore?: true;
      readonly expectJobs?: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
      readonly note?: string;
    };

/** A transition a job took in the step, with its lifecycle id (model/lifecycle.ts), as the diagram names it. */
export interface LabMove {
  readonly job: string;
  readonly from: string;
  readonly to: string;
  readonly transition: string;
}

/** A rule that decided the step, with its title and sentence (bold marks dropped). */
export interface LabRule {
  readonly id: string;
  readonly title: string;
  readonly sentence: string;
}

/** What one step did. */
export interface LabStepResult {
  readonly state: ModelState;
  /** The model's reply, for a command. */
  readonly reply?: Reply;
  /** What a restart or an aliasing check found. */
  readonly outcome?: string;
  readonly moves: readonly LabMove[];
  readonly rules: readonly LabRule[];
  readonly explanations: readonly Explanation[];
  /** Where the model departed from what the story records; empty when it did as told. */
  readonly mismatches: readonly string[];
  readonly snapshot: Snapshot;
}

/** Whether `expected` is a deep subset of `actual` (objects by their listed keys, arrays and values exactly). Pure. */
export function isSubsetOf(expected: unknown, actual: unknown): boolean {
  if (expected === null || typeof expected !== 'object') return Object.is(expected, actual);
  if (actual === null || typeof actual !== 'object') return false;
  if (Array.isArray(expected))
    return (
      Array.isArray(actual) && expected.length === actual.length && expected.every((e, i) => isSubsetOf(e, actual[i]))
    );
  return Object.entries(expected).every(([k, v]) =>
    isSubsetOf(v, Object.hasOwn(actual, k) ? (actual as Record<string, unknown>)[k] : undefined),
  );
}

const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

/** Changes a snapshot object in place everywhere a shared reference could hide. */
function scribbleOn(s: Snapshot): void {
  const w = s as unknown as Record<string, unknown> & { jobs: Record<string, Record<string, unknown>> };
  w['clock'] = -1;
  for (const job of Object.values(w.jobs)) {
    job['status'] = 'dead';
    (job['payload'] as Record<string, unknown>)['amount'] = -1;
  }
  for (const k of Object.keys(w['balances'] as object)) (w['balances'] as Record<string, number>)[k] = -1;
  w.jobs['scribbled'] = {};
}

const ruleText = (ids: readonly string[]): LabRule[] =>
  RULES.filter((r) => ids.includes(r.id)).map((r) => ({
    id: r.id,
    title: r.title,
    sentence: r.sentence.replace(/\*\*/g, ''),
  }));

/**
 * Plays one story step on `state`: a command through the model's step, a restart through a JSON
 * copy of the snapshot, an aliasing check by changing a snapshot in place. `focus` is the job the
 * story follows (explanations say why it stayed where it was); `model` the model the story runs on
 * (default the contract's; a documented mode's for its stories). Pure: `state` is not changed.
 */
export function playStoryStep(
  state: ModelState,
  storyStep: LabStoryStep,
  index: number,
  focus: string,
  model: Pick<Model, 'step' | 'fromSnapshot'> = CONTRACT,
): LabStepResult {
  const mismatches: string[] = [];
  let next = state;
  let reply: Reply | undefined;
  let outcome: string | undefined;
  let moves: LabMove[] = [];
  let rules: readonly string[] = [];
  let explanations: readonly Explanation[] = [];
  if ('do' in storyStep) {
    const result = model.step(state, storyStep.do);
    rules = rulesExercised(state, storyStep.do, result);
    explanations = explainStep(state, storyStep.do, result, { focus });
    next = result.state;
    reply = result.reply;
    moves = result.trace.map((t) => ({ job: t.job, from: t.from, to: t.to, transition: transitionOf(t).id }));
    if (storyStep.expect !== undefined && !isSubsetOf(storyStep.expect, reply))
      mismatches.push(
        `step ${index}: the story expects the reply ${JSON.stringify(storyStep.expect)}, the model replied ${JSON.stringify(reply)}`,
      );
  } else if (storyStep.restart === true) {
    next = model.fromSnapshot(JSON.parse(JSON.stringify(toSnapshot(state))));
    rules = ['snapshot-restore-round-trip'];
    explanations = explainRestart(next);
    outcome = `restarted from a JSON copy of the snapshot at clock ${next.context.clock}, next token ${next.context.nextToken}`;
  } else {
    const taken = toSnapshot(state);
    const before = JSON.parse(JSON.stringify(taken)) as Snapshot;
    explanations = explainSnapshotCopy();
    if (storyStep.aliasSnapshot === true) {
      rules = ['snapshot-is-a-copy'];
      scribbleOn(taken);
      const kept = same(toSnapshot(state), before);
      outcome = `took a snapshot and changed it in place: ${kept ? 'the store did not change' : 'THE STORE CHANGED WITH IT'}`;
      if (!kept) mismatches.push(`step ${index}: the store shares data with a snapshot it handed out`);
    } else {
      next = model.fromSnapshot(taken);
      scribbleOn(taken);
      const kept = same(toSnapshot(next), before);
      outcome = `restored a fresh store from a snapshot, then changed the snapshot: ${kept ? 'the store did not change' : 'THE STORE CHANGED WITH IT'}`;
      if (!kept) mismatches.push(`step ${index}: the restored store shares data with the snapshot it came from`);
    }
  }
  const snapshot = toSnapshot(next);
  for (const [id, partial] of Object.entries(storyStep.expectJobs ?? {}))
    if (!isSubsetOf(partial, snapshot.jobs[id]))
      mismatches.push(
        `step ${index}: the story expects job ${id} ${JSON.stringify(partial)}, the model has ${JSON.stringify(snapshot.jobs[id] ?? null)}`,
      );
  return {
    state: next,
    moves,
    rules: ruleText(rules),
    explanations,
    mismatches,
    snapshot,
    ...(reply !== undefined ? { reply } : {}),
    ...(outcome !== undefined ? { outcome } : {}),
  };
}

/** Where the story's final jobs and balances differ from the model's last snapshot; empty when they agree. Pure. */
export function finalMismatches(
  snapshot: Snapshot,
  final: { readonly balances: Readonly<Record<string, number>>; readonly jobs: Readonly<Record<string, unknown>> },
): string[] {
  const out: string[] = [];
  for (const [id, partial] of Object.entries(final.jobs))
    if (!isSubsetOf(partial, snapshot.jobs[id]))
      out.push(
        `final: the story expects job ${id} ${JSON.stringify(partial)}, the model has ${JSON.stringify(snapshot.jobs[id] ?? null)}`,
      );
  if (!same(sortKeys(final.balances), sortKeys(snapshot.balances)))
    out.push(
      `final: the story expects balances ${JSON.stringify(final.balances)}, the model has ${JSON.stringify(snapshot.balances)}`,
    );
  return out;
}

const sortKeys = (o: Readonly<Record<string, number>>): [string, number][] =>
  Object.entries(o).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
