import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STDERR_FILE_CAP_BYTES, STDERR_TAIL_LINES, StderrFile } from './stderrFile.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const PEER = join(ROOT, 'conformance', 'hostile', 'peers', 'peer.py');

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'jobcheck-stderr-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('the stderr file', () => {
  it('keeps lines up to its cap, each after its process, then counts what it drops and says so', async () => {
    const file = join(dir, 'capped.txt');
    const sink = new StderrFile(file, 100);
    for (let i = 0; i < 10; i++) sink.line(`impl ${i % 2 === 0 ? 41 : 42}`, `line ${i}`);
    const summary = await sink.close();
    const text = await readFile(file, 'utf8');
    // Each entry is `[impl 41] line 0` and a newline: 17 bytes, so five fit under 100 and five are dropped.
    expect(text.split('\n').slice(0, 5)).toEqual([
      '[impl 41] line 0',
      '[impl 42] line 1',
      '[impl 41] line 2',
      '[impl 42] line 3',
      '[impl 41] line 4',
    ]);
    expect(text.split('\n')[5]).toBe('... 85 bytes of stderr dropped: the file keeps the first 100 bytes');
    expect(summary).toMatchObject({ lines: 10, bytesWritten: 85, bytesDropped: 85 });
    expect(summary.tail.at(-1)).toBe('[impl 42] line 9');
  });

  it('keeps only the last lines for the page, and writes no file when nothing came', async () => {
    const file = join(dir, 'tail.txt');
    const sink = new StderrFile(file);
    for (let i = 0; i < 100; i++) sink.line('module', `n${i}`);
    const summary = await sink.close();
    expect(summary.tail).toHaveLength(STDERR_TAIL_LINES);
    expect(summary.tail[0]).toBe(`[module] n${100 - STDERR_TAIL_LINES}`);
    const silent = new StderrFile(join(dir, 'silent.txt'));
    expect((await silent.close()).lines).toBe(0);
    expect(existsSync(join(dir, 'silent.txt'))).toBe(false);
  });

  it('holds a check of a peer flooding stderr to the cap: stderr.txt beside the page, every line after its process', async () => {
    const report = join(dir, 'report');
    // Every process of the peer writes 600 kB of short lines before it starts, and the first one a 5 MB line besides.
    const impl = `sh -c 'yes stderr-line | head -c 600000 >&2; exec python3 ${PEER} stderr-flood 5 ${join(dir, 'marker')}'`;
    const args = ['check', '--impl', impl, '--workers', '2', '--concurrent', 'only', '--concurrent-runs', '2'];
    // The peer speaks jobcheck/1 alone: its competing workers are not exercised, and the check exits 3.
    const ended = await promisify(execFile)(
      process.execPath,
      [join(ROOT, 'bin', 'jobcheck.js'), ...args, '--seed', '1', '--report', report],
      { cwd: ROOT, timeout: 60_000 },
    ).then(
      () => ({ code: 0, stdout: '' }),
      (error: { code: number; stdout: string }) => error,
    );
    expect(ended.code).toBe(3);
    const stdout = ended.stdout;
    expect(stdout).toContain(`report: ${join(report, 'latest', 'index.html')}`);
    const file = join(report, 'latest', 'stderr.txt');
    const size = (await stat(file)).size;
    const lines = (await readFile(file, 'utf8')).trimEnd().split('\n');
    const note = lines.pop() ?? '';
    expect(note).toMatch(/^\.\.\. \d+ bytes of stderr dropped: the file keeps the first 1048576 bytes$/);
    expect(size - Buffer.byteLength(`${note}\n`)).toBeLessThanOrEqual(STDERR_FILE_CAP_BYTES);
    expect(size).toBeGreaterThan(STDERR_FILE_CAP_BYTES - 1000);
    for (const line of lines) expect(line).toMatch(/^\[(impl|workers) \d+\] /);
    const page = await readFile(join(report, 'latest', 'index.html'), 'utf8');
    expect(page).toContain('<a href="stderr.txt">stderr.txt</a>');
    expect(page).toMatch(/\[(impl|workers) \d+\] stderr-line/);
  }, 60_000);

  it("keeps a module's stderr as [module] lines, and run.json names the module from the working directory", async () => {
    const base = pathToFileURL(join(ROOT, 'conformance', 'isolated', 'fixtures', 'base.mjs')).href;
    const module = join(dir, 'noisy.mjs');
    await writeFile(
      module,
      `import { correctFactory } from '${base}';\nexport default correctFactory((n) => { if (n === 1) console.error('noisy module: first command'); });\n`,
    );
    const args = ['check', '--module', module, '--runs', '1', '--no-explore', '--seed', '1', '--report', 'mrep'];
    await promisify(execFile)(process.execPath, [join(ROOT, 'bin', 'jobcheck.js'), ...args], {
      cwd: dir,
      timeout: 60_000,
    });
    expect(await readFile(join(dir, 'mrep', 'latest', 'stderr.txt'), 'utf8')).toContain(
      '[module] noisy module: first command\n',
    );
    expect(JSON.parse(await readFile(join(dir, 'mrep', 'latest', 'run.json'), 'utf8'))).toMatchObject({
      target: 'noisy.mjs',
      verdict: 'agree',
    });
  }, 60_000);
});
