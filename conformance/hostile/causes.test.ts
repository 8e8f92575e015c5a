/**
 * The causes of the hostile cases partition them: every case of the table belongs to exactly one
 * cause, and the case each cause gives the suite is one of its own. So no case can be left out of
 * both the suite and every cause, and no cause can lose its case in the suite.
 */
import { describe, expect, it } from 'vitest';
import { HOSTILE_CASES } from './cases.ts';
import { HOSTILE_CAUSES, SUITE_CASE_NAMES } from './causes.ts';

describe('the causes of the hostile cases', () => {
  const names = HOSTILE_CASES.map((c) => c.name);

  it('name every case of the table exactly once, and no case the table does not have', () => {
    const listed = HOSTILE_CAUSES.flatMap((c) => c.cases);
    expect([...listed].sort()).toEqual([...names].sort());
    expect(new Set(listed).size).toBe(listed.length);
  });

  it('each give the suite one case of their own, under a name of their own', () => {
    for (const c of HOSTILE_CAUSES) expect(c.cases, c.name).toContain(c.suite);
    expect(new Set(HOSTILE_CAUSES.map((c) => c.name)).size).toBe(HOSTILE_CAUSES.length);
    expect(SUITE_CASE_NAMES.size).toBe(HOSTILE_CAUSES.length);
  });
});
