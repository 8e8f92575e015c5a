/**
 * The process plumbing under every broker server, on plain `sleep` processes: a kill reaches a
 * child that left the process group for a session of its own, and the Reaper ends what it watches
 * and removes the folder when the process that made it dies by SIGKILL. Also the named
 * configurations: unique names, a sentence each, and a typed error for a name there is not.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { hasCode } from '../../contract/CodedError.ts';
import { CONFIGURATIONS, configuration, configurationsOf } from './configurations.ts';
import { alive, killTree, spawnGroup, treeOf, waitGone } from './processes.ts';

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe('the process tree of a server', () => {
  it('kills a child that left the group for a session of its own', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'jobcheck-tree-'));
    const child = spawnGroup(['sh', '-c', 'setsid sleep 1000 & sleep 1000'], {
      env: process.env,
      log: join(folder, 'log'),
    });
    const leader = child.pid as number;
    let tree: number[] = [];
    for (let i = 0; i < 100 && tree.length < 3; i++) {
      await sleep(20);
      tree = treeOf([leader]);
    }
    expect(tree.length).toBe(3);
    const killed = killTree([leader]);
    expect(await waitGone(killed, 5000)).toBe(true);
    expect(alive(tree)).toEqual([]);
  });

  it('is ended, and its folder removed, by the Reaper when the process that started it is SIGKILLed', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'jobcheck-reaped-'));
    const script = join(folder, 'owner.ts');
    writeFileSync(
      script,
      [
        `import { Reaper, spawnGroup } from ${JSON.stringify(join(import.meta.dirname, 'processes.ts'))};`,
        `const reaper = new Reaper(${JSON.stringify(folder)});`,
        `const child = spawnGroup(['sleep', '1000'], { env: process.env, log: ${JSON.stringify(join(folder, 'log'))} });`,
        'reaper.watch(child.pid);',
        'console.log(child.pid);',
        'setInterval(() => undefined, 1000);',
      ].join('\n'),
    );
    const owner = spawn(process.execPath, ['--import', 'tsx', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    const pid = await new Promise<number>((resolve) =>
      owner.stdout.once('data', (d: Buffer) => resolve(Number(`${d}`.trim()))),
    );
    expect(alive([pid])).toEqual([pid]);
    owner.kill('SIGKILL');
    expect(await waitGone([pid], 10_000)).toBe(true);
    for (let i = 0; i < 100 && existsSync(folder); i++) await sleep(50);
    expect(existsSync(folder)).toBe(false);
  });
});

describe('the named configurations', () => {
  it('have unique names, a sentence each, and at least two a broker', () => {
    const names = CONFIGURATIONS.map((c) => c.name);
    expect(new Set(names).size).toBe(names.length);
    for (const c of CONFIGURATIONS) expect(c.description).toMatch(/^[A-Za-z][^\n]*[^.]\.$/);
    for (const broker of ['redis', 'beanstalkd', 'nats', 'rabbitmq', 'postgres'] as const)
      expect(configurationsOf(broker).length).toBeGreaterThanOrEqual(2);
  });

  it('refuses a name there is not, naming it', () => {
    let thrown: unknown;
    try {
      configuration('redis-fsync-never');
    } catch (error) {
      thrown = error;
    }
    expect(hasCode(thrown, 'unknown_configuration')).toBe(true);
    expect((thrown as Error).message).toContain('"redis-fsync-never"');
  });
});
