/**
 * Colour in failure stories: the diverging step bold, the model's line green against the
 * implementation's red, `>>` lines yellow, other steps dim; NO_COLOR and FORCE_COLOR (0 and false
 * included) decide, for the whole summary, as the command line runs it.
 */
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../cli.ts';
import { colorEnabled, colourStory, terminalColors } from './colour.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const ESC = '\u001b[';
const dir = await mkdtemp(join(tmpdir(), 'jobcheck-colour-'));
afterAll(() => rm(dir, { recursive: true, force: true }));

const STORY = [
  'broken/x disagrees with the model at step 2 of 2 (reply differs).',
  '',
  '  1. submit id=a now=0',
  '       model: {"ok":true}',
  '       impl:  same',
  '  2. claim worker=w1 now=0',
  '       model: {"ok":false}',
  '       impl:  {"ok":true}',
  '       >> reply differs at reply.ok: model false, impl true',
  '',
  'reproduce: npx jobcheck check ...',
].join('\n');

describe('a story in colour', () => {
  it('makes the diverging step bold, model green, impl red, >> yellow, and dims the steps that agree', () => {
    const on = colourStory(STORY, terminalColors(false, { FORCE_COLOR: '1' })).split('\n');
    expect(on[2]).toBe('  1. submit id=a now=0');
    expect(on[3]).toBe(`${ESC}2m       model: {"ok":true}${ESC}22m`);
    expect(on[4]).toBe(`${ESC}2m       impl:  same${ESC}22m`);
    expect(on[5]).toBe(`${ESC}1m  2. claim worker=w1 now=0${ESC}22m`);
    expect(on[6]).toBe(`${ESC}32m       model: {"ok":false}${ESC}39m`);
    expect(on[7]).toBe(`${ESC}31m       impl:  {"ok":true}${ESC}39m`);
    expect(on[8]).toBe(`${ESC}33m       >> reply differs at reply.ok: model false, impl true${ESC}39m`);
    expect(on[10]).toBe('reproduce: npx jobcheck check ...');
  });

  it('leaves the story as it is when colour is off', () => {
    expect(colourStory(STORY, terminalColors(true, { NO_COLOR: '1' }))).toBe(STORY);
  });
});

describe('NO_COLOR and FORCE_COLOR', () => {
  it('turns colour off with FORCE_COLOR=0 or false, even on a terminal, and NO_COLOR still wins over FORCE_COLOR', () => {
    expect(colorEnabled(true, { FORCE_COLOR: '0' })).toBe(false);
    expect(colorEnabled(true, { FORCE_COLOR: 'false' })).toBe(false);
    expect(colorEnabled(false, { FORCE_COLOR: '2' })).toBe(true);
    expect(colorEnabled(false, { FORCE_COLOR: 'true' })).toBe(true);
    expect(colorEnabled(false, { NO_COLOR: 'yes', FORCE_COLOR: '1' })).toBe(false);
  });

  it('differs from picocolors alone, which takes FORCE_COLOR=0 as a request for colour', () => {
    const r = spawnSync(
      process.execPath,
      ['-e', 'process.stdout.write(String(require("picocolors").isColorSupported))'],
      { cwd: ROOT, env: { PATH: process.env['PATH'] ?? '', FORCE_COLOR: '0' }, encoding: 'utf8' },
    );
    expect(r.stdout).toBe('true');
  });

  /** `jobcheck check` of a broken store, its stdout a pipe, under `env` (restored after). */
  async function checkUnder(env: Record<string, string | undefined>, name: string): Promise<string> {
    const saved = { FORCE_COLOR: process.env['FORCE_COLOR'], NO_COLOR: process.env['NO_COLOR'] };
    const set = (vars: Record<string, string | undefined>): void => {
      for (const [k, v] of Object.entries(vars)) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
    };
    set({ FORCE_COLOR: undefined, NO_COLOR: undefined, ...env });
    let stdout = '';
    try {
      const args = ['check', '--broken', 'capacity-forgets-running', '--runs', '10', '--no-explore', '--seed', '1'];
      await runCli([...args, '--report', join(dir, name)], {
        stdout: { write: (s: string) => (stdout += s) },
        stderr: { write: () => true },
        isTTY: false,
        stdoutIsTTY: false,
      });
    } finally {
      set(saved);
    }
    return stdout;
  }

  it('colours the story of `jobcheck check` into a pipe with FORCE_COLOR=1, and not with NO_COLOR as well', async () => {
    const forced = await checkUnder({ FORCE_COLOR: '1' }, 'forced');
    expect(forced).toContain(`${ESC}31m       impl:  {"ok":true,"type":"submit"`);
    expect(forced).toContain(`${ESC}33m       >> reply differs at reply.ok`);
    const plain = await checkUnder({ FORCE_COLOR: '1', NO_COLOR: '1' }, 'no-color');
    expect(plain).toContain('>> reply differs at reply.ok');
    expect(plain).not.toContain(ESC);
  }, 60_000);
});
