/**
 * The terminal summary's colour and its "never hit" lines. Colour follows NO_COLOR and
 * FORCE_COLOR, and otherwise only a terminal gets it; picocolors' own detection is checked in a
 * child process to show why it is not used as it stands (it colours whenever CI is set).
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { RULE_IDS } from '../contract/rules.ts';
import { coverageUniverse } from '../conformance/coverage/coverage.ts';
import type { Coverage } from '../conformance/coverage/coverage.ts';
import { colorEnabled, neverHitLines, rulesNeverHit, terminalColors, verdictWord } from './output/index.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const ESC = '\u001b[';

/** picocolors' own answer in a fresh process whose stdout is a pipe, under exactly `env` (plus PATH). */
function picocolorsSays(env: Record<string, string>): boolean {
  const r = spawnSync(
    process.execPath,
    ['-e', 'process.stdout.write(String(require("picocolors").isColorSupported))'],
    {
      cwd: ROOT,
      env: { PATH: process.env['PATH'] ?? '', ...env },
      encoding: 'utf8',
    },
  );
  return r.stdout === 'true';
}

describe('colour', () => {
  it('is off for a pipe and on for a terminal, unless TERM is dumb', () => {
    expect(colorEnabled(false, {})).toBe(false);
    expect(colorEnabled(true, {})).toBe(true);
    expect(colorEnabled(true, { TERM: 'dumb' })).toBe(false);
  });

  it('is forced on by a non-empty FORCE_COLOR and off by a non-empty NO_COLOR, which wins', () => {
    expect(colorEnabled(false, { FORCE_COLOR: '1' })).toBe(true);
    expect(colorEnabled(false, { FORCE_COLOR: '' })).toBe(false);
    expect(colorEnabled(true, { NO_COLOR: '1' })).toBe(false);
    expect(colorEnabled(false, { NO_COLOR: '1', FORCE_COLOR: '1' })).toBe(false);
    expect(colorEnabled(true, { NO_COLOR: '' })).toBe(true);
  });

  it('does not follow CI into a pipe, as picocolors by itself would', () => {
    expect(colorEnabled(false, { CI: 'true' })).toBe(false);
    // picocolors honours NO_COLOR and FORCE_COLOR by itself ...
    expect(picocolorsSays({})).toBe(false);
    expect(picocolorsSays({ FORCE_COLOR: '1' })).toBe(true);
    expect(picocolorsSays({ FORCE_COLOR: '1', NO_COLOR: '1' })).toBe(false);
    // ... but colours a pipe whenever CI is set, which is why the summary decides for itself.
    expect(picocolorsSays({ CI: 'true' })).toBe(true);
  });

  it('colours the verdict word only when enabled', () => {
    expect(verdictWord('agree', terminalColors(false, {}))).toBe('AGREE');
    expect(verdictWord('diverge', terminalColors(false, { NO_COLOR: '1', FORCE_COLOR: '1' }))).toBe('DIVERGE');
    const on = terminalColors(false, { FORCE_COLOR: '1' });
    expect(verdictWord('agree', on)).toBe(`${ESC}1m${ESC}32mAGREE${ESC}39m${ESC}22m`);
    expect(verdictWord('diverge', on)).toContain(`${ESC}31mDIVERGE`);
    expect(verdictWord('incomplete', on)).toContain(`${ESC}33mINCOMPLETE`);
  });
});

const empty = (): Coverage => ({
  format: 'jobcheck.coverage/1',
  runs: 0,
  steps: 0,
  sources: [],
  items: structuredClone(coverageUniverse()),
});

describe('what was never hit', () => {
  it('names every rejection code, transition and rule of an empty coverage', () => {
    const lines = neverHitLines(empty()).join('\n');
    expect(lines).toMatch(/rejection codes never hit: 7, e\.g\. /);
    expect(lines).toMatch(/transitions never hit: 13, e\.g\. /);
    expect(lines).toMatch(new RegExp(`rules never hit: ${RULE_IDS.length}, e\\.g\\. `));
    expect(rulesNeverHit(empty())).toEqual(RULE_IDS);
  });

  it('uses rule counts exactly when the coverage has them', () => {
    const cov = empty();
    const counted = {
      ...cov,
      items: {
        ...cov.items,
        rules: Object.fromEntries(RULE_IDS.map((id) => [id, id === 'tick-advances-clock' ? 0 : 1])),
      },
    };
    expect(rulesNeverHit(counted as Coverage)).toEqual(['tick-advances-clock']);
  });
});
