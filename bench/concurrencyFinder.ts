/**
 * One side of bench/concurrency.ts's "under the default budget" part, run as a child process so
 * that a checkout of another revision (the baseline) is measured with its own modules: runs the
 * concurrent campaign of `jobcheck check --workers 4` with that checkout's defaults
 * (CHECK_CONCURRENT_DEFAULTS, or DEFAULT_CONCURRENT_RUNS where it has none) against one racy
 * variant on each seed, and prints one JSON line per seed (verdict, runs, histories, wall ms,
 * shrunk and unshrunk story length, overlapping pairs).
 *
 * Run: node --import tsx bench/concurrencyFinder.ts <root> <how> <variant> <first seed> <last seed>
 * where <how> is `inprocess` (the catalogue's variant under fast-check's scheduler), `serve` (the
 * same variant served over jobcheck/2 by conformance/broken/concurrent/serve.ts) or `python` (the
 * racy Python store `examples/python/broken/<variant>`); the variant `control` is the correct store
 * of each (impl/JobStore behind a mutex, serve.ts `atomic`, examples/python/jobstore.py).
 */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const [root = '.', how = 'inprocess', variant = '', first = '1', last = '1'] = process.argv.slice(2);
const load = async <T>(path: string): Promise<T> => (await import(pathToFileURL(join(root, path)).href)) as T;

type Result = {
  verdict: string;
  runs: number;
  histories?: number;
  firstFailureRequests: number | null;
  firstFailureMs?: number | null;
  failure: { run: { rounds: readonly { requests: readonly unknown[] }[] } | null } | null;
  overlap: { pairs: number; kinds?: Record<string, number> };
};
type Factory = ((...args: never[]) => unknown) & { close?: () => Promise<void> };
const campaignModule = await load<{ runConcurrentCampaign: (o: object) => Promise<Result> }>(
  'conformance/concurrent/campaign.ts',
);
const check = await load<{ DEFAULT_CONCURRENT_RUNS: number; CHECK_CONCURRENT_DEFAULTS?: object }>(
  'cli/checkCommand.ts',
);
const defaults = check.CHECK_CONCURRENT_DEFAULTS ?? { numRuns: check.DEFAULT_CONCURRENT_RUNS };

/** A fresh factory of the variant, and whether it must be closed. */
async function factoryOf(): Promise<Factory> {
  if (how === 'inprocess') {
    if (variant === 'control')
      return (
        await load<{ lockedJobStoreFactory: () => Factory }>('conformance/concurrent/inProcess.ts')
      ).lockedJobStoreFactory();
    const broken = await load<{ concurrentBrokenVariant: (n: string) => { factory: Factory } | undefined }>(
      'conformance/broken/index.ts',
    );
    const v = broken.concurrentBrokenVariant(variant);
    if (v === undefined) throw new Error(`no racy variant ${variant}`);
    return v.factory;
  }
  const { concurrentProcessFactory } = await load<{ concurrentProcessFactory: (c: string) => Factory }>(
    'conformance/protocol/index.ts',
  );
  if (how === 'serve') {
    const serve = join(root, 'conformance/broken/concurrent/serve.ts');
    const name = variant === 'control' ? 'atomic' : variant;
    return concurrentProcessFactory(`'${process.execPath}' --import tsx '${serve}' ${name}`);
  }
  const py = await load<{ findPython: () => string | undefined; pythonCommand: (p: string, s: string) => string }>(
    'examples/python/interpreter.ts',
  );
  const python = py.findPython();
  if (python === undefined) throw new Error('python3 is not installed');
  const script = variant === 'control' ? 'examples/python/jobstore.py' : `examples/python/broken/${variant}`;
  return concurrentProcessFactory(py.pythonCommand(python, join(root, script)));
}

for (let seed = Number(first); seed <= Number(last); seed++) {
  const factory = await factoryOf();
  const started = performance.now();
  try {
    const r = await campaignModule.runConcurrentCampaign({ ...defaults, factory, workers: 4, seed });
    const story = r.failure?.run == null ? null : r.failure.run.rounds.reduce((n, x) => n + x.requests.length, 0);
    const line = {
      seed,
      verdict: r.verdict,
      runs: r.runs,
      histories: r.histories ?? r.runs,
      ms: Math.round(performance.now() - started),
      firstMs: r.firstFailureMs == null ? null : Math.round(r.firstFailureMs),
      first: r.firstFailureRequests,
      story,
      pairs: r.overlap.pairs,
      kinds: r.overlap.kinds ?? null,
    };
    process.stdout.write(`${JSON.stringify(line)}\n`);
  } finally {
    if (how !== 'inprocess') await factory.close?.();
  }
}
