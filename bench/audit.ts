/**
 * Benchmark of `jobcheck audit`, written to docs/audit-bench.md. In one run, side by side:
 * - the audit of a correct recorded history of N operations (default 1,000,000; `--ops N`) of a
 *   busy queue (bench/auditHistory.ts: many accounts, retries, expiries, lost replies), streamed
 *   from a temporary file as the command reads it;
 * - the linearizability checker on Porcupine's own test histories (its etcd Jepsen logs and its
 *   key-value logs, read from the `test_data` folder given with `--porcupine DIR`;
 *   bench/porcupineHistories.ts), and on a Porcupine-style key-value history of N operations;
 * then, with `--scale A,B,...`, the audit once at each size (its peak memory beside the others).
 * Each measurement runs in a child process of its own: wall time and peak RSS (the child's
 * `maxRSS`), medians of `--runs` (default 3). Not part of `npm test`.
 *
 * Run: npx tsx bench/audit.ts [--ops N] [--porcupine DIR] [--runs R] [--scale A,B,...] [--no-write]
 * (`--scale-only --scale A,B --heap-cap MiB`: only the audit at each size, its V8 heap capped; printed)
 */
import { execFileSync } from 'node:child_process';
import { createReadStream, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { auditHistory, readHistory } from '../conformance/audit/index.ts';
import type { CheckOutcome, History, Operation, SequentialModel } from '../conformance/concurrent/history.ts';
import { type KvInput, type KvOutput, kvRegister } from '../conformance/concurrent/kvRegister.ts';
import { checkLinearizability } from '../conformance/concurrent/linearizability.ts';
import { BUSY_QUEUE, writeTraffic } from './auditHistory.ts';
import { loadAverage, machine, median } from './measure.ts';
import { etcdHistory, kvAppend, kvHistory, porcupineFiles } from './porcupineHistories.ts';

const HERE = fileURLToPath(import.meta.url);

/** Where Porcupine's histories come from, and how the checker's verdicts compare with its own tests'. */
const PORCUPINE_NOTE = `
Porcupine's histories are not in this repository: clone Porcupine (github.com/anishathalye/porcupine,
MIT licence; these figures read it at commit 55508eb) and give its \`test_data\` folder with
\`--porcupine\`. Its etcd logs come, its test_data/README.md says, from
github.com/ahorn/linearizability-checker, whose licence could not be found: they are read where they
lie, never copied. The checker's verdicts are the ones Porcupine's own tests expect, on each of the
102 etcd logs they name (etcd_095 is named by none; the checker finds it linearizable) and on the six
key-value logs (the three \`-ok\` linearizable, the three \`-bad\` not).
`;

/** A Porcupine-style key-value history of `ops` operations: 16 clients, 1,000 keys, puts and gets overlapping. */
function kvStyle(ops: number): History<KvInput, KvOutput> {
  const operations: Operation<KvInput, KvOutput>[] = [];
  const value = new Map<string, string>();
  for (let i = 0; i < ops; i++) {
    const key = `k${i % 1000}`;
    const invoked = 2 * i;
    const returned = 2 * i + 3;
    if (i % 3 === 0) {
      value.set(key, `v${i}`);
      operations.push({
        id: i,
        lane: i % 16,
        input: { type: 'put', key, value: `v${i}` },
        invoked,
        returned,
        output: { type: 'put' },
      });
    } else
      operations.push({
        id: i,
        lane: i % 16,
        input: { type: 'get', key },
        invoked,
        returned,
        output: { type: 'get', value: value.get(key) ?? null },
      });
  }
  return { operations };
}

/** Checks each history; `N linearizable, M not, K unknown` and the operations counted. */
function checkAll<S, I, O>(
  model: SequentialModel<S, I, O>,
  histories: readonly History<I, O>[],
): { verdict: string; ops: number } {
  const counts = { linearizable: 0, not_linearizable: 0, unknown: 0 };
  let ops = 0;
  for (const h of histories) {
    const r: CheckOutcome<O> = checkLinearizability(model, h);
    counts[r.verdict]++;
    ops += h.operations.length;
  }
  return {
    verdict: `${counts.linearizable} linearizable, ${counts.not_linearizable} not, ${counts.unknown} unknown`,
    ops,
  };
}

/** What one child measured. */
interface Measured {
  readonly ms: number;
  /** CPU seconds of the child (user + system, all its threads): what the load does not stretch. */
  readonly cpuS: number;
  readonly rssMiB: number;
  readonly verdict: string;
  readonly ops: number;
  readonly detail: string;
}

/** In the child: runs one measurement (reading its input is timed with it), prints a Measured. */
async function child(kind: string, arg: string): Promise<void> {
  const start = performance.now();
  let out: Omit<Measured, 'ms' | 'cpuS' | 'rssMiB'>;
  if (kind === 'audit') {
    const r = await auditHistory([readHistory(createReadStream(arg), arg)]);
    out = {
      verdict: r.verdict,
      ops: r.operations,
      detail: `${r.jobs.toLocaleString('en')} jobs, at most ${r.peakHeld.toLocaleString('en')} operations held`,
    };
  } else if (kind === 'etcd') {
    const files = porcupineFiles(arg, 'etcd');
    const r = checkAll(
      kvRegister,
      files.map((f) => etcdHistory(f.text, f.name)),
    );
    out = { ...r, detail: `${files.length} histories` };
  } else if (kind === 'kv') {
    const files = porcupineFiles(arg, 'kv');
    const r = checkAll(
      kvAppend,
      files.map((f) => kvHistory(f.text, f.name)),
    );
    out = { ...r, detail: `${files.length} histories (${files.map((f) => f.name).join(', ')})` };
  } else {
    const ops = Number(arg);
    out = { ...checkAll(kvRegister, [kvStyle(ops)]), ops, detail: '16 clients, 1,000 keys' };
  }
  const ms = performance.now() - start;
  const cpu = process.cpuUsage();
  const cpuS = (cpu.user + cpu.system) / 1e6;
  console.log(JSON.stringify({ ms, cpuS, rssMiB: process.resourceUsage().maxRSS / 1024, ...out }));
}

function measure(kind: string, arg: string, heapMiB?: number): Measured {
  const heap = heapMiB === undefined ? [] : [`--max-old-space-size=${heapMiB}`];
  const out = execFileSync(process.execPath, [...heap, '--import', 'tsx', HERE, '--child', kind, arg], {
    encoding: 'utf8',
    maxBuffer: 1 << 20,
  });
  return JSON.parse(out.trim().split('\n').at(-1) ?? '{}') as Measured;
}

const fmtS = (ms: number): string => `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;

/** A row of medians over `runs` measurements. */
function row(what: string, kind: string, arg: string, runs: number, heapMiB?: number): string {
  const all = Array.from({ length: runs }, () => measure(kind, arg, heapMiB));
  const first = all[0] as Measured;
  const text = `| ${what} | ${first.ops.toLocaleString('en')} | ${fmtS(median(all.map((r) => r.ms)))} | ${median(all.map((r) => r.cpuS)).toFixed(1)} s | ${Math.round(median(all.map((r) => r.rssMiB)))} MiB | ${first.verdict} (${first.detail}) |`;
  console.log(text);
  return text;
}

const flag = (args: readonly string[], name: string): string | undefined => {
  const at = args.indexOf(name);
  return at >= 0 ? args[at + 1] : undefined;
};

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  if (args[0] === '--child') return child(args[1] ?? '', args[2] ?? '');
  const ops = Number(flag(args, '--ops') ?? 1_000_000);
  const runs = Number(flag(args, '--runs') ?? 3);
  const porcupine = flag(args, '--porcupine');
  const scale = (flag(args, '--scale') ?? '')
    .split(',')
    .filter((s) => s !== '')
    .map(Number);
  const dir = mkdtempSync(join(tmpdir(), 'jobcheck-audit-bench-'));
  const loadBefore = loadAverage();
  const started = Date.now();
  try {
    const history = async (n: number): Promise<string> => {
      const file = join(dir, `history-${n}.jsonl`);
      const w = await writeTraffic(file, { ...BUSY_QUEUE, ops: n });
      console.log(
        `wrote ${file}: ${w.operations} operations, ${w.jobs} jobs, ${(w.spanMs / 60_000).toFixed(0)} minutes, ${Math.round(statSync(file).size / 2 ** 20)} MiB`,
      );
      return file;
    };
    const heapCap = flag(args, '--heap-cap') === undefined ? undefined : Number(flag(args, '--heap-cap'));
    const scaled: string[] = [];
    if (args.includes('--scale-only')) {
      // Only the audit at each size, its heap capped: the table is printed, the page left alone.
      const cap = heapCap === undefined ? '' : ` --heap-cap ${heapCap}`;
      for (const n of scale) {
        const f = await history(n);
        scaled.push(
          row(
            `\`jobcheck audit\` (its core)${heapCap === undefined ? '' : `, heap capped at ${heapCap} MiB`}`,
            'audit',
            f,
            1,
            heapCap,
          ),
        );
        rmSync(f);
      }
      console.log(
        `\n\`npx tsx bench/audit.ts --scale-only --scale ${scale.join(',')}${cap}\`, load average ${loadBefore} when it began and ${loadAverage()} when it ended, ${((Date.now() - started) / 60_000).toFixed(0)} minutes later:\n`,
      );
      console.log(
        [
          '| what | operations | wall time | CPU time | peak RSS | verdict |',
          '| --- | --- | --- | --- | --- | --- |',
          ...scaled,
        ].join('\n'),
      );
      return;
    }
    const file = await history(ops);
    const rows = [row('`jobcheck audit` (its core), a recorded history of a busy queue', 'audit', file, runs)];
    rmSync(file);
    if (porcupine !== undefined) {
      rows.push(
        row("checkLinearizability on Porcupine's etcd Jepsen logs (kvRegister, one key)", 'etcd', porcupine, runs),
      );
      rows.push(
        row("checkLinearizability on Porcupine's key-value logs (get/put/append, by key)", 'kv', porcupine, runs),
      );
    }
    rows.push(
      row(
        'checkLinearizability on a Porcupine-style key-value history (kvRegister, by key)',
        'kv-style',
        String(ops),
        runs,
      ),
    );
    for (const n of scale) {
      const f = await history(n);
      scaled.push(row('`jobcheck audit` (its core)', 'audit', f, 1));
      rmSync(f);
    }
    const loadAfter = loadAverage();
    const minutes = ((Date.now() - started) / 60_000).toFixed(0);
    const m = machine();
    const command = `npx tsx bench/audit.ts --ops ${ops} --runs ${runs}${porcupine === undefined ? '' : ' --porcupine <porcupine>/test_data'}${scale.length === 0 ? '' : ` --scale ${scale.join(',')}`}`;
    const page = `# Audit benchmark

\`jobcheck audit\` on a correct recorded history of a busy queue, beside the linearizability checker
on Porcupine's own test histories and on a Porcupine-style key-value history of the same size, in
one run: \`${command}\`. bench/audit.ts says how each history is made and read. Wall time, CPU
time (user and system, every thread of the child: what other work on the machine does not stretch)
and peak RSS of a child process that does nothing else (reading its input included), medians of
${runs}. The target the issue sets is 1,000,000 operations in at most 60 s and 1 GiB on a two-core
machine.

| what | operations | wall time | CPU time | peak RSS | verdict |
| --- | --- | --- | --- | --- | --- |
${rows.join('\n')}
${porcupine === undefined ? '' : PORCUPINE_NOTE}${
  scaled.length === 0
    ? ''
    : `
The audit at several sizes, once each, in the same run (memory holds the jobs inside the window,
not the history: see docs/history-format.md, "Memory"):

| what | operations | wall time | CPU time | peak RSS | verdict |
| --- | --- | --- | --- | --- | --- |
${scaled.join('\n')}
`
}
Machine: ${m.cpu}, ${m.cores} cores, ${m.memoryGiB} GiB, node ${m.node}; load average ${loadBefore} when the
run began and ${loadAfter} when it ended, ${minutes} minutes later (the machine is shared: other work ran beside it).
`;
    if (!args.includes('--no-write'))
      writeFileSync(fileURLToPath(new URL('../docs/audit-bench.md', import.meta.url)), page);
    else console.log(page);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
