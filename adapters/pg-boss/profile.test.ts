/** pg-boss's profile target: the version it names, and declarations and links that name real rules. Needs no server. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { RULE_IDS } from '../../contract/rules.ts';
import { PgBossAdapterError } from './PgBossAdapterError.ts';
import { pgBossProfile, queueOptions } from './index.ts';

const installed = JSON.parse(
  readFileSync(new URL('../../node_modules/pg-boss/package.json', import.meta.url), 'utf8'),
) as { version: string };

describe('the pg-boss profile target', () => {
  it('names the installed pg-boss version, a 12.x', () => {
    expect(pgBossProfile.version).toBe(installed.version);
    expect(pgBossProfile.version).toMatch(/^12\.\d+\.\d+$/);
  });

  it('declares only rules of the contract, each with its reason, and links only pg-boss threads', () => {
    for (const [rule, declaration] of Object.entries(pgBossProfile.declarations)) {
      expect(RULE_IDS).toContain(rule);
      expect(declaration?.why.length).toBeGreaterThan(20);
    }
    for (const [rule, link] of Object.entries(pgBossProfile.upstream ?? {})) {
      expect(RULE_IDS).toContain(rule);
      expect(link?.url).toMatch(/^https:\/\/github\.com\/timgit\/pg-boss\/(issues|pull)\/\d+$/);
      expect(link?.says.length).toBeGreaterThan(20);
    }
  });

  it('maps the config to the queue options a pg-boss user picks, and refuses what pg-boss cannot carry', () => {
    expect(queueOptions({ capacity: 2, maxAttempts: 3, leaseTicks: 5, backoffBase: 2, backoffCap: 8 })).toEqual({
      policy: 'key_strict_fifo',
      retryLimit: 2,
      retryDelay: 2,
      retryBackoff: true,
      retryDelayMax: 8,
      expireInSeconds: 5,
    });
    expect(() =>
      queueOptions({ capacity: 2, maxAttempts: 2 ** 31, leaseTicks: 5, backoffBase: 2, backoffCap: 8 }),
    ).toThrow(PgBossAdapterError);
    expect(() =>
      queueOptions({ capacity: 2, maxAttempts: 2 ** 31, leaseTicks: 5, backoffBase: 2, backoffCap: 8 }),
    ).toThrow(/maxAttempts.*2147483648/);
  });
});
