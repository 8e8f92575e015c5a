/**
 * The lost acknowledgement on disk, told step by step (docs/07-a-real-kill.md quotes its output):
 * a worker process claims job a and commits its effect, then dies by SIGKILL at its fault point
 * between the commit and the ack; a second process opens the same file, finds the delivery still
 * current until its lease ends, redelivers the job, and its commit finds the ledger row.
 *
 *   npx tsx conformance/crash/realKill.ts [--store sqlite | <broken variant>] [--fault <point>]
 *
 * The output is deterministic (no process ids, paths or times), so that the docs can quote it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { Command, Reply } from '../../contract/index.ts';
import { FAULT_POINTS, parseFault } from '../../impl/faults.ts';
import type { FaultPointName } from '../../impl/faults.ts';
import { SqliteStore } from '../../impl/sqlite/index.ts';
import { sqliteVariant } from '../broken/index.ts';
import { runWorker } from './crashRun.ts';
import { integrityProblem, ledgerProblems } from './sqliteCrash.ts';

const { values } = parseArgs({
  options: {
    store: { type: 'string', default: 'sqlite' },
    fault: { type: 'string', default: FAULT_POINTS.workerBeforeAck },
  },
});
const variant = sqliteVariant(values.store);
if (variant === undefined) throw new Error(`no SQLite store named ${JSON.stringify(values.store)}`);
const fault = parseFault(values.fault) as { point: FaultPointName; at: number };

const config = { capacity: 2, maxAttempts: 2, leaseTicks: 5, backoffBase: 2, backoffCap: 8 };
const dir = mkdtempSync(join(tmpdir(), 'jobcheck-real-kill-'));
const file = join(dir, 'jobs.db');
const show = (c: unknown, r: unknown): string => `  > ${JSON.stringify(c)}\n  < ${JSON.stringify(r)}`;
const withoutMessage = (r: Reply): unknown => (r.ok ? r : { ok: false, code: r.code });

try {
  console.log(`store ${variant.name}: ${variant.description}`);
  SqliteStore.create.call(variant.Store, file, config).close();
  const script: Command[] = [
    { type: 'submit', id: 'a', account: 'alice', key: 'a:k', amount: 7, deadline: 100, now: 0 },
    { type: 'claim', worker: 'w1', now: 1 },
    { type: 'commit', worker: 'w1', token: 1, now: 2 },
    { type: 'ack', worker: 'w1', token: 1, now: 3 },
  ];
  console.log(`\nprocess 1, worker w1, with JOBCHECK_FAULT=${fault.point}${fault.at === 1 ? '' : `@${fault.at}`}:`);
  const out = await runWorker({ mode: 'script', file, variant: variant.name, commands: script }, fault);
  out.lines.forEach((reply, i) => {
    console.log(show(script[i], withoutMessage(reply as Reply)));
  });
  const next = script[out.lines.length];
  console.log(
    out.signal === 'SIGKILL'
      ? `  killed by SIGKILL${next === undefined ? '' : ` before the reply to ${JSON.stringify(next)}`}`
      : `  ended by itself (${out.code})`,
  );

  console.log('\nprocess 2 opens the same file:');
  console.log(`  integrity_check: ${integrityProblem(file) ?? 'ok'}`);
  const store = SqliteStore.open.call(variant.Store, file);
  const snap = store.snapshot();
  console.log(`  job a: ${JSON.stringify(snap.jobs['a'])}`);
  console.log(`  balances: ${JSON.stringify(snap.balances)}; ledger: ${JSON.stringify(snap.effects)}`);
  let token = 0;
  for (const c of [
    { type: 'claim', worker: 'w2', now: 5 },
    { type: 'claim', worker: 'w2', now: 6 },
    { type: 'commit', worker: 'w2', token: -1, now: 7 },
    { type: 'ack', worker: 'w2', token: -1, now: 7 },
  ] as const) {
    const command = 'token' in c ? { ...c, token } : c;
    const reply = store.execute(command);
    if (reply.ok && reply.type === 'claim' && reply.job !== null) token = reply.job.token;
    console.log(show(command, withoutMessage(reply)));
  }
  const end = store.snapshot();
  store.close();
  const rows = ledgerProblems(file);
  console.log(
    `\nbalance of alice: ${end.balances['alice'] ?? 0} (the effect's amount is 7); ledger: ${rows.length === 0 ? 'one row per (account, key), balances equal their ledgers' : rows.join('; ')}`,
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
