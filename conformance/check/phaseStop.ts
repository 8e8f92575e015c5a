/**
 * What a check says about a phase it stopped early on purpose (phaseGate.ts): which phase, why, and
 * in words that name the item that made it stop, so that a report reads "skipped after a timeout in
 * the path "claim, then expire"" rather than "stopped by the time limit", which it was not.
 */
import type { PathSuiteResult } from '../paths/pathSuite.ts';
import type { FixtureOutcome } from './fixturePhase.ts';
import type { GateReason } from './phaseGate.ts';

/** The phases of a check, as a stop names them. */
export type CheckPhase = 'fixtures' | 'restore' | 'paths' | 'campaign' | 'explore' | 'concurrent';

/** A phase that left items not run before the time limit, on purpose. */
export interface PhaseStop {
  readonly phase: CheckPhase;
  /** `timeout`: the implementation let a reply time out earlier in the phase; `fail_fast`: `--fail-fast` after the first divergence. */
  readonly reason: GateReason;
  /** In words, for reports: `skipped after a timeout in the fixture story "x"`, `not run: --fail-fast stopped the check at its first divergence`. */
  readonly note: string;
}

/** The same words for a phase as the rest of the report uses. */
const PHASE_WORDS: Record<CheckPhase, string> = {
  fixtures: 'the fixture stories',
  restore: 'the restore phase',
  paths: 'the path suite',
  campaign: 'the random campaign',
  explore: 'the exploration',
  concurrent: 'the concurrent campaign',
};

// A ProcessError's message starts with its code: `timeout: no reply within 5000 ms; ...`.
const TIMEOUT = /(^|[\s(])timeout: /;

/** The first fixture story that failed by a timeout, in words; undefined when none did. Pure. */
export function timedOutFixture(outcomes: readonly FixtureOutcome[]): string | undefined {
  const hit = outcomes.find((o) => !o.result.ok && TIMEOUT.test(o.result.message));
  return hit === undefined ? undefined : `the fixture story "${hit.fixture.name}"`;
}

/** The first path that failed by a timeout, in words; undefined when none did. Pure. */
export function timedOutPath(paths: PathSuiteResult): string | undefined {
  const hit = paths.failures.find((f) => TIMEOUT.test(f.result.divergence?.error ?? ''));
  return hit === undefined ? undefined : `the path "${hit.path.name}"`;
}

/** A stop of `phase` for `reason`, its note naming `item` (the one that timed out) when known. Pure. */
export function phaseStop(phase: CheckPhase, reason: GateReason, item?: string): PhaseStop {
  const note =
    reason === 'fail_fast'
      ? 'not run: --fail-fast stopped the check at its first divergence'
      : `skipped after a timeout in ${item ?? `an earlier run of ${PHASE_WORDS[phase]}`}`;
  return { phase, reason, note };
}
