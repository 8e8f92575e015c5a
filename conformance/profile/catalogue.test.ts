import { describe, expect, it } from 'vitest';
import type { RuleId } from '../../contract/rules.ts';
import { CATALOGUE } from '../broken/index.ts';
import { runProfile } from './runProfile.ts';

/**
 * The rule each broken variant of the catalogue breaks, read from its description (not from a
 * run). commit-not-idempotent breaks two: a second commit of the same (account, key) adds the
 * amount again whether its amount is the same (effect-idempotent) or another (changed-amount-conflicts).
 * dead-job-holds-slot refuses a submit for a slot only a dead job holds: a refusal the capacity
 * check makes, filed under capacity-counts-running whatever else the step exercised.
 * restart-resets-tokens and restart-forgets-ledger restore a store whose snapshot is not the one it
 * was restored from; snapshot-live-alias hands out a snapshot that is not a copy.
 * restore-accepts-anything takes snapshots that section 10 of the contract has refused, which no
 * rule id carries and a profile never offers (the check's restore phase does): it departs on none.
 */
const BREAKS: Readonly<Record<string, readonly RuleId[]>> = {
  'capacity-forgets-running': ['capacity-counts-running'],
  'retry-forgets-deadline': ['no-retry-after-deadline'],
  'restart-resets-tokens': ['snapshot-restore-round-trip'],
  'restart-forgets-ledger': ['snapshot-restore-round-trip'],
  'lease-one-tick-late': ['lease-equality-expires'],
  'last-attempt-requeues': ['last-attempt-expiry-is-dead'],
  'global-fifo': ['account-head-only'],
  'waiting-does-not-block': ['account-head-only'],
  'dead-job-blocks': ['account-head-only'],
  'dead-job-holds-slot': ['capacity-counts-running'],
  'commit-not-idempotent': ['effect-idempotent', 'changed-amount-conflicts'],
  'payload-conflict-accepted': ['changed-payload-conflicts'],
  'lease-before-deadline': ['deadline-precedes-lease'],
  'backoff-not-capped': ['backoff-capped'],
  'snapshot-live-alias': ['snapshot-is-a-copy'],
  'restore-accepts-anything': [],
};

describe('profiles of the broken catalogue', () => {
  it('names every catalogue variant', () => {
    expect(Object.keys(BREAKS).sort()).toEqual(CATALOGUE.map((v) => v.name).sort());
  });

  for (const variant of CATALOGUE) {
    const breaks = BREAKS[variant.name] ?? [];
    const named = breaks.length === 0 ? 'no rule' : `${breaks.join(' and ')} and on no other rule`;
    it(`${variant.name} departs on ${named}`, async () => {
      const p = await runProfile(
        { queue: variant.name, version: 'catalogue', factory: variant.factory, declarations: {} },
        { runs: 8 },
      );
      const departing = p.rules.filter((r) => r.status === 'departs');
      expect(departing.map((r) => r.rule)).toEqual(BREAKS[variant.name]);
      expect(p.unattributed).toEqual([]);
      for (const r of departing) {
        // A real story: it ends at a divergence, no longer than the run it was shrunk from.
        expect(r.departure?.story).toMatch(/disagrees with the model at step \d+/);
        expect(r.departure?.steps).toBeLessThanOrEqual(r.departure?.unshrunkSteps ?? 0);
      }
    });
  }
});
