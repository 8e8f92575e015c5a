/**
 * Generator of the "Under faults" sections of docs/profiles/ (`npm run profiles:faults`): for each
 * queue the fault campaign can run (adapters/faultSubjects.ts) and each durability configuration
 * of its broker (conformance/servers/configurations.ts), starts a server of its own, runs the
 * fault campaign (conformance/faults/), disposes of the server, stores the results in the queue's
 * profile data (its `faults` section; the rule-by-rule results are left as they are) and rewrites
 * every page from the stored data. Prints one line per result and each queue's wall time.
 *
 * Run: npm run profiles:faults   (`--only <queue>`, `--configuration <name>`, `--fault <name>`
 * narrow it; results of what is not run are kept)
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { FAULT_QUEUES, faultConfigurations, faultSubject, startFaultServer } from '../adapters/faultSubjects.ts';
import { runFaultCampaign } from '../conformance/faults/index.ts';
import type { FaultName } from '../conformance/faults/index.ts';
import { FAULT_NAMES, profileSchema } from '../conformance/profile/index.ts';
import type { FaultResult, Profile } from '../conformance/profile/index.ts';
import { MACHINE_LIMITS } from '../conformance/servers/index.ts';
import { renderStoredPages } from '../docs/tools/profilePages.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const outDir = join(root, 'docs', 'profiles');
const dataDir = join(outDir, 'data');
const arg = (name: string): string | undefined => {
  const i = process.argv.indexOf(`--${name}`);
  return i < 0 ? undefined : process.argv[i + 1];
};
const fail = (message: string): never => {
  console.error(`profiles:faults: ${message}`);
  process.exit(2);
};
const only = arg('only');
const onlyConfiguration = arg('configuration');
const onlyFault = arg('fault');
if (only !== undefined && !(FAULT_QUEUES as readonly string[]).includes(only))
  fail(`--only ${JSON.stringify(only)}: the fault campaign runs ${FAULT_QUEUES.join(', ')}`);
if (onlyFault !== undefined && !(FAULT_NAMES as readonly string[]).includes(onlyFault))
  fail(`--fault ${JSON.stringify(onlyFault)}: the faults are ${FAULT_NAMES.join(', ')}`);

for (const queue of FAULT_QUEUES.filter((q) => only === undefined || q === only)) {
  const started = performance.now();
  const file = join(dataDir, `${queue}.json`);
  let raw: Record<string, unknown> = {};
  try {
    raw = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  } catch (error) {
    fail(`${file}: ${(error as Error).message}`);
  }
  const parsed = profileSchema.safeParse(raw);
  if (!parsed.success)
    fail(
      `${file}: not a stored profile: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`,
    );
  const stored = parsed.data as Profile;
  const configurations = faultConfigurations(queue).filter(
    (c) => onlyConfiguration === undefined || c.name === onlyConfiguration,
  );
  if (configurations.length === 0) fail(`--configuration ${JSON.stringify(onlyConfiguration)}: none for ${queue}`);
  const results: FaultResult[] = [];
  for (const c of configurations) {
    const server = await startFaultServer(queue, c.name);
    try {
      const subject = faultSubject(queue, c.name, server);
      const faults = onlyFault === undefined ? undefined : [onlyFault as FaultName];
      for (const r of await runFaultCampaign({ subject, server, ...(faults === undefined ? {} : { faults }) })) {
        results.push(r);
        const figures =
          r.figures === undefined
            ? ''
            : ` lost ${r.figures.submitsLost}/${r.figures.acknowledgedSubmits} submits, ${r.figures.effectsLost} effects; doubled ${r.figures.effectsDoubled}; redelivered after ack ${r.figures.acknowledgedRedelivered}; indefinite ${r.figures.indefinite}`;
        console.log(
          `${queue} ${c.name} ${r.fault}: ${r.verdict}${r.reason === undefined ? '' : ` (${r.reason})`}${figures} [${r.wallMs} ms]`,
        );
      }
    } finally {
      await server.dispose();
    }
  }
  // Keep what was not run this time; replace what was.
  const ran = (r: FaultResult): boolean =>
    results.some((n) => n.fault === r.fault && n.configuration === r.configuration);
  const order = (r: FaultResult): number =>
    faultConfigurations(queue).findIndex((c) => c.name === r.configuration) * 10 + FAULT_NAMES.indexOf(r.fault);
  const kept = (stored.faults?.results ?? []).filter((r) => !ran(r));
  const faults = {
    limits: MACHINE_LIMITS,
    configurations: faultConfigurations(queue).map((c) => ({
      name: c.name,
      description: c.description,
      promise: c.promise,
    })),
    results: [...kept, ...results].sort((a, b) => order(a) - order(b)),
  };
  // The stored profile as it was, with its faults section added or replaced.
  const profile = { ...raw, faults };
  profileSchema.parse(profile);
  writeFileSync(file, `${JSON.stringify(profile, null, 2)}\n`);
  console.log(`${queue}: ${Math.round((performance.now() - started) / 1000)} s wall time`);
}
for (const [name, text] of renderStoredPages(dataDir, (line) => console.log(line)))
  writeFileSync(join(outDir, name), text);
process.exit(0);
