/** A path of the visited tree (alphabet indices) turned back into the steps it stands for. */
import type { Config } from '../../contract/index.ts';
import { fromSnapshot, initialState, step as modelStep, toSnapshot } from '../../model/index.ts';
import type { ModelState } from '../../model/index.ts';
import type { ScriptStep } from '../lockstep/symbolic.ts';
import type { StepFunction } from './expander.ts';
import { alphabet } from './scope.ts';
import type { ExploreScope, ScopeNames } from './scope.ts';

/** The steps of a path given as alphabet indices, replayed with the model from the empty store. Pure. */
export function pathSteps(
  config: Config,
  scope: ExploreScope,
  names: ScopeNames,
  indices: readonly number[],
  stepFn: StepFunction = modelStep,
): ScriptStep[] {
  let state: ModelState = initialState(config);
  const out: ScriptStep[] = [];
  for (const i of indices) {
    const s = alphabet(state.context, scope, names)[i];
    if (s === undefined)
      throw new Error(`explore: step ${i} is not in the alphabet of a state on the path (an engine defect)`);
    out.push(s);
    state = 'do' in s ? stepFn(state, s.do).state : fromSnapshot(JSON.parse(JSON.stringify(toSnapshot(state))));
  }
  return out;
}
