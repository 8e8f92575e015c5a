/**
 * Text from outside where it is printed and written: an artifact's `foundAgainst` in `replay`'s
 * heading, an implementation's name in the check's heading, a refusal's message, a reply and a
 * stderr line in a protocol error, and coverage sources in coverage.md and the HTML page. A
 * newline, a fake `verdict: AGREE` line, an ESC sequence or a Markdown or HTML character is shown
 * as an escape, never acted on.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { emptyCoverage } from '../conformance/coverage/coverage.ts';
import { coverageHtml, coverageMarkdown } from '../conformance/coverage/coverageReport.ts';
import { ProcessError } from '../conformance/protocol/processError.ts';
import { implementationName } from './output/index.ts';
import { runCli } from './cli.ts';

const dir = mkdtempSync(join(tmpdir(), 'jobcheck-outside-text-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const EVIL = 'evil\nverdict: AGREE\u001b[2J\r';
const config = { capacity: 2, maxAttempts: 2, leaseTicks: 3, backoffBase: 1, backoffCap: 2 };

/** No ESC or carriage return anywhere, and no line of the output that the outside text began. */
function expectInert(text: string): void {
  expect(text).not.toMatch(/[\u001b\r]/);
  expect(text.split('\n').filter((line) => line.startsWith('verdict: AGREE\\x1b'))).toEqual([]);
  expect(text.split('\n').filter((line) => /^verdict: AGREE\s*$/.test(line))).toEqual([]);
}

describe('text from outside, printed', () => {
  it("prints an artifact's foundAgainst escaped in the replay heading", async () => {
    const file = join(dir, 'evil-artifact.json');
    const snapshot = {
      format: 'jobcheck.snapshot/1',
      config,
      clock: 1,
      nextToken: 1,
      nextSeq: 1,
      jobs: {},
      balances: {},
      effects: {},
    };
    const artifact = {
      format: 'jobcheck.artifact/1',
      foundAgainst: EVIL,
      createdAt: '2026-01-01T00:00:00.000Z',
      config,
      steps: [{ do: { type: 'tick', now: 1 }, expect: { ok: true, type: 'tick', clock: 1 }, snapshot }],
    };
    writeFileSync(file, JSON.stringify(artifact));
    let stdout = '';
    let stderr = '';
    const code = await runCli(['replay', file, '--builtin'], {
      stdout: { write: (s: string) => (stdout += s) },
      stderr: { write: (s: string) => (stderr += s) },
      isTTY: false,
    });
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout.split('\n')[0]).toContain('found against evil\\nverdict: AGREE\\x1b[2J\\r)');
    expectInert(stdout);
  });

  it("prints the name an implementation gave itself escaped in the check's heading", () => {
    const name = implementationName({
      target: 'python3 jobstore.py',
      implementation: EVIL,
      flags: '',
      seed: 1,
      runs: 1,
    });
    expect(name).toBe('python3 jobstore.py (evil\\nverdict: AGREE\\x1b[2J\\r)');
  });

  it('keeps a protocol error one line that prints as itself, whatever the refusal, the reply and stderr hold', () => {
    const error = new ProcessError('handshake_failed', `hello refused (invalid_config: ${EVIL})`, {
      command: 'x',
      sent: '{"type":"hello"}',
      lineNumber: 1,
      received: `{"ok":false,"message":"\u001b[2J"}`,
      stderr: [EVIL],
    });
    expect(error.message).not.toMatch(/[\n\r\u001b]/);
    expect(error.message).toContain('hello refused (invalid_config: evil\\nverdict: AGREE\\x1b[2J\\r)');
    expect(error.message).toContain('stderr: evil\\nverdict: AGREE');
  });
});

describe('coverage sources from outside, written', () => {
  const cov = { ...emptyCoverage(), sources: ['campaign', 'evil | cell\n# Heading `x` <b>bold</b>\u001b[2J'] };

  it('escapes them in coverage.md: no new line, heading, table cell, code span or HTML of their own', () => {
    const md = coverageMarkdown(cov);
    const line = md.split('\n').find((l) => l.startsWith('Runs:')) ?? '';
    // Rendered, this reads `evil | cell\n# Heading `x` <b>bold</b>\x1b[2J`: every character as itself, the escapes included.
    expect(line).toBe(
      String.raw`Runs: 0, steps: 0. Sources: campaign; evil \| cell\\n# Heading \`x\` \<b\>bold\</b\>\\x1b\[2J.`,
    );
    expect(md).not.toMatch(/^# Heading/m);
    expectInert(md);
  });

  it('escapes them in the HTML page', async () => {
    const html = await coverageHtml(cov);
    expect(html).toContain('<p>Sources: campaign; evil | cell\\n# Heading `x` &lt;b&gt;bold&lt;/b&gt;\\x1b[2J.</p>');
    expect(html).not.toContain('<b>bold</b>');
    expect(html).not.toMatch(/\u001b/);
  });
});
