import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RULE_IDS } from '../../contract/rules.ts';
import type { RuleId } from '../../contract/rules.ts';
import { CONCURRENT_AVOIDANCE, concurrentRestrictionOf } from './concurrentRestriction.ts';
import { ProfileError } from './runProfile.ts';

const root = join(import.meta.dirname, '..', '..');

/** The rules an adapter's profile.ts declares unsupported, read from its text (no broker client is loaded). */
function declaredUnsupported(file: string): RuleId[] {
  const text = readFileSync(file, 'utf8');
  const found = [...text.matchAll(/'([a-z-]+)':\s*\{\s*kind:\s*'unsupported'/g)].map((m) => m[1] as string);
  return found.filter((r): r is RuleId => (RULE_IDS as readonly string[]).includes(r));
}

describe('concurrentRestrictionOf', () => {
  it('gives a one-sentence reason for each entry, every one a rule of the contract', () => {
    for (const [rule, a] of Object.entries(CONCURRENT_AVOIDANCE)) {
      expect(RULE_IDS).toContain(rule);
      expect(a?.why).toMatch(/^[a-z].*\.$/);
    }
  });

  it('covers every rule an adapter under adapters/ declares unsupported, and prints each with its reason', () => {
    const adapters = readdirSync(join(root, 'adapters'), { withFileTypes: true }).filter((d) => d.isDirectory());
    let seen = 0;
    for (const d of adapters) {
      let rules: RuleId[];
      try {
        rules = declaredUnsupported(join(root, 'adapters', d.name, 'profile.ts'));
      } catch {
        continue; // no profile.ts
      }
      seen += rules.length;
      const declarations = Object.fromEntries(rules.map((r) => [r, { kind: 'unsupported' as const, why: 'declared' }]));
      const { avoided } = concurrentRestrictionOf({ declarations });
      expect(avoided.map((a) => a.rule)).toEqual(RULE_IDS.filter((r) => rules.includes(r)));
    }
    expect(seen).toBeGreaterThan(10);
  });

  it('joins the restrictions of several rules into one', () => {
    const { restriction } = concurrentRestrictionOf({
      declarations: {
        'capacity-counts-running': { kind: 'unsupported', why: '' },
        'deadline-kills': { kind: 'unsupported', why: '' },
        'no-retry-after-deadline': { kind: 'unsupported', why: '' },
        'owner-checked': { kind: 'unsupported', why: '' },
        'clock-never-regresses': { kind: 'unsupported', why: '' },
        'last-error-kept': { kind: 'unsupported', why: '' },
        'account-head-only': { kind: 'variant', variant: 'no-account-order', why: '' },
      },
    });
    expect(restriction).toEqual({
      capacityAtLeast: 7,
      noDeadlines: true,
      holdersOnly: true,
      noOverlap: true,
      ignoreFields: ['lastError'],
    });
  });

  it('is a ProfileError naming a declared-unsupported rule with no entry', () => {
    const declarations = { 'ack-settles-done': { kind: 'unsupported' as const, why: 'no acks' } };
    expect(() => concurrentRestrictionOf({ declarations })).toThrow(ProfileError);
    expect(() => concurrentRestrictionOf({ declarations })).toThrow(/ack-settles-done/);
  });
});
