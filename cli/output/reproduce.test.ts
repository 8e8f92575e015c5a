import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { CheckResultJson } from '../checkJsonSchema.ts';
import { reproduceOf } from '../github.ts';
import type { CheckContext } from './context.ts';
import { concurrentReproduceCommand, flagWord, replayCommand, reproduceCommand, shellWord } from './reproduce.ts';

const ctx: CheckContext = { target: 'impl/JobStore', flags: '--builtin', seed: 1, runs: 5 };

/** The words a POSIX shell makes of `line`, in `cwd`: what a person who pastes it runs. */
function wordsOf(line: string, cwd: string): string[] {
  const r = spawnSync('sh', ['-c', `printf '%s\\0' ${line}`], { cwd, encoding: 'utf8' });
  return r.stdout.split('\0').slice(0, -1);
}

describe('the commands that repeat a failure', () => {
  it('leaves a plain path as it is and quotes any other as one word', () => {
    expect(shellWord('.jobcheck/report/failure.json')).toBe('.jobcheck/report/failure.json');
    expect(shellWord('my report/failure.json')).toBe(`'my report/failure.json'`);
    expect(shellWord(`it's`)).toBe(`'it'\\''s'`);
  });

  it('replays an artifact whose folder is named with commands as that one path, running none of them', () => {
    const cwd = mkdtempSync(join(tmpdir(), 'jobcheck-reproduce-'));
    try {
      for (const dir of ['r $(touch PWNED); echo x', 'a`touch PWNED`b', `q'uote "x" \\ $HOME *`, 'new\nline']) {
        const artifact = `${dir}/failure.json`;
        const line = replayCommand(ctx, artifact).replace(/^npx jobcheck replay /, '');
        expect(wordsOf(line, cwd)).toEqual([artifact, '--builtin']);
      }
      expect(readdirSync(cwd)).toEqual([]);
    } finally {
      rmSync(cwd, { recursive: true, force: true });
    }
  });

  it('reads back, from a result file, every reproduce line a check writes, and no line that runs more', () => {
    const result = (reproduce: string, seed = 7): CheckResultJson =>
      ({ seed, failure: { reproduce } }) as unknown as CheckResultJson;
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), fc.boolean(), (impl, race) => {
        const ctx: CheckContext = { target: impl, flags: `--impl ${flagWord(impl)}`, seed: 7, runs: 5 };
        const line = race ? concurrentReproduceCommand(ctx, 2, '3:1') : reproduceCommand(ctx, '3:1');
        expect(reproduceOf(result(line))).toBe(/[\n\r]/.test(impl) ? undefined : line);
        expect(reproduceOf(result(line, 8))).toBeUndefined();
      }),
    );
    for (const forged of [
      'npx jobcheck check --builtin ; touch PWNED ; echo --seed 7 --path 1',
      'npx jobcheck check --impl "x" && touch PWNED --seed 7 --path 1',
      'npx jobcheck check --impl "$(touch PWNED)" --seed 7 --path 1',
      'npx jobcheck check --module `touch PWNED` --seed 7 --path 1',
    ])
      expect(reproduceOf(result(forged))).toBeUndefined();
  });
});
