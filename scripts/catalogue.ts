/**
 * `npm run catalogue`: checks every broken implementation of the catalogue (the in-process
 * variants of conformance/broken/ and the Python variants of examples/python/broken/, through the
 * protocol) with the same check as `jobcheck check`, and writes docs/broken-catalogue.md: for each
 * bug, which phase caught it, the length of the story shown, and the time it took to find.
 * JOBCHECK_SEED (default 1) and JOBCHECK_RUNS (default 300) choose the campaign; the correct
 * implementations are checked alongside, as the control. The races are checked twice: the
 * in-process variants of conformance/broken/concurrent/ under fast-check's scheduler, and the racy
 * Python stores of examples/python/broken/ over the protocol (jobcheck/2, a real process, real
 * threads), as `jobcheck check --impl ... --workers 4` checks them. The decision bugs (a
 * `Decisions` record with one function replaced) are also checked on the SQLite store and,
 * when PGHOST names a server (`bash scripts/pg.sh npm run catalogue`), on the PostgreSQL store.
 */
import { writeFile } from 'node:fs/promises';
import { cpus, platform } from 'node:os';
import type { AdapterFactory } from '../conformance/adapter.ts';
import { jobStoreFactory } from '../conformance/stores/jobStore.ts';
import { CATALOGUE } from '../conformance/broken/index.ts';
import { concurrentProcessFactory, processAdapterFactory } from '../conformance/protocol/index.ts';
import { PYTHON_BROKEN, PYTHON_RACY, findPython, pythonCommand } from '../examples/python/interpreter.ts';
import { runCheck } from '../conformance/check/index.ts';
import { DEFAULT_PROCESS_PARALLEL } from '../cli/target.ts';
import type { CheckReport } from '../conformance/check/index.ts';
import { renderFailure } from '../cli/output/index.ts';
import { CONCURRENT_BROKEN_VARIANTS } from '../conformance/broken/index.ts';
import { runConcurrentCampaign } from '../conformance/concurrent/campaign.ts';
import { lockedJobStoreFactory } from '../conformance/concurrent/inProcess.ts';
import { requestCount } from '../conformance/concurrent/generate.ts';
import { sqliteFactory } from '../conformance/stores/sqlite.ts';
import { postgresFactory } from '../conformance/stores/postgres.ts';
import { postgresMissing } from '../conformance/postgresEnv.ts';
import { withDecisions } from '../impl/index.ts';
import { SqliteStore } from '../impl/sqlite/index.ts';
import { PostgresStore } from '../impl/postgres/index.ts';

const seed = Number(process.env['JOBCHECK_SEED'] ?? 1);
const runs = Number(process.env['JOBCHECK_RUNS'] ?? 300);
const out = process.env['JOBCHECK_CATALOGUE_FILE'] ?? 'docs/broken-catalogue.md';

interface Entry {
  readonly name: string;
  readonly where: string;
  readonly description: string;
  readonly factory: AdapterFactory & { close?: () => Promise<void>; warm?: AdapterFactory };
}

/** Milliseconds from the start of the check until the first divergence was seen. */
const timeToFind = (r: CheckReport): number | null => r.firstDivergenceMs;

const list = (names: readonly string[]): string => names.map((n) => `\`${n}\``).join(', ');
const missed = (phase: string, names: readonly string[]): string =>
  `- Missed by the ${phase} alone${names.length === 0 ? ': none.' : ` (${names.length}): ${list(names)}.`}`;
const ms = (n: number | null): string =>
  n === null ? '-' : n < 1000 ? `${Math.round(n)} ms` : `${(n / 1000).toFixed(1)} s`;

const entries: Entry[] = CATALOGUE.map((v) => ({
  name: v.name,
  where: 'impl/JobStore variant',
  description: v.description,
  factory: v.factory,
}));
const python = findPython();
if (python !== undefined) {
  for (const b of PYTHON_BROKEN) {
    entries.push({
      name: `python/${b.name}`,
      where: 'Python, over the protocol',
      description: b.description,
      factory: processAdapterFactory(pythonCommand(python, `examples/python/broken/${b.name}.py`)),
    });
  }
}
const controls: Entry[] = [
  { name: 'impl/JobStore', where: 'built-in', description: 'the optimised implementation', factory: jobStoreFactory() },
];
if (python !== undefined) {
  controls.push({
    name: 'python/jobstore',
    where: 'Python, over the protocol',
    description: 'the Python example',
    factory: processAdapterFactory(pythonCommand(python, 'examples/python/jobstore.py')),
  });
}

const rows: string[] = [];
const controlRows: string[] = [];
const missedBy = { fixtures: [] as string[], restore: [] as string[], paths: [] as string[], campaign: [] as string[] };
let example = '';
const reports = new Map<string, CheckReport>();
for (const e of [...entries, ...controls]) {
  // Checked as `jobcheck check` checks them: a process target several stores at once, warm restarts.
  const report = await runCheck(
    {
      factory: e.factory,
      ...(e.factory.warm === undefined ? {} : { warmFactory: e.factory.warm, parallel: DEFAULT_PROCESS_PARALLEL }),
    },
    { runs, seed },
  );
  await e.factory.close?.();
  reports.set(e.name, report);
  const c = report.campaign;
  const fixturesFailed = report.fixtures.filter((f) => !f.result.ok).length;
  const campaign =
    c.verdict === 'diverge'
      ? `run ${c.runs}, ${ms(c.durationMs - c.shrinkMs)}; ${c.firstFailureLength} → **${c.counterexample?.steps.length}** in ${ms(c.shrinkMs)}`
      : `not found in ${c.runs} runs`;
  const shown = report.failure === null ? 'agree' : `**${report.failure.steps}** (${report.failure.source})`;
  const r = report.restore;
  // A store that does not keep the valid snapshot it is restored from is offered no invalid one.
  const restore =
    r === null
      ? '-'
      : r.setup !== null && r.outcomes.length === 0
        ? 'valid one not kept'
        : `${r.outcomes.filter((o) => !o.ok).length}/${r.outcomes.length}`;
  if (!controls.includes(e)) {
    if (fixturesFailed === 0) missedBy.fixtures.push(e.name);
    if (report.restore?.verdict !== 'diverge') missedBy.restore.push(e.name);
    if (report.paths.failures.length === 0) missedBy.paths.push(e.name);
    if (c.verdict === 'agree') missedBy.campaign.push(e.name);
  }
  const row = `| \`${e.name}\` | ${e.where} | ${e.description} | ${fixturesFailed}/${report.fixtures.length} | ${restore} | ${report.paths.failures.length}/${report.paths.outcomes.length} | ${campaign} | ${shown} | ${ms(timeToFind(report))} | ${ms(report.durationMs)} |`;
  (controls.includes(e) ? controlRows : rows).push(row);
  if (e.name === 'lease-one-tick-late' && report.failure !== null) {
    example = renderFailure(report.failure, report, {
      target: `broken/${e.name}`,
      flags: `--broken ${e.name}`,
      seed,
      runs,
    });
  }
  process.stdout.write(`${report.verdict === 'diverge' ? 'caught ' : 'agrees '} ${e.name}\n`);
}

// The decision bugs on every store: the same broken `Decisions` record run by the memory store (the
// rows above), the SQLite store and the PostgreSQL store. Durable stores skip the exploration,
// which makes thousands of stores (a file or a schema each).
const pgMissing = postgresMissing();
const storeRows: string[] = [];
const caughtOn = (r: CheckReport): string =>
  r.verdict === 'diverge' && r.failure !== null
    ? `caught: **${r.failure.steps}** (${r.failure.source}), ${ms(timeToFind(r))}`
    : `**${r.verdict}**`;
for (const v of CATALOGUE) {
  if (v.decisions === undefined) continue;
  const onMemory = reports.get(v.name);
  const memory = onMemory === undefined ? '-' : caughtOn(onMemory);
  const sqlite = await runCheck(
    { factory: sqliteFactory({ Store: withDecisions(SqliteStore, v.decisions), name: `broken/${v.name} (SQLite)` }) },
    { runs, seed, noExplore: true },
  );
  process.stdout.write(`${sqlite.verdict === 'diverge' ? 'caught ' : 'agrees '} ${v.name} (SQLite)\n`);
  let pg = `not run: ${pgMissing ?? ''}`;
  if (pgMissing === undefined) {
    const r = await runCheck(
      {
        factory: postgresFactory({
          Store: withDecisions(PostgresStore, v.decisions),
          name: `broken/${v.name} (PostgreSQL)`,
        }),
      },
      { runs, seed, noExplore: true },
    );
    process.stdout.write(`${r.verdict === 'diverge' ? 'caught ' : 'agrees '} ${v.name} (PostgreSQL)\n`);
    pg = caughtOn(r);
  }
  storeRows.push(`| \`${v.name}\` | ${memory} | ${caughtOn(sqlite)} | ${pg} |`);
}

// The racy variants: one request at a time they keep the contract; the concurrent campaign of
// `jobcheck check --workers 4` finds them. The control is impl/JobStore behind a mutex.
const racyRows: string[] = [];
for (const v of [
  ...CONCURRENT_BROKEN_VARIANTS,
  {
    name: 'impl/JobStore+mutex',
    description: 'the built-in store behind an async mutex (the control)',
    factory: lockedJobStoreFactory(),
  },
]) {
  const started = performance.now();
  const r = await runConcurrentCampaign({ factory: v.factory, workers: 4, numRuns: 2000, seed });
  const requests = r.failure?.run == null ? undefined : requestCount(r.failure.run.rounds);
  const found =
    r.verdict === 'failed'
      ? `run ${r.runs}; ${r.firstFailureRequests} → **${requests}** requests`
      : r.verdict === 'passed'
        ? `not found in ${r.runs} runs`
        : r.verdict;
  racyRows.push(`| \`${v.name}\` | ${v.description} | ${found} | ${ms(performance.now() - started)} |`);
  process.stdout.write(
    `${r.verdict === 'failed' ? 'caught ' : r.verdict === 'passed' ? 'agrees ' : `${r.verdict} `} ${v.name} (4 workers)\n`,
  );
}

// The racy Python stores over the protocol: a real process speaking jobcheck/2, a thread per
// request, the interleavings the operating system's. The control is the correct Python store.
const PROTOCOL_RACE_RUNS = 300;
const protocolRacyRows: string[] = [];
if (python !== undefined) {
  const control = {
    race: 'none (the control)',
    script: 'examples/python/jobstore.py',
    description: 'the correct Python example',
  };
  const racy = [...PYTHON_RACY, control];
  for (const v of racy) {
    const factory = concurrentProcessFactory(pythonCommand(python, v.script));
    const started = performance.now();
    const r = await runConcurrentCampaign({ factory, workers: 4, numRuns: PROTOCOL_RACE_RUNS, seed }).finally(() =>
      factory.close(),
    );
    const requests = r.failure?.run == null ? undefined : requestCount(r.failure.run.rounds);
    const caught = `run ${r.runs}; ${r.firstFailureRequests} → **${requests}** requests`;
    const found = r.verdict === 'failed' ? caught : r.verdict === 'passed' ? `not found in ${r.runs} runs` : r.verdict;
    const program = v.script.replace('examples/python/', '');
    protocolRacyRows.push(
      `| ${v.race} | \`${program}\` | ${v.description} | ${found} | ${ms(performance.now() - started)} |`,
    );
    const said = r.verdict === 'failed' ? 'caught ' : r.verdict === 'passed' ? 'agrees ' : `${r.verdict} `;
    process.stdout.write(`${said} python ${v.race} (4 workers, over the protocol)\n`);
  }
}

const doc = `# The catalogue of broken implementations

Each row is a deliberately broken implementation: one small change to a correct one, with a
comment naming the bug in its source (\`conformance/broken/*.ts\` for the in-process variants of
impl/JobStore, \`examples/python/broken/*.py\` for the variants of the Python example, checked
over the jobcheck/1 protocol). \`jobcheck check\` must catch every one; \`scripts/catalogue.test.ts\`
asserts that it does (exit code 1 and a story), and that the correct implementations pass.

Generated by \`npm run catalogue\` (scripts/catalogue.ts) from a real run: the same check as
\`jobcheck check\` (fixture stories, then the restore phase, then the path suite, then a random
campaign of ${runs} runs, seed ${seed}, then the exploration), on ${platform()}, ${cpus().length} cores, Node ${process.version}. Times are wall-clock and
include starting processes for the Python variants (checked as \`jobcheck check\` checks them:
${DEFAULT_PROCESS_PARALLEL} stores at once, warm restarts in the path suite and the campaign).

Columns: **fixtures** and **paths**: how many of the fixture stories and of the enumerated paths
diverge; **restore**: how many of the invalid snapshots the restore phase offers were not refused
as the model refuses them (taken, refused with another code, or refused while the store changed),
or \`valid one not kept\` when the valid snapshot it restores first came back otherwise; **campaign**: the random run at which the campaign first diverged and the time it took,
then the length of that run and of the story it was shrunk to (in steps); **story shown**: the length of the
shortest story \`jobcheck check\` prints (and where it comes from); **time to find**: from the start
of the check to the first divergence seen; **check**: the whole check, shrinking included.

| Bug | Implementation | What is broken | Fixtures | Restore | Paths | Campaign: found at, shrunk to | Story shown | Time to find | Check |
|---|---|---|---:|---:|---:|---|---:|---:|---:|
${rows.join('\n')}

The correct implementations, checked the same way:

| Implementation | Kind | | Fixtures | Restore | Paths | Campaign | Verdict | | Check |
|---|---|---|---:|---:|---:|---|---:|---:|---:|
${controlRows.join('\n')}

What the table shows: the whole check catches every bug; on its own, each phase would miss
these:
${missed('fixture stories', missedBy.fixtures)}
${missed('restore phase', missedBy.restore)}
${missed('path suite', missedBy.paths)}
${missed('random campaign', missedBy.campaign)}

## Decision bugs on every store

A decision bug is the contract's decisions (\`impl/decisions\`) with one function replaced, and
every store runs the same record: the memory store (the rows above), the SQLite store and the
PostgreSQL store, whose command core (\`impl/core\`) takes its decisions from there. Each is
checked the same way (fixtures, paths, a campaign of ${runs} runs, seed ${seed}; no exploration on the
durable stores). Story: the length of the story shown, and where it comes from; then the time to
find it.

| Bug | memory | SQLite | PostgreSQL |
|---|---|---|---|
${storeRows.join('\n')}

## Races

The racy variants of \`conformance/broken/concurrent/\`: each is impl/JobStore with one await in
the wrong place, correct one request at a time (the sequential phases pass them), wrong when
requests overlap. The concurrent campaign of \`jobcheck check --broken <name> --workers 4\`
(4 worker lanes, up to 2,000 scenarios, seed ${seed}, interleavings chosen by fast-check's
scheduler, each history checked for linearizability) must catch every one; \`cli/concurrent.test.ts\`
asserts that it does. Found at: the scenario at which the campaign first failed, and the requests
of that scenario and of the story it was shrunk to.

| Race | What is broken | Found at, shrunk to | Campaign |
|---|---|---|---:|
${racyRows.join('\n')}

The same races in a program, over the protocol: the racy Python stores of
\`examples/python/broken/\`, each the Python example with one race, checked by the concurrent
campaign of \`jobcheck check --impl "python3 examples/python/broken/<file>" --workers 4\` (up to
${PROTOCOL_RACE_RUNS} scenarios, seed ${seed}): a real process speaking jobcheck/2, a thread per
request, each racy store letting go of its lock between a check and its write with a short sleep
in the window (the lane-order one replies before its write is visible). The interleavings are the
operating system's, so a seed does not fix them, and these rows can differ from run to run.
\`examples/python/racy.test.ts\` asserts that each is caught, in a story of at most 12 requests
that its reproduce line repeats.${python === undefined ? ' Not run here: python3 is not installed.' : ''}

| Race | Program | What is broken | Found at, shrunk to | Campaign |
|---|---|---|---|---:|
${protocolRacyRows.join('\n')}

## One of the stories

The story \`jobcheck check --broken lease-one-tick-late --seed ${seed}\` prints:

\`\`\`
${example}
\`\`\`
`;
await writeFile(out, doc);
process.stdout.write(`wrote ${out}\n`);
