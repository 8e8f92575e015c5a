/**
 * The one way a test file says it needs Chromium, as the PostgreSQL tests say they need a server
 * (conformance/postgresEnv.ts): without a browser its tests are skipped, the suite's title saying
 * why and how to install one, so that `npm test` passes on a machine that has none; with `CI` set
 * a missing browser is a failing test instead, never a skip. For test files only (it uses vitest).
 */
import { describe, expect, it } from 'vitest';
import { chromiumMissing, chromiumRequired } from './chromium.ts';

/**
 * `describe(title, body)` for tests that render in Chromium: skipped, with the reason in the title,
 * when there is no browser; in CI replaced by one test that fails with that reason.
 */
export function describeWithChromium(title: string, body: () => void, env: NodeJS.ProcessEnv = process.env): void {
  const missing = chromiumMissing(env);
  if (missing === undefined) {
    describe(title, body);
    return;
  }
  if (chromiumRequired(env)) {
    describe(title, () => {
      it('has Chromium (the tests that need it never skip in CI)', () => {
        expect.fail(`${missing}; .ci/run installs Debian's chromium package`);
      });
    });
    return;
  }
  describe.skip(`${title} (skipped: ${missing}; with CI set this fails instead)`, body);
}
