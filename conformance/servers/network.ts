/**
 * Loopback ports and the probes that tell a server answers. Ports are drawn from a range below
 * Linux's ephemeral ports (JOBCHECK_BROKERS_PORTS, default 20000-32000, as scripts/brokers.sh), so
 * that a client connection's own port never takes a server's port between a kill and its restart;
 * never a broker's default port. A probe opens one connection, says what the protocol's greeting
 * needs, and reads at most a few bytes within its time: it answers true or false, never throws.
 */
import { createConnection, createServer } from 'node:net';
import { ServerError } from './ServerError.ts';

/** The range of ports probed, from JOBCHECK_BROKERS_PORTS (`LOW-HIGH`). Throws `no_port` for a malformed one. */
export function portRange(env: NodeJS.ProcessEnv = process.env): { low: number; high: number } {
  const text = env['JOBCHECK_BROKERS_PORTS'] ?? '20000-32000';
  const m = /^(\d+)-(\d+)$/.exec(text);
  const low = Number(m?.[1]);
  const high = Number(m?.[2]);
  if (m === null || low < 1024 || high > 65535 || low > high)
    throw new ServerError(
      'no_port',
      `JOBCHECK_BROKERS_PORTS ${JSON.stringify(text)} is not LOW-HIGH within 1024-65535`,
    );
  return { low, high };
}

/** Whether 127.0.0.1:`port` can be bound now. */
function bindable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen({ port, host: '127.0.0.1', exclusive: true }, () => server.close(() => resolve(true)));
  });
}

/** Ports handed out by this process, never handed out again. */
const taken = new Set<number>();

/** A free loopback port of the range, never one handed out before. Throws `no_port`. */
export async function freePort(env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const { low, high } = portRange(env);
  for (let tries = 0; tries < 200; tries++) {
    const port = low + Math.floor(Math.random() * (high - low + 1));
    if (taken.has(port)) continue;
    if (await bindable(port)) {
      taken.add(port);
      return port;
    }
  }
  throw new ServerError('no_port', `no free port on 127.0.0.1 in ${low}-${high} after 200 tries`);
}

/**
 * Opens 127.0.0.1:`port`, writes `send` (`'connect'`: the connection is the answer; `'listen'`: the
 * server speaks first), and gives `check` what arrives until it answers or `ms` pass.
 */
function talk(
  port: number,
  send: Buffer | 'connect' | 'listen',
  check: (got: Buffer) => boolean | undefined,
  ms = 2000,
): Promise<boolean> {
  return new Promise<boolean>((resolve) => {
    let got = Buffer.alloc(0);
    const socket = createConnection({ port, host: '127.0.0.1' });
    const done = (answer: boolean): void => {
      clearTimeout(timer);
      socket.destroy();
      resolve(answer);
    };
    const timer = setTimeout(() => done(false), ms);
    socket.once('error', () => done(false));
    socket.once('close', () => done(check(got) ?? false));
    socket.once('connect', () => {
      if (send === 'connect') done(true);
      else if (send !== 'listen') socket.write(send);
    });
    socket.on('data', (chunk: Buffer) => {
      got = Buffer.concat([got, chunk]).subarray(0, 256);
      const answer = check(got);
      if (answer !== undefined) done(answer);
    });
  });
}

/** Whether something accepts a TCP connection on the port. */
export const tcpOpen = (port: number): Promise<boolean> => talk(port, 'connect', () => undefined);

/** Whether Redis answers PING with +PONG (a loading Redis answers -LOADING: not yet). */
export const redisAnswers = (port: number): Promise<boolean> =>
  talk(port, Buffer.from('PING\r\n'), (got) => (got.includes('\r\n') ? got.toString().startsWith('+PONG') : undefined));

/** Whether NATS greets with its INFO line. */
export const natsAnswers = (port: number): Promise<boolean> =>
  talk(port, 'listen', (got) => (got.length >= 5 ? got.toString().startsWith('INFO ') : undefined));

/** Whether an AMQP 0-9-1 server answers the protocol header with a method frame (connection.start). */
export const amqpAnswers = (port: number): Promise<boolean> =>
  talk(port, Buffer.from('AMQP\x00\x00\x09\x01', 'latin1'), (got) => (got.length >= 1 ? got[0] === 1 : undefined));

/** Whether beanstalkd answers `stats` with OK. */
export const beanstalkdAnswers = (port: number): Promise<boolean> =>
  talk(port, Buffer.from('stats\r\n'), (got) => (got.includes('\r\n') ? got.toString().startsWith('OK ') : undefined));
