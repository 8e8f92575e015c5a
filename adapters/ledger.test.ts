/**
 * One ledger for every adapter: the worker's ledger in memory answers as impl's decisions do, with
 * impl's texts; no adapter spells a claim, commit or stale-token reply of its own; and on each
 * queue one story of commits (applied, repeated, conflicting, out of range) gets the replies, texts
 * included, that impl's JobStore gives. Each queue's case needs its server (`bash scripts/brokers.sh
 * all -- bash scripts/pg.sh npx vitest run adapters/ledger.test.ts`); without one it is skipped,
 * and with `CI` set it fails.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import type { Command, Config, Reply } from '../contract/index.ts';
import type { AdapterFactory } from '../conformance/adapter.ts';
import { postgresMissing } from '../conformance/postgresEnv.ts';
import { balanceOutOfRange, effectConflict, staleToken as implStaleToken } from '../impl/decisions/index.ts';
import { JobStore } from '../impl/memory/JobStore.ts';
import { beanstalkdMissing } from './beanstalkd/beanstalkdEnv.ts';
import { redisMissing } from './bullmq-redis/redisEnv.ts';
import { WorkerLedger, staleToken } from './ledger.ts';
import { natsMissing } from './nats-jetstream/natsEnv.ts';
import { amqpMissing } from './rabbitmq/amqpEnv.ts';

const BIG = Number.MAX_SAFE_INTEGER;

describe('the worker ledger', () => {
  it('applies a new effect, answers a repeat with the balance as it is, and refuses with impl’s texts', () => {
    const ledger = new WorkerLedger();
    const effect = { account: 'x', key: 'k', amount: 3 };
    expect(ledger.commit('a', 1, effect)).toEqual({ ok: true, type: 'commit', id: 'a', applied: true, balance: 3 });
    expect(ledger.commit('b', 2, effect)).toEqual({ ok: true, type: 'commit', id: 'b', applied: false, balance: 3 });
    expect(ledger.commit('c', 3, { ...effect, amount: 4 })).toEqual(effectConflict('x', 'k', 3, 4));
    expect(ledger.commit('d', 4, { account: 'x', key: 'big', amount: BIG })).toEqual(balanceOutOfRange('x', 3, BIG));
    expect(ledger.snapshot()).toEqual({ balances: { x: 3 }, effects: { x: { k: { amount: 3, job: 'a', token: 1 } } } });
  });

  it('snapshots copies, accounts and keys sorted, a `__proto__` key an own property', () => {
    const ledger = new WorkerLedger();
    ledger.commit('a', 1, { account: 'y', key: 'k2', amount: 1 });
    ledger.commit('b', 2, { account: 'y', key: '__proto__', amount: 2 });
    ledger.commit('c', 3, { account: 'x', key: 'k', amount: 5 });
    const first = ledger.snapshot();
    expect(Object.keys(first.balances)).toEqual(['x', 'y']);
    expect(Object.keys(first.effects['y'] ?? {})).toEqual(['__proto__', 'k2']);
    (first.effects['x']?.['k'] as { amount: number }).amount = 99;
    expect(ledger.snapshot().effects['x']?.['k']?.amount).toBe(5);
  });

  it('says stale_token in impl’s text, and what the queue answered after it', () => {
    expect(staleToken(7)).toEqual(implStaleToken(7));
    expect(staleToken(7, 'the queue answered NOT_FOUND')).toEqual({
      ...implStaleToken(7),
      message: `${implStaleToken(7).message}: the queue answered NOT_FOUND`,
    });
  });
});

describe('the adapters', () => {
  const sources = readdirSync(new URL('.', import.meta.url), { withFileTypes: true, recursive: true })
    // A recorder writes the outcome its client saw into a history line (docs/history-format.md), a
    // reply to nobody: it may name a refusal code.
    .filter((e) => e.isFile() && e.name.endsWith('.ts') && !e.name.endsWith('.test.ts') && e.name !== 'recorder.ts')
    .map((e) => `${e.parentPath}/${e.name}`);

  it('spell no claim, commit, conflict, range or stale-token reply of their own: impl builds them', () => {
    const own = /type: '(claim|commit)'|'(stale_token|conflict|out_of_range)'/;
    expect(sources.length).toBeGreaterThan(6);
    const spelled = sources.filter((file) => own.test(readFileSync(file, 'utf8')));
    expect(spelled).toEqual([]);
  });
});

const CONFIG: Config = { capacity: 3, maxAttempts: 2, leaseTicks: 10, backoffBase: 1, backoffCap: 4 };
/** Every command at tick 0: no queue's clock has to move. */
const submit = (id: string, key: string, amount: number): Command => ({
  type: 'submit',
  id,
  account: 'x',
  key,
  amount,
  deadline: 1000,
  now: 0,
});
const claim: Command = { type: 'claim', worker: 'w1', now: 0 };
const settle = (type: 'commit' | 'ack', token: number): Command => ({ type, worker: 'w1', token, now: 0 });

/** One job after another: a applies 1 to x (and repeats), b conflicts on a's key, c would leave the range. */
const STORY: readonly Command[] = [
  submit('a', 'k', 1),
  submit('b', 'k', 2),
  submit('c', 'big', BIG),
  claim,
  settle('commit', 1),
  settle('commit', 1),
  settle('ack', 1),
  claim,
  settle('commit', 2),
  settle('ack', 2),
  claim,
  settle('commit', 3),
  settle('ack', 3),
];

const QUEUES: readonly { name: string; missing: string | undefined; factory: () => Promise<AdapterFactory> }[] = [
  {
    name: 'pg-boss',
    missing: postgresMissing(),
    // pg-boss orders the jobs of one instant by their uuid: here the uuids follow the ids.
    factory: async () =>
      (await import('./pg-boss/adapter.ts')).pgBossFactory({
        newId: (id) => `00000000-0000-4000-8000-${Buffer.from(id).toString('hex').padStart(12, '0')}`,
      }),
  },
  {
    name: 'BullMQ on PostgreSQL',
    missing: postgresMissing(),
    factory: async () => (await import('./bullmq-postgres/adapter.ts')).bullmqPostgresFactory('test'),
  },
  {
    name: 'BullMQ on Redis',
    missing: redisMissing(),
    factory: async () => (await import('./bullmq-redis/adapter.ts')).bullmqRedisFactory('test'),
  },
  {
    name: 'RabbitMQ',
    missing: amqpMissing(),
    factory: async () => (await import('./rabbitmq/adapter.ts')).rabbitmqFactory(),
  },
  {
    name: 'NATS JetStream',
    missing: natsMissing(),
    factory: async () => (await import('./nats-jetstream/adapter.ts')).natsJetStreamFactory(),
  },
  {
    name: 'beanstalkd',
    missing: beanstalkdMissing(),
    factory: async () => (await import('./beanstalkd/adapter.ts')).beanstalkdFactory(),
  },
];

describe('one story of commits on each queue', () => {
  const required = (process.env['CI'] ?? '') !== '';
  const closing: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const close of closing.splice(0)) await close();
  });

  for (const q of QUEUES) {
    if (q.missing !== undefined && required) {
      it(`has a ${q.name} server in CI`, () => {
        expect.fail(`${q.missing}; .ci/run wraps the tests in scripts/brokers.sh and scripts/pg.sh`);
      });
      continue;
    }
    it.skipIf(q.missing !== undefined)(
      `${q.name}: every reply is JobStore's, texts included${q.missing === undefined ? '' : ` (skipped: ${q.missing})`}`,
      async () => {
        const adapter = await (await q.factory())(CONFIG);
        closing.push(() => adapter.close());
        const store = JobStore.create(CONFIG);
        const replies: { command: Command; queue: Reply; store: Reply }[] = [];
        for (const command of STORY)
          replies.push({ command, queue: await adapter.execute(command), store: store.execute(command) });
        expect(replies.map((r) => ({ command: r.command, reply: r.queue }))).toEqual(
          replies.map((r) => ({ command: r.command, reply: r.store })),
        );
        expect(replies.filter((r) => !r.store.ok).map((r) => r.store)).toEqual([
          effectConflict('x', 'k', 1, 2),
          balanceOutOfRange('x', 1, BIG),
        ]);
        expect((await adapter.snapshot()).effects).toEqual(store.snapshot().effects);
      },
      60_000,
    );
  }
});
