/**
 * The SQS emulator's process (`node emulatorMain.ts <emulator> <clock> [<port>]`), started by
 * servers.ts with an IPC channel: it installs the clock (emulatorClock.ts) before the emulator's
 * code is loaded, starts the emulator on 127.0.0.1 at `<port>` (0 or none: the system picks), and
 * reports `{type: 'ready', port, now}` (`now`: its clock's Date.now()). On the stopped clock it answers `{type: 'clock', id, ms}` by setting the
 * clock and replying `{type: 'clock-set', id}` once set. It exits when the channel closes (its
 * parent stopped it, or died however), so it never outlives the harness.
 * `<clock>` is `stopped:<ms>` or `fast:<factor>[:<from ms>]`.
 */
import { z } from 'zod';
import { installFastClock, installStoppedClock } from './emulatorClock.ts';
import type { StoppedClock } from './emulatorClock.ts';

const clockMessage = z.object({ type: z.literal('clock'), id: z.number().int(), ms: z.number().int() });

/** Starts the emulator named `name` on 127.0.0.1 at `port` (0: the system picks); returns the port it listens on. */
async function start(name: string, port: number): Promise<number> {
  if (name === 'fauxqs') {
    const { buildApp } = await import('fauxqs');
    // fauxqs's package exports only its app; its stores are files beside it, loaded as buildApp's types name them.
    type Stores = NonNullable<NonNullable<Parameters<typeof buildApp>[0]>['stores']>;
    const load = async <K extends keyof Stores>(file: string, name: string): Promise<new () => Stores[K]> =>
      ((await import(new URL(file, import.meta.resolve('fauxqs')).href)) as Record<string, new () => Stores[K]>)[
        name
      ] as new () => Stores[K];
    const sqsStore = new (await load<'sqsStore'>('./sqs/sqsStore.js', 'SqsStore'))();
    // An empty host makes fauxqs build queue URLs from the request's own host (127.0.0.1:port).
    sqsStore.host = '';
    const snsStore = new (await load<'snsStore'>('./sns/snsStore.js', 'SnsStore'))();
    const s3Store = new (await load<'s3Store'>('./s3/s3Store.js', 'S3Store'))();
    const app = buildApp({ logger: false, stores: { sqsStore, snsStore, s3Store } });
    const address = await app.listen({ port, host: '127.0.0.1' });
    return Number(new URL(address).port);
  }
  if (name === 'local-aws-sqs') {
    const { createSqsServer } = await import('local-aws-sqs');
    const server = await createSqsServer({
      port,
      hostname: '127.0.0.1',
      emulateQueueCreationLifecycle: false,
      emulateLazyQueues: false,
    });
    const address = server.address();
    if (address === null || typeof address === 'string') throw new Error('local-aws-sqs listens on no TCP port');
    return address.port;
  }
  throw new Error(`no SQS emulator named ${JSON.stringify(name)}`);
}

async function main(): Promise<void> {
  const [name = '', clock = '', port = '0'] = process.argv.slice(2);
  if (process.send === undefined) throw new Error('emulatorMain.ts runs only as a child with an IPC channel');
  const send = process.send.bind(process);
  process.on('disconnect', () => process.exit(0));
  let stopped: StoppedClock | undefined;
  const [kind, value, from] = clock.split(':');
  if (kind === 'stopped') stopped = installStoppedClock(Number(value));
  else if (kind === 'fast') installFastClock(Number(value), from === undefined ? undefined : Number(from));
  else throw new Error(`clock ${JSON.stringify(clock)}: expected stopped:<ms> or fast:<factor>`);
  process.on('message', (raw) => {
    const m = clockMessage.safeParse(raw);
    if (!m.success || stopped === undefined) return;
    stopped.set(m.data.ms);
    send({ type: 'clock-set', id: m.data.id });
  });
  send({ type: 'ready', port: await start(name, Number(port)), now: Date.now() });
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
