/**
 * The tool accepts its own output: the `--json` result of a real check, of an implementation that
 * calls itself by a 1 MB name in hello, goes through `merge` and `github` as it was written (the
 * name once clipped to 203 characters, 3 past what the schema accepts, and both refused it).
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { findPython } from '../examples/python/interpreter.ts';
import { runCli } from './cli.ts';
import { MAX_IMPLEMENTATION_CHARS, checkResultSchema } from './checkJsonSchema.ts';
import { mergeResultSchema } from './mergeJsonSchema.ts';

const python = findPython();
const dir = await mkdtemp(join(tmpdir(), 'jobcheck-own-output-'));
afterAll(() => rm(dir, { recursive: true, force: true }));

async function cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await runCli(args, {
    stdout: { write: (s: string) => (stdout += s) },
    stderr: { write: (s: string) => (stderr += s) },
    isTTY: false,
  });
  return { code, stdout, stderr };
}

describe.skipIf(python === undefined)("the check's own --json result for a 1 MB hello name", () => {
  it('is taken by merge and github as written, the name clipped to what the schema accepts', async () => {
    // A CI run's own GitHub files are not this test's to write.
    vi.stubEnv('GITHUB_STEP_SUMMARY', '');
    vi.stubEnv('GITHUB_OUTPUT', '');
    try {
      const peer = `'${python}' -S conformance/hostile/peers/peer.py huge-name`;
      const report = join(dir, 'report');
      const check = await cli(
        'check',
        '--impl',
        peer,
        '--runs',
        '1',
        '--seed',
        '1',
        '--no-explore',
        '--report',
        report,
        '--json',
      );
      expect(check.code).toBe(0);
      const result = checkResultSchema.parse(JSON.parse(check.stdout));
      expect(result.implementation?.length).toBe(MAX_IMPLEMENTATION_CHARS);
      const resultFile = join(dir, 'result.json');
      await writeFile(resultFile, check.stdout);

      const merge = await cli(
        'merge',
        resultFile,
        join(report, 'coverage.json'),
        '--report',
        join(dir, 'merged'),
        '--json',
      );
      expect(merge.stderr).toBe('');
      expect(merge.code).toBe(0);
      expect(mergeResultSchema.parse(JSON.parse(merge.stdout)).results[0]?.implementation).toBe(result.implementation);
      const mergeFile = join(dir, 'merge.json');
      await writeFile(mergeFile, merge.stdout);

      for (const from of [resultFile, mergeFile]) {
        const github = await cli('github', '--from', from);
        expect(github.stderr).toBe('');
        expect(github.code).toBe(0);
        expect(github.stdout.split('\n')[0]).toBe('## jobcheck: AGREE: the implementation agrees with the model');
      }
      expect((await readFile(join(dir, 'merged', 'coverage.md'), 'utf8')).split('\n')[0]).toMatch(
        /^\*\*Verdict: AGREE/,
      );
    } finally {
      vi.unstubAllEnvs();
    }
  }, 30_000);
});
