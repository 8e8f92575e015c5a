/**
 * The process plumbing under every broker server, on plain `sleep` processes: a kill reaches a
 * child that left the process group for a session of its own, and the Reaper ends what it watches
 * and removes the folder when the process that made it dies by SIGKILL; a stop returns only once
 * every thread of a busy process has stopped. Also the named
 * configurations: unique names, a sentence each, and a typed error for a name there is not.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { hasCode } from '../../contract/CodedError.ts';
import { CONFIGURATIONS, configuration, configurationsOf } from './configurations.ts';
import { alive, killTree, signalTree, spawnGroup, stopTree, treeOf, waitGone } from './processes.ts';

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
    rmSync(folder, { recursive: true, force: true });
  });

  it('stops every thread of a busy process before stopTree returns, which then writes nothing', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'jobcheck-stop-'));
    const log = join(folder, 'log');
    // Busy on its main thread and writing a dot every millisecond; node runs several threads.
    const child = spawnGroup([process.execPath, '-e', 'setInterval(() => process.stdout.write("."), 1)'], {
      env: process.env,
      log,
    });
    const pid = child.pid as number;
    try {
      for (let i = 0; i < 200 && !existsSync(log); i++) await sleep(10);
      for (let i = 0; i < 200 && readFileSync(log).length === 0; i++) await sleep(10);
      for (let round = 0; round < 20; round++) {
        expect(stopTree([pid], 5000)).toEqual([]);
        const states = readdirSync(`/proc/${pid}/task`).map((task) => {
          const stat = readFileSync(`/proc/${pid}/task/${task}/stat`, 'utf8');
          return stat.charAt(stat.lastIndexOf(')') + 2);
        });
        expect(states.length).toBeGreaterThan(1);
        expect(
          states.every((state) => state === 'T'),
          `thread states ${states.join('')}`,
        ).toBe(true);
        const written = readFileSync(log).length;
        await sleep(30);
        expect(readFileSync(log).length).toBe(written);
        signalTree([pid], 'SIGCONT');
        const resumed = readFileSync(log).length;
        for (let i = 0; i < 200 && readFileSync(log).length === resumed; i++) await sleep(5);
        expect(readFileSync(log).length).toBeGreaterThan(resumed);
      }
    } finally {
      killTree([pid]);
      await waitGone([pid], 5000);
      rmSync(folder, { recursive: true, force: true });
    }
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
