/**
 * `npm run hostile`: runs every case of the hostile-peer suite
 * (conformance/hostile/cases.ts) through the real `jobcheck check` and writes
 * docs/hostile-peers.md: misbehaviour, outcome, exit code, wall time, the harness's peak memory and
 * the processes left alive (which must be 0).
 */
import { writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { findPython } from '../examples/python/interpreter.ts';
import { outsideText } from '../conformance/outside/outsideText.ts';
import { HOSTILE_CASES, asExpected, runHostileCase } from '../conformance/hostile/cases.ts';
import type { HostileCase } from '../conformance/hostile/cases.ts';
import { HOSTILE_CAUSES } from '../conformance/hostile/causes.ts';

/**
 * How the cases came to be: each search of new surface, its probes by surface and its failures by
 * root cause, each with the case that holds it now. Written by hand when a search is made (the
 * probes are not rerun by this script; the cases are).
 */
const SEARCHES = `
## Where the cases come from

Each search tries the surface added since the one before the way a hostile implementation, file,
folder or environment would: to make jobcheck say AGREE, hang, run a command of theirs, flood its
memory, leave a process behind, or crash with a stack trace instead of a typed error. Every root
cause found gets one case above, seen failing before its fix and passing after.

### The last search: 75 probes, 57 handled

The surface added since the search before it: \`jobcheck init\`, the restore phase, the summary's
lines written to a log as each phase ends, the competing workers' not-exercised and overlap counts,
the reproduce and replay lines (and \`github\`'s repeat commands, read from a result file), runs
ended from outside, the pages' and the lab's links to the shipped docs (and the lab's server), the
Action's install and the release procedure.

| surface | probes | handled before | failed |
| --- | --- | --- | --- |
| \`init\`: links, FIFOs, files and folders in the way, read-only folders, long and odd names, a working folder gone | 12 | 6 | 6 |
| restore phase: hangs, crashes, two answers, a 20 MB answer, takes or refuses and changes, words of its own, a pipelining jobcheck/1 peer, a module's answers | 13 | 10 | 3 |
| the summary's lines in a log: outside text, a check stopped mid-phase, \`--json\` with the log on stderr | 4 | 4 | 0 |
| competing workers: one request at a time behind a jobcheck/2 hello, replies twice, for ids not sent, swapped; a jobcheck/1 peer; the race page's sentence | 6 | 6 | 0 |
| reproduce and replay lines, \`github\`'s repeat commands | 6 | 1 | 5 |
| runs ended from outside: FIFOs in the run's folder, signals together, a signal again, a signal as the run's files are written | 12 | 9 | 3 |
| links to the shipped docs from odd paths, the lab's server | 9 | 8 | 1 |
| the Action's install, the release script, \`JOBCHECK_INSTALL_PACKAGES\` | 13 | 13 | 0 |

| root cause | probes failed | fixed in | case |
| --- | --- | --- | --- |
| the restore story printed a refusal's message (an error, a name) raw: a peer's \`verdict: AGREE\` line in the story | 1 | conformance/restore/story.ts | \`inject-restore\` |
| the summary's restore line printed a module's refusal code and its reason for no restore raw, in the log as the phase ended | 2 | cli/output/phaseText.ts, conformance/isolated/moduleTarget.ts | \`inject-module-restore\` |
| the replay line put the artifact's path in unquoted, and the story lines kept a path's or a target's newlines | 3 | cli/output/reproduce.ts, conformance/lockstep/story.ts | \`inject-report-path\` |
| \`github\` took any one-line \`npx jobcheck check\` reproduce field of a result, and quoted a target with JSON, \`$(...)\` left live | 2 | cli/github.ts | \`github-forged-repeat\` |
| a second signal while the harness ended killed it (the handlers were \`once\`): no record of the run, no last line | 3 | cli/main.ts | \`harness-sigint-twice\` |
| \`init\` followed a link on the way to the folders it chooses, out of the project | 3 | cli/initCommand.ts | \`init-link-out\` |
| \`init\` said a name too long "already exists", and a working folder gone was an internal error | 3 | cli/initCommand.ts | \`init-name-too-long\` |

Left as it is: a clone of the repository in a folder whose path holds \`?\` cannot run its sources
(tsx, which \`bin/jobcheck.js\` loads in a clone, takes the \`?\` for a query and fails to compile); the
installed package runs its compiled code on plain node, where the same path works.

### The search before it: 283 probes, 198 handled

Its causes, each with its cases: text from outside writing lines of its own (\`inject-check\`,
\`inject-github\`, \`inject-workers\`, \`inject-replay\`, \`inject-profile\`, \`inject-merge\`,
\`inject-demo-story\`); a FIFO, a link or /proc where jobcheck writes (\`fifo-junit\`, \`fifo-report-file\`,
\`link-report-file\`, \`link-runs\`, \`fifo-merge-junit\`, \`fifo-merge-report\`, \`fifo-profile-markdown\`,
\`fifo-lab-out\`, \`lab-out-proc\`, \`fifo-step-summary\`, \`fifo-github-output\`); reads without a bound
(\`report-list-dev-zero\`, \`report-list-fifo-run-json\`, \`report-list-fifo-latest\`, \`merge-hard-links\`,
\`merge-link-loop\`, \`merge-junit-quadratic\`, \`merge-xml-without-junit\`); a verdict taken from a merge
file unchecked (\`github-forged-verdict\`, \`github-merge-minimal\`, \`github-merge-wrong-types\`); crashes
instead of typed errors (\`report-list-runs-file\`, \`step-summary-folder\`, \`github-output-dev-full\`);
the tool refusing its own output (\`merge-own-huge-name\`, \`github-own-huge-name\`); the run history
deleting the run just made (\`runs-from-the-future\`); orphans through npx (\`npx-sighup\`, \`npx-sigkill\`).
`;

const python = findPython();
if (python === undefined) throw new Error('the hostile-peer suite needs python3');
const out = process.env['JOBCHECK_HOSTILE_FILE'] ?? 'docs/hostile-peers.md';
const rows: string[] = new Array<string>(HOSTILE_CASES.length).fill('');
let unexpected = 0;
/** What the case ran, for the table: its own command line, or the peer mode under the default check line. */
const ran = (c: HostileCase): string => {
  const line =
    c.argv === undefined
      ? `--impl "${c.command ?? ''}"${c.flags.length === 0 ? '' : ` ${c.flags.join(' ')}`}`
      : c.argv.join(' ');
  const how = c.launch === 'npx' ? 'npx jobcheck ' : c.launch === 'sh' ? 'sh -c jobcheck ' : '';
  const signal = c.interrupt === undefined ? '' : `; ${c.interrupt.signal} after ${c.interrupt.afterMs} ms`;
  // A case's own words for a hostile name (a newline in a folder's name) are shown, not kept: one row a case.
  return `\`${how}${outsideText(line)}\`${signal}`.replaceAll('|', '\\|');
};
// Two at a time, as hostile.test.ts runs them: the machines running this have two cores.
const queue = HOSTILE_CASES.map((c, index) => ({ c, index }));
const worker = async (): Promise<void> => {
  for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
    const { c, index } = next;
    const r = await runHostileCase(c, python);
    const ok = asExpected(c, r);
    for (const problem of r.problems) process.stderr.write(`${c.name}: ${problem}\n`);
    if (!ok) unexpected += 1;
    const ended = r.exit ?? r.signal;
    rows[index] =
      `| \`${c.name}\` | ${c.what} | ${ran(c)} | ${c.outcome} | ${ended} | ${(r.wallMs / 1000).toFixed(1)} s | ${Math.round(r.peakKiB / 1024)} MiB | ${r.left} | ${ok ? 'as expected' : '**NOT as expected**'} |`;
    process.stderr.write(`${rows[index]}\n`);
  }
};
await Promise.all([worker(), worker()]);
const page = `# The harness against hostile implementations

Generated by \`npm run hostile\` (scripts/hostile.ts), which runs every case; one case of each
cause ([below](#the-causes)) is asserted by \`conformance/hostile/hostile.test.ts\` in the suite's
slow part (\`npm run test:slow\`). A row whose command is an \`--impl\` is one run of
\`jobcheck check --impl "<peer> <mode>" --runs 30 --seed 1 --time-limit 8 --no-explore\` against [peer.py](../conformance/hostile/peers/peer.py), the correct Python store
misbehaving in one way; the other rows run their own command line (\`{tmp}\` is a fresh folder of the
run, prepared by the case: a FIFO, an evil module, an edited artifact), some of them started through
\`npx\` or a shell and sent a signal mid-run (the cases are in
[surface/](../conformance/hostile/surface/)). Peak memory is the harness process's VmHWM;
"left" counts the processes started for the run (they carry a tag in their environment) still alive
0.3 s after the harness exited (after an interrupt, once none is left or 15 s have passed since the
process started ended, or the 5 s a row names). "exit" is the exit code, or the signal that ended the
process started.

Machine: ${cpus().length} cores, load average ${loadavg()
  .map((l) => l.toFixed(2))
  .join(' ')} when the table was written.

| case | what misbehaves | command | outcome expected | exit | wall | peak memory | left | |
| --- | --- | --- | --- | --- | --- | --- | --- | --- |
${rows.join('\n')}

## The causes

Each case holds one cause to account: a guard of the harness that one misbehaviour or several
would break (conformance/hostile/causes.ts). The suite runs the first case of each cause; the
others run here.

| cause | what goes wrong without its guard | cases (the suite's first) |
| --- | --- | --- |
${HOSTILE_CAUSES.map((c) => `| ${c.name} | ${c.what.replaceAll('|', '\\|')} | ${c.cases.map((n) => `\`${n}\``).join(', ')} |`).join('\n')}
${SEARCHES}`;
writeFileSync(out, page);
process.stdout.write(`wrote ${out}${unexpected === 0 ? '' : `; ${unexpected} case(s) NOT as expected`}\n`);
process.exitCode = unexpected === 0 ? 0 : 1;
