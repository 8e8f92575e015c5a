/**
 * scripts/brokers.sh starts each broker on 127.0.0.1, exports where to find it, runs the command,
 * and leaves nothing behind: after it ends (the command succeeding, failing, or the script getting
 * SIGTERM) no process of its instances runs, their ports are closed and their folder is gone.
 *
 * The command is a small Node program that speaks to every broker the environment names: Redis
 * answers PING, NATS greets with INFO, beanstalkd answers `stats`, and RabbitMQ (each node of
 * JOBCHECK_AMQP_SERVERS) answers the AMQP protocol header with connection.start. Without the brokers' servers
 * the test skips, saying how to install them; with CI set it fails instead. RabbitMQ takes ~10 s to
 * start and ~4 s to stop, so this file is in the slow part, and starts it once. `JOBCHECK_BROKERS_PORTS` passes through
 * to the script (the range its ports are probed in).
 */
import { CONSUMER_TIMEOUT_MS } from '../adapters/rabbitmq/adapter.ts';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

const SERVERS = { redis: 'redis-server', rabbitmq: 'rabbitmq-server', nats: 'nats-server', beanstalkd: 'beanstalkd' };
const onPath = (bin: string): boolean =>
  [...(process.env['PATH'] ?? '').split(':'), '/usr/sbin', '/usr/bin'].some(
    (d) => d !== '' && existsSync(join(d, bin)),
  );
const absent = Object.values(SERVERS).filter((bin) => !onPath(bin));
const missing =
  absent.length === 0
    ? undefined
    : `no ${absent.join(', ')} here (Debian: apt-get install redis-server rabbitmq-server nats-server beanstalkd libfaketime)`;
if (missing !== undefined && (process.env['CI'] ?? '') !== '') throw new Error(missing);

/**
 * The command run under the script: speaks to each broker named in the environment, prints one
 * JSON line (the variables, the replies, its pid), then exits with its first argument, or stays
 * alive when that is `stay`.
 */
const PROBE = String.raw`
const net = require('node:net');
const fs = require('node:fs');
const ask = (addr, send, done) => new Promise((resolve, reject) => {
  const [host, port] = addr.split(':');
  const socket = net.connect(Number(port), host);
  let got = Buffer.alloc(0);
  socket.setTimeout(5000, () => { socket.destroy(); reject(new Error('no reply from ' + addr)); });
  socket.on('error', reject);
  if (send !== undefined) socket.write(send);
  socket.on('data', (d) => { got = Buffer.concat([got, d]); const r = done(got); if (r !== undefined) { socket.destroy(); resolve(r); } });
});
const line = (b) => { const i = b.indexOf('\r\n'); return i < 0 ? undefined : b.subarray(0, i).toString(); };
const hostPort = (url) => new URL(url).host;
(async () => {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => k.startsWith('JOBCHECK_')));
  const replies = {};
  if (env.JOBCHECK_REDIS_URL) replies.redis = await ask(hostPort(env.JOBCHECK_REDIS_URL), 'PING\r\n', line);
  if (env.JOBCHECK_NATS_URL) replies.nats = (await ask(hostPort(env.JOBCHECK_NATS_URL), undefined, line)).slice(0, 4);
  if (env.JOBCHECK_BEANSTALKD_ADDR) replies.beanstalkd = (await ask(env.JOBCHECK_BEANSTALKD_ADDR, 'stats\r\n', line)).split(' ')[0];
  if (env.JOBCHECK_BEANSTALKD_CLOCK) replies.clock = fs.readFileSync(env.JOBCHECK_BEANSTALKD_CLOCK, 'utf8').trim();
  const amqp = (url) => ask(hostPort(url), Buffer.from('AMQP\x00\x00\x09\x01', 'latin1'), (b) =>
    b.length < 11 ? undefined : { frame: b[0], classId: b.readUInt16BE(7), methodId: b.readUInt16BE(9) });
  if (env.JOBCHECK_AMQP_URL) replies.amqp = await amqp(env.JOBCHECK_AMQP_URL);
  if (env.JOBCHECK_AMQP_SERVERS)
    replies.amqpServers = await Promise.all(env.JOBCHECK_AMQP_SERVERS.split(',').map((e) => amqp(e.slice(e.indexOf('=') + 1))));
  console.log(JSON.stringify({ env, replies, pid: process.pid }));
  if (process.argv[1] === 'stay') setInterval(() => {}, 1000);
  else process.exitCode = Number(process.argv[1]);
})().catch((e) => { console.log(JSON.stringify({ error: String(e) })); process.exitCode = 9; });
`;

interface Probe {
  readonly env: Record<string, string>;
  readonly replies: Record<string, unknown>;
  readonly pid: number;
}

interface Outcome {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly probe: Probe;
  readonly stderr: string;
}

/** Runs `bash scripts/brokers.sh <brokers> -- node -e PROBE <exit>`; with `stay`, sends SIGTERM to the script once the probe has spoken. */
/**
 * This process's environment without what an enclosing brokers.sh set (CI runs the suite inside
 * one): the probe must see only what the script under test names.
 */
function outsideBrokers(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const k of Object.keys(env))
    if (
      /^JOBCHECK_(REDIS_URL|AMQP_URL|AMQP_SERVERS|AMQP_CONSUMER_TIMEOUTS?(_MS)?|NATS_URL|BEANSTALKD_ADDR|BEANSTALKD_CLOCK|BROKERS_DIR|BROKERS_PIDS)$/.test(
        k,
      )
    )
      delete env[k];
  return env;
}

function runScript(brokers: readonly string[], exit: number | 'stay', env: NodeJS.ProcessEnv = {}): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['scripts/brokers.sh', ...brokers, '--', process.execPath, '-e', PROBE, String(exit)], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...outsideBrokers(), ...env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
      if (exit === 'stay' && stdout.includes('\n')) child.kill('SIGTERM');
    });
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code, signal) => {
      const first = stdout.split('\n')[0] ?? '';
      try {
        resolve({ code, signal, probe: JSON.parse(first) as Probe, stderr });
      } catch {
        reject(new Error(`no probe line (exit ${code}): ${stdout}\n${stderr}`));
      }
    });
  });
}

const refused = (port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.on('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.on('error', () => resolve(true));
  });

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** Every process group the script started is empty, every port it handed out refuses, its folder is gone. */
async function expectNothingLeft(probe: Probe): Promise<void> {
  const groups = (probe.env['JOBCHECK_BROKERS_PIDS'] ?? '')
    .split(' ')
    .filter((g) => g !== '')
    .map(Number);
  expect(groups.length).toBeGreaterThan(0);
  for (const g of groups) expect(alive(-g), `process group ${g}`).toBe(false);
  expect(alive(probe.pid), 'the command').toBe(false);
  const ports = [
    ...['JOBCHECK_REDIS_URL', 'JOBCHECK_NATS_URL', 'JOBCHECK_AMQP_URL', 'JOBCHECK_BEANSTALKD_ADDR'].map(
      (k) => probe.env[k],
    ),
    ...(probe.env['JOBCHECK_AMQP_SERVERS'] ?? '').split(',').filter((e) => e !== ''),
  ]
    .filter((v): v is string => v !== undefined)
    .map((v) => Number(v.split(':').at(-1)));
  for (const port of ports) expect(await refused(port), `port ${port}`).toBe(true);
  const folder = probe.env['JOBCHECK_BROKERS_DIR'] ?? '';
  expect(folder).not.toBe('');
  expect(existsSync(folder), folder).toBe(false);
}

const REPLIES = {
  redis: { redis: '+PONG' },
  nats: { nats: 'INFO' },
  beanstalkd: { beanstalkd: 'OK', clock: '@2026-01-01 00:00:00' },
  rabbitmq: { amqp: { frame: 1, classId: 10, methodId: 10 } },
};

/** The variables naming where a broker is, of those the probe saw: one each, two for beanstalkd (its clock). */
const named = (probe: Probe): string[] =>
  Object.keys(probe.env)
    .filter((k) => /_(URL|ADDR|CLOCK)$/.test(k))
    .sort();

describe.skipIf(missing !== undefined)(
  `scripts/brokers.sh${missing === undefined ? '' : ` (skipped: ${missing})`}`,
  () => {
    // RabbitMQ is started once (it takes ~10 s), as two nodes at once (two consumer_timeouts): every
    // broker's start and stop is seen in the run of `all`, and the signal's path, which stops the
    // brokers the same way, in a run of the three quick ones.
    it('starts all four for `all` on 127.0.0.1 (RabbitMQ once per consumer_timeout), names each in the environment, passes on the exit status of a failing command, and still stops them', async () => {
      const { code, probe } = await runScript(['all'], 3, {
        JOBCHECK_AMQP_CONSUMER_TIMEOUTS: `${CONSUMER_TIMEOUT_MS},400`,
      });
      expect(code).toBe(3);
      expect(probe.replies).toEqual({
        ...REPLIES.redis,
        ...REPLIES.nats,
        ...REPLIES.beanstalkd,
        ...REPLIES.rabbitmq,
        amqpServers: [REPLIES.rabbitmq.amqp, REPLIES.rabbitmq.amqp],
      });
      expect(named(probe)).toEqual([
        'JOBCHECK_AMQP_URL',
        'JOBCHECK_BEANSTALKD_ADDR',
        'JOBCHECK_BEANSTALKD_CLOCK',
        'JOBCHECK_NATS_URL',
        'JOBCHECK_REDIS_URL',
      ]);
      for (const k of named(probe))
        if (k !== 'JOBCHECK_BEANSTALKD_CLOCK') expect(probe.env[k], k).toMatch(/127\.0\.0\.1:\d+$/);
      expect(probe.env['JOBCHECK_AMQP_URL']).toMatch(/^amqp:\/\/guest:guest@127\.0\.0\.1:\d+$/);
      // Every node is named with its consumer_timeout; JOBCHECK_AMQP_URL names the longest's, with
      // that value (the one the adapter assumes of a single server).
      const servers = (probe.env['JOBCHECK_AMQP_SERVERS'] ?? '').split(',');
      expect(servers.map((e) => e.split('=')[0])).toEqual([String(CONSUMER_TIMEOUT_MS), '400']);
      expect(servers[0]).toBe(`${CONSUMER_TIMEOUT_MS}=${probe.env['JOBCHECK_AMQP_URL']}`);
      expect(servers[1]).toMatch(/^400=amqp:\/\/guest:guest@127\.0\.0\.1:\d+$/);
      expect(servers[1]).not.toContain(probe.env['JOBCHECK_AMQP_URL'] as string);
      expect(probe.env['JOBCHECK_AMQP_CONSUMER_TIMEOUT_MS']).toBe(String(CONSUMER_TIMEOUT_MS));
      await expectNothingLeft(probe);
    }, 240_000);

    it('starts only the brokers named, and on SIGTERM stops the command and every one of them, and exits with 143', async () => {
      const { code, probe } = await runScript(['redis', 'nats', 'beanstalkd'], 'stay');
      expect(code).toBe(143);
      expect(probe.replies).toEqual({ ...REPLIES.redis, ...REPLIES.nats, ...REPLIES.beanstalkd });
      expect(named(probe)).toEqual([
        'JOBCHECK_BEANSTALKD_ADDR',
        'JOBCHECK_BEANSTALKD_CLOCK',
        'JOBCHECK_NATS_URL',
        'JOBCHECK_REDIS_URL',
      ]);
      await expectNothingLeft(probe);
    }, 240_000);
  },
);
