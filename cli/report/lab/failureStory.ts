/**
 * A failure's story as the lab opens it (labSharedStory.ts): the commands a sequential divergence
 * ran, or a fixture story's steps, with the store's config and the job and account to follow, so
 * that a failure page can link it into the lab as an editable story. The story's replies are not
 * carried: the lab's model answers every step itself. Pure.
 */
import type { DivergenceFailure, FixtureFailure } from '../../../conformance/check/failure.ts';
import { MAX_SHARED_STEPS, sharedStoryHash } from './labSharedStory.ts';
import type { SharedStory } from './labSharedStory.ts';

/** Where `jobcheck lab` writes the lab unless told otherwise, and so where a failure page looks for it. */
export const LAB_DEFAULT_PAGE = '.jobcheck/lab/index.html';

type Step = SharedStory['steps'][number];

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** The job and account to follow: the diverging step's job when its command names one, else the first job submitted. */
function focusOf(steps: readonly Step[], at: number): SharedStory['focus'] {
  const submits = steps.flatMap((s) =>
    'do' in s && s.do['type'] === 'submit' && typeof s.do['id'] === 'string' && typeof s.do['account'] === 'string'
      ? [{ job: s.do['id'], account: s.do['account'] }]
      : [],
  );
  const diverging = steps[at - 1];
  const id = diverging !== undefined && 'do' in diverging ? diverging.do['id'] : undefined;
  const named = submits.find((s) => s.job === id);
  return named ?? submits[0] ?? { job: 'a', account: 'x' };
}

/** The lab's story of `failure`, or undefined when it has none the lab can play (no steps, a command that is no object, too long). Pure. */
export function failureLabStory(failure: DivergenceFailure | FixtureFailure): SharedStory | undefined {
  let steps: Step[];
  let config: SharedStory['config'];
  let at: number;
  if (failure.kind === 'divergence') {
    const run = failure.run;
    if (run.steps.some((s) => 'do' in s.action && !isObject(s.action.do))) return undefined;
    steps = run.steps.map(
      (s): Step => ('do' in s.action ? { do: s.action.do as Record<string, unknown> } : { restart: true }),
    );
    config = { ...run.config };
    at = run.divergence?.step ?? steps.length;
  } else {
    const f = failure.fixture.fixture;
    steps = f.steps.map(
      (s): Step =>
        'do' in s
          ? { do: s.do }
          : 'restart' in s
            ? { restart: true }
            : 'aliasSnapshot' in s
              ? { aliasSnapshot: true }
              : { aliasRestore: true },
    );
    config = { ...f.config };
    const r = failure.fixture.result;
    at = r.ok || r.step === 'final' ? steps.length : r.step;
  }
  if (steps.length === 0 || steps.length > MAX_SHARED_STEPS) return undefined;
  const focus =
    failure.kind === 'fixture' ? { ...failure.fixture.fixture.focus } : focusOf(steps, Math.min(at, steps.length));
  return {
    name: `failure-${failure.name}`.slice(0, 200),
    title: `the story of the failure ${failure.name}`.slice(0, 500),
    story: `The steps of the failure ${failure.name}, as the check ran them (step ${at} is where the implementation departed from the model). Edit a step to try a variation: the model answers it.`,
    config,
    focus,
    steps,
  };
}

/** The link that opens `failure`'s story in the lab at `labUrl`, or undefined when it has none. Pure. */
export function failureLabLink(failure: DivergenceFailure | FixtureFailure, labUrl: string): string | undefined {
  const story = failureLabStory(failure);
  return story === undefined ? undefined : `${labUrl}${sharedStoryHash(story)}`;
}
