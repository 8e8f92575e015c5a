/**
 * A failure as the story page tells it: one plain value with every step (command, both replies,
 * their differing fields, the rules, where each job is, the model's moves) and the diverging
 * step's verdict (its headline, the snapshot's differing fields, the moves the implementation's
 * answer implies). The page's HTML and its script's JSON are both made from it, so the table and
 * the diagram cannot tell two stories.
 *
 * A lockstep divergence carries everything. A fixture failure carries the fixture (commands and
 * expected replies) and its first mismatch (the implementation's answer there only), so the
 * model is replayed over the fixture's commands for its replies, moves and rules; the
 * implementation's earlier replies are known only to have matched the fixture's expectations.
 */
import type { Config, JobStatus, RuleId } from '../../../contract/index.ts';
import type { DivergenceFailure, FixtureFailure } from '../../../conformance/check/failure.ts';
import { allDifferences, showValue } from '../../../conformance/lockstep/compare.ts';
import type { Difference } from '../../../conformance/lockstep/compare.ts';
import type { LockstepStep } from '../../../conformance/lockstep/index.ts';
import { describeCommand, stepRules } from '../../../conformance/lockstep/story.ts';
import {
  RESTART_RULES,
  fromSnapshot,
  initialState,
  rulesExercised,
  step,
  toSnapshot,
  transitionOf,
} from '../../../model/index.ts';
import type { JobStep } from '../../../model/index.ts';
import type { JobMove } from './impliedMoves.ts';
import { impliedMoves, implStatuses } from './impliedMoves.ts';
import type { JobStatuses } from './jobStatuses.ts';
import { jobStatuses } from './jobStatuses.ts';
import { replyDifferences } from './replyFields.ts';
import { codeOf } from '../../../contract/index.ts';

/** Most differing snapshot fields listed at the diverging step; the rest are counted. */
export const SHOWN_SNAPSHOT_FIELDS = 12;

/** A move the model took: a job's declared lifecycle transition. */
export interface ModelMove extends JobMove {
  /** The declared transition's id (`running --FAIL [isCurrentDelivery]--> dead`), as the diagram names its edges. */
  readonly transition: string;
}

/** What is known of the implementation's reply at a step. */
export type ImplKnown =
  /** Its reply, equal to the model's (message aside). */
  | 'same'
  /** Its reply, different from the model's. */
  | 'differs'
  /** It threw, or gave no reply. */
  | 'error'
  /** Only that it matched the fixture's expected reply (a fixture's steps before the failing one). */
  | 'as-expected'
  /** Nothing to compare: a restart or an alias check. */
  | 'none';

/** One step of the story. */
export interface StoryStep {
  /** 1-based. */
  readonly index: number;
  /** The command on one line (`fail worker=w1 token=1 ...`), or what a restart or alias check did. */
  readonly command: string;
  /** The model's reply (undefined for a restart). */
  readonly modelReply?: unknown;
  /** The implementation's reply, when known. */
  readonly implReply?: unknown;
  readonly impl: ImplKnown;
  /** Every differing field of the two replies (paths `reply.…`). */
  readonly replyDifferences: readonly Difference[];
  /** The rules that decided the model's side. */
  readonly rules: readonly RuleId[];
  /** Where the model has each job after the step. */
  readonly jobs: JobStatuses;
  /** The lifecycle transitions the model took in the step. */
  readonly moves: readonly ModelMove[];
  readonly diverging: boolean;
}

/** The diverging step's verdict. */
export interface StoryVerdict {
  /** The diverging step (1-based); 0 when the implementation could not be started. */
  readonly step: number;
  /** One sentence: what went wrong. */
  readonly headline: string;
  /** Every differing field of the snapshots after the diverging step, at most SHOWN_SNAPSHOT_FIELDS. */
  readonly snapshotDifferences: readonly Difference[];
  /** How many snapshot fields differ in all. */
  readonly snapshotTotal: number;
  /** What the comparison was against: the model's snapshot, or a fixture's expectation. */
  readonly against: 'model' | 'fixture';
  /** Where the implementation has each job after the diverging step, as far as its answer says. */
  readonly implJobs: JobStatuses;
  /** The moves the implementation's answer implies, where they differ from the model's. */
  readonly implied: readonly JobMove[];
  /** What the implementation threw, if it did. */
  readonly error?: string;
}

/** A failure as the story page tells it. */
export interface StoryData {
  /** Who diverged: the adapter's name, or `fixture <name>`. */
  readonly subject: string;
  readonly config: Config;
  /** A fixture's own words (its title and story); undefined for a lockstep run. */
  readonly intro?: string;
  readonly steps: readonly StoryStep[];
  readonly verdict: StoryVerdict;
}

const modelMoves = (trace: readonly JobStep[]): ModelMove[] =>
  trace.map((t) => ({ job: t.job, from: t.from, to: t.to, transition: transitionOf(t).id }));

const commandText = (action: LockstepStep['action']): string =>
  'restart' in action ? 'restart (snapshot → JSON → restore)' : describeCommand(action.do);

const commandType = (command: string): string => command.split(' ')[0] ?? command;

const value = (v: unknown): string => showValue(v);

/**
 * The one-sentence headline of a divergence at a step, from its first reply and snapshot
 * differences (`Step 3 (fail): the implementation replied status "waiting" where the model replied "dead".`). Pure.
 */
export function headline(
  index: number,
  command: string,
  replies: { readonly model?: unknown; readonly impl?: unknown; readonly differences: readonly Difference[] },
  snapshot: Difference | undefined,
  against: 'model' | 'fixture' = 'model',
): string {
  const where = `Step ${index} (${commandType(command)})`;
  const other = against === 'model' ? 'the model' : 'the fixture';
  const ok = (r: unknown): unknown => (r as { ok?: unknown } | null)?.ok;
  const code = (r: unknown): string => value(codeOf(r));
  const first = replies.differences[0];
  if (first !== undefined) {
    if (ok(replies.model) === false && ok(replies.impl) === true)
      return `${where}: the implementation accepted it where ${other} refused it with ${code(replies.model)}.`;
    if (ok(replies.model) === true && ok(replies.impl) === false)
      return `${where}: the implementation refused it with ${code(replies.impl)} where ${other} accepted it.`;
    const field = first.path.replace(/^reply\.?/, '');
    return `${where}: the implementation replied ${field === '' ? '' : `${field} `}${value(first.impl)} where ${other} replied ${value(first.model)}.`;
  }
  if (snapshot !== undefined)
    return `${where}: the replies agree, but the implementation's state differs at ${snapshot.path}: ${value(snapshot.impl)} where ${other} has ${value(snapshot.model)}.`;
  return `${where}: the implementation disagrees with ${other}.`;
}

/** The story of a lockstep run that diverged. Pure. */
export function divergenceStory(failure: DivergenceFailure): StoryData {
  const run = failure.run;
  const d = run.divergence;
  const at = d?.step ?? 0;
  const steps: StoryStep[] = run.steps.map((s) => {
    const diverging = s.index === at;
    const hasReply = s.modelReply !== undefined;
    const threw = diverging && d?.kind === 'impl_error';
    const differences = hasReply && !threw ? replyDifferences(s.modelReply, s.implReply) : [];
    return {
      index: s.index,
      command: commandText(s.action),
      ...(hasReply ? { modelReply: s.modelReply } : {}),
      ...(hasReply && !threw ? { implReply: s.implReply } : {}),
      impl: !hasReply ? 'none' : threw ? 'error' : differences.length > 0 ? 'differs' : 'same',
      replyDifferences: differences,
      rules: stepRules(run, s).map((r) => r.id),
      jobs: jobStatuses(s.modelSnapshot),
      moves: modelMoves(s.trace),
      diverging,
    };
  });
  const s = run.steps.find((x) => x.index === at);
  const before = jobStatuses(run.steps.find((x) => x.index === at - 1)?.modelSnapshot);
  const snap =
    s === undefined || d?.implSnapshot === undefined
      ? { differences: d?.snapshot === undefined ? [] : [d.snapshot], total: d?.snapshot === undefined ? 0 : 1 }
      : allDifferences(s.modelSnapshot, d.implSnapshot, '', SHOWN_SNAPSHOT_FIELDS);
  const implJobs =
    s === undefined || d?.kind === 'alias'
      ? {}
      : implStatuses(d?.implSnapshot, d?.kind === 'impl_error' ? undefined : s.implReply);
  const diverging = steps.find((x) => x.diverging);
  let line: string;
  if (d === null || s === undefined || diverging === undefined)
    line = `${run.adapter} could not be started${d?.error === undefined ? '' : `: ${d.error}`}.`;
  else if (d.kind === 'impl_error')
    line = `Step ${at} (${commandType(diverging.command)}): the implementation failed: ${d.error ?? 'an error'}.`;
  else if (d.kind === 'alias')
    line = `After step ${at}: changing a snapshot the implementation returned changed its state (its snapshot is a live alias).`;
  else
    line = headline(
      at,
      diverging.command,
      { model: s.modelReply, impl: s.implReply, differences: diverging.replyDifferences },
      d.snapshot,
    );
  return {
    subject: run.adapter,
    config: run.config,
    steps,
    verdict: {
      step: at,
      headline: line,
      snapshotDifferences: snap.differences,
      snapshotTotal: snap.total,
      against: 'model',
      implJobs,
      implied: s === undefined ? [] : impliedMoves(before, jobStatuses(s.modelSnapshot), implJobs),
      ...(d?.error === undefined ? {} : { error: d.error }),
    },
  };
}

const ALIAS_TEXT = {
  aliasSnapshot: 'take a snapshot, change the object received, take another: it must not change',
  aliasRestore: 'restore from a snapshot object, change that object: the store must not change',
} as const;

/**
 * The story of a fixture the implementation did not follow: the model replayed over the
 * fixture's steps up to the failing one (all of them for a final check), the implementation's
 * answer known at the failing step only. Pure.
 */
export function fixtureStory(failure: FixtureFailure): StoryData {
  const { fixture, result } = failure.fixture;
  const mismatch = result.ok ? undefined : result;
  const upTo = mismatch === undefined || mismatch.step === 'final' ? fixture.steps.length : mismatch.step;
  let state = initialState(fixture.config);
  const steps: StoryStep[] = [];
  let beforeFailing: JobStatuses = {};
  fixture.steps.slice(0, upTo).forEach((fs, i) => {
    const index = i + 1;
    const failing = mismatch !== undefined && index === upTo;
    if (failing) beforeFailing = jobStatuses(toSnapshot(state));
    if ('do' in fs) {
      const before = state;
      const r = step(before, fs.do);
      state = r.state;
      const threw = failing && mismatch.check === 'error';
      const implReply = failing && mismatch.check === 'reply' ? mismatch.actual : undefined;
      const differences = implReply === undefined ? [] : replyDifferences(r.reply, implReply);
      steps.push({
        index,
        command: describeCommand(fs.do),
        modelReply: r.reply,
        ...(implReply === undefined ? {} : { implReply }),
        impl: threw ? 'error' : implReply !== undefined ? (differences.length > 0 ? 'differs' : 'same') : 'as-expected',
        replyDifferences: differences,
        rules: [...rulesExercised(before, fs.do, r)],
        jobs: jobStatuses(toSnapshot(state)),
        moves: modelMoves(r.trace),
        diverging: failing,
      });
    } else {
      if ('restart' in fs) state = fromSnapshot(JSON.parse(JSON.stringify(toSnapshot(state))));
      steps.push({
        index,
        command:
          'restart' in fs
            ? 'restart (snapshot → JSON → restore)'
            : ALIAS_TEXT['aliasSnapshot' in fs ? 'aliasSnapshot' : 'aliasRestore'],
        impl: failing && mismatch.check === 'error' ? 'error' : 'none',
        replyDifferences: [],
        rules: 'restart' in fs ? [...RESTART_RULES] : ['snapshot-is-a-copy'],
        jobs: jobStatuses(toSnapshot(state)),
        moves: [],
        diverging: failing,
      });
    }
  });
  const at = mismatch === undefined ? 0 : upTo;
  const failing = steps[at - 1];
  let implJobs: Record<string, JobStatus> = {};
  let line = `fixture ${fixture.name} agrees.`;
  let snapDiffs: readonly Difference[] = [];
  if (mismatch !== undefined) {
    const command = failing?.command ?? 'final check';
    const stepOf = mismatch.step === 'final' ? `After the last step (the final ${mismatch.check} check)` : `Step ${at}`;
    if (mismatch.check === 'reply' && failing !== undefined) {
      implJobs = { ...implStatuses(undefined, mismatch.actual) };
      line = headline(
        at,
        command,
        { model: failing.modelReply, impl: mismatch.actual, differences: failing.replyDifferences },
        undefined,
        'model',
      );
    } else if (mismatch.check === 'jobs') {
      // The mismatch names the expected record, not its id: find the id by the expectation it holds.
      const expectations = mismatch.step === 'final' ? fixture.final.jobs : (fixture.steps[at - 1]?.expectJobs ?? {});
      const id = Object.keys(expectations).find((k) => expectations[k] === mismatch.expected);
      const status = (mismatch.actual as { status?: unknown } | null)?.status;
      if (
        id !== undefined &&
        typeof status === 'string' &&
        status in { ready: 1, waiting: 1, running: 1, done: 1, dead: 1 }
      )
        implJobs = { [id]: status as JobStatus };
      const all = allDifferences(
        mismatch.expected,
        mismatch.actual,
        id === undefined ? 'job' : `jobs.${id}`,
        SHOWN_SNAPSHOT_FIELDS,
      );
      // The expectation is a partial record: only the fields it names count.
      snapDiffs = all.differences.filter((x) => x.model !== undefined);
      const first = snapDiffs[0];
      line =
        first === undefined
          ? `${stepOf}: ${mismatch.message}`
          : `${stepOf}: the implementation's state differs at ${first.path}: ${value(first.impl)} where the fixture expects ${value(first.model)}.`;
    } else if (mismatch.check === 'error') {
      // The whole cause, as the fixture recorded it: a timeout's says to flush.
      const where = mismatch.step === 'final' ? stepOf : `Step ${at} (${commandType(command)})`;
      line = `${where}: the implementation failed: ${String(mismatch.actual)}.`;
    } else if (mismatch.check === 'balances') {
      snapDiffs = allDifferences(mismatch.expected, mismatch.actual, 'balances', SHOWN_SNAPSHOT_FIELDS).differences;
      line = `${stepOf}: the final balances differ: ${value(mismatch.actual)} where the fixture expects ${value(mismatch.expected)}.`;
    } else {
      snapDiffs = allDifferences(mismatch.expected, mismatch.actual, '', SHOWN_SNAPSHOT_FIELDS).differences;
      line = `${stepOf}: changing an object the implementation handed over changed its state (a live alias).`;
    }
  }
  const modelAfter = failing?.jobs ?? {};
  return {
    subject: `fixture ${fixture.name}`,
    config: fixture.config,
    intro: `${fixture.title}. ${fixture.story}`,
    steps,
    verdict: {
      step: at,
      headline: line,
      snapshotDifferences: snapDiffs,
      snapshotTotal: snapDiffs.length,
      against: 'fixture',
      implJobs,
      implied: impliedMoves(beforeFailing, modelAfter, implJobs),
      ...(mismatch?.check === 'error' ? { error: String(mismatch.actual) } : {}),
    },
  };
}

/** The story of either kind of failure the page tells. Pure. */
export function storyData(failure: DivergenceFailure | FixtureFailure): StoryData {
  return failure.kind === 'divergence' ? divergenceStory(failure) : fixtureStory(failure);
}
