/** A path that breaks an invariant, told for people. */
import type { Config } from '../../contract/index.ts';
import { fromSnapshot, initialState, step as modelStep, toSnapshot } from '../../model/index.ts';
import type { ModelState } from '../../model/index.ts';
import { describeCommand, describeConfig, describeReply } from '../lockstep/story.ts';
import type { ScriptStep } from '../lockstep/symbolic.ts';
import type { StepFunction } from './expander.ts';

/** The story of a path that breaks an invariant: each step with the model's reply, then what broke. Pure. */
export function violationStory(
  config: Config,
  path: readonly ScriptStep[],
  invariant: string,
  message: string,
  stepFn: StepFunction = modelStep,
): string {
  const lines = [
    `the model breaks invariant ${invariant} after step ${path.length} of ${path.length}.`,
    `config: ${describeConfig(config)}`,
    '',
  ];
  let state: ModelState = initialState(config);
  path.forEach((s, i) => {
    if ('do' in s) {
      const r = stepFn(state, s.do);
      state = r.state;
      lines.push(`${String(i + 1).padStart(3)}. ${describeCommand(s.do)}`, `       model: ${describeReply(r.reply)}`);
    } else {
      state = fromSnapshot(JSON.parse(JSON.stringify(toSnapshot(state))));
      lines.push(`${String(i + 1).padStart(3)}. restart (snapshot -> JSON -> restore)`);
    }
  });
  if (path.length === 0) lines.push('  (the empty store)');
  lines.push(`       >> ${invariant}: ${message}`);
  return lines.join('\n');
}
