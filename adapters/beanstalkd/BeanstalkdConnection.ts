/**
 * One connection to a beanstalkd server, speaking its documented text protocol
 * (beanstalkd's doc/protocol.txt): a command line, an optional body, and one reply per command, in
 * order. It is this small because the npm client (`beanstalkd` 2.2.5) was last published years ago
 * over babel-runtime 5 and bluebird 3, and a reservation in beanstalkd belongs to a connection: the
 * adapter needs one connection per worker, each under its control, which a twenty-line reader of
 * the protocol gives without a dependency.
 */
import { Socket } from 'node:net';
import { BeanstalkdAdapterError } from './BeanstalkdAdapterError.ts';

/** A reply: its first line, and the body of those that carry one (RESERVED, FOUND, OK). */
export interface BeanstalkdReply {
  readonly head: string;
  readonly body?: string;
}

/** Replies whose first line ends with a byte count followed by a body. */
const WITH_BODY = /^(RESERVED \d+|FOUND \d+|OK) (\d+)$/;

/** An open connection; commands are queued and answered in order. */
export class BeanstalkdConnection {
  private buffer = Buffer.alloc(0);
  private readonly waiting: { resolve: (r: BeanstalkdReply) => void; reject: (e: Error) => void }[] = [];
  private failure: Error | undefined;

  private constructor(private readonly socket: Socket) {
    socket.on('data', (chunk: Buffer) => {
      this.buffer = Buffer.concat([this.buffer, chunk]);
      this.drain();
    });
    const fail = (error: Error): void => {
      this.failure ??= new BeanstalkdAdapterError('connection_failed', `beanstalkd connection: ${error.message}`, {
        cause: error,
      });
      for (const w of this.waiting.splice(0)) w.reject(this.failure);
    };
    socket.on('error', fail);
    socket.on('close', () => fail(new Error('closed')));
  }

  /** Connects to `host:port`; rejects with `connection_failed`. */
  static open(host: string, port: number): Promise<BeanstalkdConnection> {
    return new Promise((resolve, reject) => {
      const socket = new Socket();
      socket.setNoDelay(true);
      socket.once('error', (error) =>
        reject(
          new BeanstalkdAdapterError(
            'connection_failed',
            `cannot reach beanstalkd at ${host}:${port}: ${error.message}`,
            {
              cause: error,
            },
          ),
        ),
      );
      socket.connect(port, host, () => resolve(new BeanstalkdConnection(socket)));
    });
  }

  private drain(): void {
    for (;;) {
      const end = this.buffer.indexOf('\r\n');
      if (end < 0) return;
      const head = this.buffer.subarray(0, end).toString('latin1');
      const sized = WITH_BODY.exec(head);
      let consumed = end + 2;
      let body: string | undefined;
      if (sized !== null) {
        const bytes = Number(sized[2]);
        if (this.buffer.length < consumed + bytes + 2) return;
        body = this.buffer.subarray(consumed, consumed + bytes).toString('utf8');
        consumed += bytes + 2;
      }
      this.buffer = this.buffer.subarray(consumed);
      const w = this.waiting.shift();
      w?.resolve(body === undefined ? { head } : { head, body });
    }
  }

  /** Sends one command (and its body, for `put`) and resolves with its reply. */
  send(line: string, body?: string): Promise<BeanstalkdReply> {
    if (this.failure !== undefined) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => {
      this.waiting.push({ resolve, reject });
      const data = body === undefined ? `${line}\r\n` : `${line}\r\n${body}\r\n`;
      this.socket.write(data);
    });
  }

  /** Ends the connection (beanstalkd then releases every job it had reserved). Idempotent. */
  close(): Promise<void> {
    if (this.socket.destroyed) return Promise.resolve();
    return new Promise((resolve) => {
      this.socket.once('close', () => resolve());
      this.socket.end();
      this.socket.destroy();
    });
  }
}

/** The fields of a `stats-job` or `stats` reply (beanstalkd's flat YAML), as strings. Pure. */
export function parseStats(body: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of body.split('\n')) {
    const m = /^([a-z-]+): (.*)$/.exec(line.trim());
    if (m !== null) out[m[1] as string] = (m[2] as string).replace(/^"(.*)"$/, '$1');
  }
  return out;
}
