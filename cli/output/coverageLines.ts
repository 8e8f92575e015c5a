/**
 * Coverage on a line or three, as `check`, `explore` and `coverage` print it: a summary per
 * category, and what no step reached.
 */
import { COVERAGE_CATEGORIES, categorySummary, neverHit } from '../../conformance/coverage/coverage.ts';
import type { Coverage } from '../../conformance/coverage/coverage.ts';
import type { RuleId } from '../../contract/rules.ts';

/**
 * Items never hit, on one line: all of them when few, the first three and a count otherwise,
 * saying where the whole list is (`where`; null when no file lists them). Pure.
 */
export function neverHitLine(missing: readonly string[], where: string | null = 'coverage.md'): string {
  if (missing.length === 0) return 'none';
  if (missing.length <= 4) return missing.join(', ');
  return `${missing.length}, e.g. ${missing.slice(0, 3).join(', ')} ${where === null ? `and ${missing.length - 3} more` : `(all in ${where})`}`;
}

/** One line per coverage category, `transitions 13/13`. Pure. */
export function coverageSummary(cov: Coverage): string {
  return COVERAGE_CATEGORIES.map((c) => {
    const { hit, total } = categorySummary(cov, c);
    return `${c} ${hit}/${total}`;
  }).join(', ');
}

/** The rules no step of the run was decided by, in contract order. Pure. */
export function rulesNeverHit(cov: Coverage): readonly RuleId[] {
  return neverHit(cov, 'rules') as RuleId[];
}

/** The "never hit" lines of the summary: rejection codes, transitions and rules no step reached. Pure. */
export function neverHitLines(cov: Coverage): string[] {
  return [
    `  rejection codes never hit: ${neverHitLine(neverHit(cov, 'rejections'))}`,
    `  transitions never hit: ${neverHitLine(neverHit(cov, 'transitions'))}`,
    `  rules never hit: ${neverHitLine(rulesNeverHit(cov), null)}`,
  ];
}
