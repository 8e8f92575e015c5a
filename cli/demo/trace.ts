/**
 * Runs a story against the reference model and records, after every step, what a reader is asked
 * to predict: the focus job's status, token and attempts, and the focus account's balance. The
 * trace also names each lifecycle transition taken, so a reader can find it in the diagram.
 * Expected replies in the story are checked too: a mismatch is shown, never hidden.
 */
import { isDeepStrictEqual } from 'node:util';
import type { JobStatus, Reply, Snapshot } from '../../contract/index.ts';
import { isSubset, scribble } from '../../model/fixtures.ts';
import type { RuleId } from '../../contract/rules.ts';
import {
  RESTART_RULES,
  fromSnapshot,
  initialState,
  rulesExercised,
  step,
  toSnapshot,
  transitionOf,
} from '../../model/index.ts';
import type { ModelState } from '../../model/index.ts';
import { explainRestart, explainSnapshotCopy, explainStep } from '../../model/explain.ts';
import type { Explanation } from '../../model/explain.ts';
import type { Story, StoryStep } from './story.ts';

/** What the reader predicts and then sees: the focus job and the focus account after a step. */
export interface FocusView {
  /** Null while the job has not been submitted. */
  readonly status: JobStatus | null;
  /** Null when the job has no current delivery. */
  readonly token: number | null;
  readonly attempts: number;
  readonly balance: number;
}

/** One step of a traced story. */
export interface TracedStep {
  /** 1-based. */
  readonly index: number;
  readonly kind: 'do' | 'restart' | 'aliasSnapshot' | 'aliasRestore';
  /** The command sent, for `do` steps. */
  readonly command?: unknown;
  /** The model's reply, for `do` steps. */
  readonly reply?: Reply;
  /** What a restart or aliasing check found, for the other steps. */
  readonly outcome?: string;
  /** Lifecycle transitions taken, as `job: transition id`. */
  readonly moved: readonly string[];
  /** The same transitions as their lifecycle ids alone (see model/lifecycle.ts). */
  readonly transitions: readonly string[];
  readonly focus: FocusView;
  readonly note?: string;
  /** The contract rules that decided the step (model/rules.ts), in RULE_IDS order. */
  readonly rules: readonly RuleId[];
  /** Why the step came out as it did: the deciding guards and their values (model/explain.ts). */
  readonly explanations: readonly Explanation[];
  /** Differences between the story's expectations and the model, empty when it behaved as told. */
  readonly mismatches: readonly string[];
}

/** A whole story run against the model. */
export interface StoryTrace {
  readonly story: Story;
  readonly steps: readonly TracedStep[];
  /** Differences between the story's `final` and the model's last snapshot. */
  readonly finalMismatches: readonly string[];
  readonly final: Snapshot;
}

/** The focus view of a snapshot. Pure. */
export function focusOf(snapshot: Snapshot, focus: Story['focus']): FocusView {
  const job = snapshot.jobs[focus.job];
  return {
    status: job?.status ?? null,
    token: job?.token ?? null,
    attempts: job?.attempts ?? 0,
    balance: snapshot.balances[focus.account] ?? 0,
  };
}

function checkJobs(snapshot: Snapshot, expected: StoryStep['expectJobs'], where: string): string[] {
  const out: string[] = [];
  for (const [id, partial] of Object.entries(expected ?? {})) {
    if (!isSubset(partial, snapshot.jobs[id])) {
      out.push(
        `${where}: job ${id} expected ${JSON.stringify(partial)}, model has ${JSON.stringify(snapshot.jobs[id] ?? null)}`,
      );
    }
  }
  return out;
}

/** Runs a story step by step on the reference model. Pure apart from building fresh values. */
export function traceStory(story: Story): StoryTrace {
  let state: ModelState = initialState(story.config);
  const steps: TracedStep[] = [];
  story.steps.forEach((s, i) => {
    const index = i + 1;
    const mismatches: string[] = [];
    let moved: string[] = [];
    let transitions: string[] = [];
    let kind: TracedStep['kind'];
    let command: unknown;
    let reply: Reply | undefined;
    let outcome: string | undefined;
    let rules: readonly RuleId[] = [];
    let explanations: readonly Explanation[] = [];
    if ('do' in s) {
      kind = 'do';
      command = s.do;
      const result = step(state, s.do);
      rules = rulesExercised(state, s.do, result);
      explanations = explainStep(state, s.do, result, { focus: story.focus.job });
      state = result.state;
      reply = result.reply;
      transitions = result.trace.map((t) => transitionOf(t).id);
      moved = result.trace.map((t, k) => `${t.job}: ${transitions[k] ?? ''}`);
      if (s.expect !== undefined && !isSubset(s.expect, reply)) {
        mismatches.push(
          `step ${index}: expected reply ${JSON.stringify(s.expect)}, model replied ${JSON.stringify(reply)}`,
        );
      }
    } else if ('restart' in s) {
      kind = 'restart';
      rules = RESTART_RULES;
      state = fromSnapshot(JSON.parse(JSON.stringify(toSnapshot(state))));
      explanations = explainRestart(state);
      outcome = `restarted from a JSON copy of the snapshot at clock ${state.context.clock}, next token ${state.context.nextToken}`;
    } else if ('aliasSnapshot' in s) {
      kind = 'aliasSnapshot';
      rules = ['snapshot-is-a-copy'];
      explanations = explainSnapshotCopy();
      const taken = toSnapshot(state);
      const before = structuredClone(taken);
      scribble(taken);
      const same = isDeepStrictEqual(toSnapshot(state), before);
      outcome = same
        ? 'took a snapshot and changed it in place: the store did not change'
        : 'took a snapshot and changed it in place: THE STORE CHANGED WITH IT';
      if (!same) mismatches.push(`step ${index}: the store shares data with a snapshot it handed out`);
    } else {
      kind = 'aliasRestore';
      explanations = explainSnapshotCopy();
      const taken = toSnapshot(state);
      const before = structuredClone(taken);
      const restored = fromSnapshot(taken);
      scribble(taken);
      const same = isDeepStrictEqual(toSnapshot(restored), before);
      state = restored;
      outcome = same
        ? 'restored a fresh store from a snapshot, then changed the snapshot: the store did not change'
        : 'restored a fresh store from a snapshot, then changed the snapshot: THE STORE CHANGED WITH IT';
      if (!same) mismatches.push(`step ${index}: the restored store shares data with the snapshot it came from`);
    }
    const snapshot = toSnapshot(state);
    mismatches.push(...checkJobs(snapshot, s.expectJobs, `step ${index}`));
    const traced: TracedStep = {
      index,
      kind,
      moved,
      transitions,
      rules,
      explanations,
      focus: focusOf(snapshot, story.focus),
      mismatches,
      ...(command !== undefined ? { command } : {}),
      ...(reply !== undefined ? { reply } : {}),
      ...(outcome !== undefined ? { outcome } : {}),
      ...(s.note !== undefined ? { note: s.note } : {}),
    };
    steps.push(traced);
  });
  const final = toSnapshot(state);
  const finalMismatches = checkJobs(final, story.final.jobs, 'final');
  if (!isDeepStrictEqual({ ...final.balances }, story.final.balances)) {
    finalMismatches.push(
      `final: balances expected ${JSON.stringify(story.final.balances)}, model has ${JSON.stringify(final.balances)}`,
    );
  }
  return { story, steps, finalMismatches, final };
}
