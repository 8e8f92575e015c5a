import { describe, expect, it } from 'vitest';
import { lifecycleTransitions } from '../../model/index.ts';
import { jobStoreFactory } from '../stores/jobStore.ts';
import { modelFactory } from '../stores/model.ts';
import { brokenVariant } from '../broken/index.ts';
import { categorySummary, neverHit } from '../coverage/coverage.ts';
import { lifecyclePaths } from './lifecyclePaths.ts';
import { runPathSuite } from './pathSuite.ts';

describe('the path suite from the lifecycle machine', () => {
  it('enumerates a path to each of the five lifecycle states and through each of the 13 declared transitions', () => {
    const paths = lifecyclePaths();
    const states = paths.flatMap((p) => ('state' in p.goal ? [p.goal.state] : []));
    const transitions = paths.flatMap((p) => ('transition' in p.goal ? [p.goal.transition] : []));
    expect(new Set(states)).toEqual(new Set(['ready', 'waiting', 'running', 'done', 'dead']));
    expect(transitions).toHaveLength(13);
    expect(new Set(transitions)).toEqual(new Set(lifecycleTransitions().map((t) => t.id)));
  });

  it('turns every path into a script that starts with a submission at now=0 and ends with a restart', () => {
    for (const p of lifecyclePaths()) {
      expect(p.script[0]).toMatchObject({ do: { type: 'submit', id: 'a', now: 0 } });
      expect(p.script[p.script.length - 1]).toEqual({ restart: true });
    }
  });

  it('finds the late-claim path that leaves no time for a retry (claim at deadline-1, fail at once)', () => {
    const p = lifecyclePaths().find(
      (x) => 'transition' in x.goal && x.goal.transition.endsWith('[isCurrentDelivery]--> dead'),
    );
    expect(p?.script.slice(1, 3)).toEqual([
      { do: { type: 'claim', worker: 'w1', now: 9 } },
      { do: { type: 'fail', worker: 'w1', token: 1, kind: 'transient', error: 'timeout', now: 9 } },
    ]);
  });

  it('agrees with impl/JobStore on every path and leaves no lifecycle transition, state or pair unhit', async () => {
    const result = await runPathSuite({ factory: jobStoreFactory() });
    expect(result.failures.map((f) => f.path.name)).toEqual([]);
    expect(result.verdict).toBe('agree');
    expect(neverHit(result.coverage, 'transitions')).toEqual([]);
    expect(neverHit(result.coverage, 'states')).toEqual([]);
    expect(neverHit(result.coverage, 'pairs')).toEqual([]);
  });

  it('reports unhit transitions when paths are left out (so the check above can fail)', async () => {
    const paths = lifecyclePaths().filter((p) => !p.transitions.some((t) => t.includes('isPermanent')));
    const result = await runPathSuite({ factory: jobStoreFactory(), paths });
    expect(neverHit(result.coverage, 'transitions')).toEqual([
      'running --FAIL [isCurrentDelivery && isPermanent]--> dead',
    ]);
    expect(categorySummary(result.coverage, 'transitions')).toEqual({ hit: 12, total: 13 });
  });

  it('agrees with the reference model adapter (the engine finds no difference between the model and itself)', async () => {
    const result = await runPathSuite({ factory: modelFactory });
    expect(result.verdict).toBe('agree');
  });

  // The seed bugs; other catalogue entries may need the random campaign (e.g. ordering across accounts).
  it.each(['capacity-forgets-running', 'retry-forgets-deadline', 'restart-resets-tokens'])(
    'catches the seed bug %s',
    async (name) => {
      const variant = brokenVariant(name);
      if (variant === undefined) throw new Error(`no broken variant ${name}`);
      const result = await runPathSuite({ factory: variant.factory });
      expect(result.verdict).toBe('diverge');
      expect(result.failures.length).toBeGreaterThan(0);
      expect(result.story).toMatch(
        new RegExp(`^path ".+"[^\n]*\nbroken/${variant.name} disagrees with the model at step \\d+`),
      );
    },
  );
});
