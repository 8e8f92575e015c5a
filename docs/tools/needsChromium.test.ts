/**
 * Whether the browser is there decides whether the tests that need it run, skip or fail: a missing
 * one skips them with how to install it, unless `CI` is set; a path that exists counts as there.
 */
import { execPath } from 'node:process';
import { describe, expect, it } from 'vitest';
import { chromiumMissing, chromiumRequired } from './chromium.ts';

describe('needing Chromium', () => {
  it('names the missing browser and how to install it', () => {
    expect(chromiumMissing({ ...process.env, JOBCHECK_CHROMIUM: '/no/such/chromium' })).toBe(
      'no Chromium at /no/such/chromium: install it with `sudo apt-get install -y chromium` (Debian), or set JOBCHECK_CHROMIUM to a Chromium or Chrome executable',
    );
  });

  it('counts an executable that is there as a browser (whether it starts is for the tests to find out)', () => {
    expect(chromiumMissing({ ...process.env, JOBCHECK_CHROMIUM: execPath })).toBeUndefined();
  });

  it('fails instead of skipping in CI', () => {
    expect(chromiumRequired({ CI: 'true' })).toBe(true);
    expect(chromiumRequired({ CI: '' })).toBe(false);
    expect(chromiumRequired({})).toBe(false);
  });
});
