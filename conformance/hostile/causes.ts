/**
 * The causes of the hostile cases: each case of HOSTILE_CASES belongs to exactly one cause (a guard
 * of the harness that one misbehaviour or many hold to account), and each cause names the one case
 * the suite's hostile.test.ts runs for it. `npm run hostile` runs every case; the cause of a case
 * left to it is still held in the suite by that cause's case (causes.test.ts holds the partition).
 * The causes of the searches docs/hostile-peers.md tells are causes here, one a root cause found.
 */

/** One cause: what goes wrong without its guard, its cases in the table, and the one the suite runs. */
export interface HostileCause {
  readonly name: string;
  readonly what: string;
  readonly cases: readonly string[];
  readonly suite: string;
}

/** A cause whose suite case is its first. */
const cause = (name: string, what: string, cases: readonly [string, ...string[]]): HostileCause => ({
  name,
  what,
  cases,
  suite: cases[0],
});

/** Every cause. */
export const HOSTILE_CAUSES: readonly HostileCause[] = [
  cause('agreement', 'a correct peer agrees: the control every other case departs from', ['correct']),
  cause('process-group', 'a process the implementation starts or keeps outlives it, or ignores its end', [
    'fork-holds-stdout',
    'background-helper',
    'ignore-term',
  ]),
  cause('silence', 'a peer that stops answering, closes its stdout or never says hello is timed out', [
    'close-stdout',
    'stall',
    'hang-hello',
  ]),
  cause('stderr-bound', 'stderr is kept within its bound, however much is written', ['stderr-flood']),
  cause('line-limit', 'a reply line is read up to its limit and no further, with or without a newline', [
    'no-newline',
    'huge-reply',
  ]),
  cause('unasked-lines', 'a line nobody asked for is a protocol error at the step it came', [
    'two-lines',
    'flood-lines',
  ]),
  cause('reply-bytes', 'bytes that are not UTF-8, values nested too deep and a `__proto__` key are read as data', [
    'proto-key',
    'bad-utf8',
    'deep',
  ]),
  cause('peer-exits', 'a peer that exits mid-run is process_exited', ['exit-midway']),
  cause('divergence', 'a wrong reply is a divergence', ['lie']),
  cause('own-output', "the check's own result for a 1 MB name is clipped to what merge and github accept", [
    'github-own-huge-name',
    'huge-name',
    'merge-own-huge-name',
  ]),
  cause('time-limit', 'the time limit stops a slow check as INCOMPLETE, never as a pass', ['slow']),
  cause('concurrent-budget', 'a jobcheck/2 peer that is late or silent gets one time budget per request', [
    'concurrent-slow-hello',
    'concurrent-slow-liar',
    'concurrent-silent-snapshot',
  ]),
  cause('invalid-path', 'a reproduce path or index that names nothing is refused before any work', [
    'path-step-past-end',
    'concurrent-path-names-nothing',
    'concurrent-path-step-past-end',
    'huge-path-index',
    'huge-concurrent-path-index',
  ]),
  cause('not-a-pass', 'a check that replays nothing of what failed is never called a pass', [
    'shard-holds-nothing',
    'path-step-appended',
  ]),
  cause('flag-range', 'a count flag past what can run is refused', ['huge-runs', 'huge-max-commands']),
  cause('artifact-step', "an artifact whose step is one of the protocol's own messages is refused", [
    'artifact-hello-step',
    'artifact-snapshot-step',
  ]),
  cause('module-exits', "a module that ends its process is a typed outcome, the harness's verdict intact", [
    'module-exit-on-load',
    'module-exit-midway',
  ]),
  cause('module-spins', 'a module that spins synchronously is ended by the timeout or the time limit', [
    'module-busy-loop-time-limit',
    'module-busy-loop',
  ]),
  cause('module-values', "a module's concurrent factory and adapter answering values that are not plain JSON", [
    'module-concurrent-polluted',
    'module-concurrent-throwing-getter',
    'module-concurrent-null',
    'module-concurrent-cyclic',
    'module-concurrent-deep',
    'module-concurrent-proxy',
  ]),
  cause('parent-gone', 'the harness ends with the parent that started it, through npx or a wrapper', [
    'npx-sigkill',
    'npx-sigterm',
    'npx-sighup',
    'wrapper-sigkill',
  ]),
  cause('signal', 'a signal ends the run with its exit code and every process of it', [
    'wrapper-sigint',
    'npx-sigint',
    'harness-sigterm',
    'harness-sighup',
  ]),
  cause('signal-again', 'a signal sent again while the harness ends changes nothing', ['harness-sigint-twice']),
  cause('input-file', 'a file a user names that is no regular file, or over its limit, is refused unread', [
    'module-fifo',
    'replay-fifo',
    'replay-dev-zero',
    'replay-folder',
    'coverage-fifo',
    'coverage-dev-zero',
    'demo-story-fifo',
    'module-dev-zero',
    'replay-over-limit',
  ]),
  cause('output-file', 'a FIFO, a link or /proc where jobcheck writes is refused before any work', [
    'fifo-junit',
    'fifo-report-file',
    'link-report-file',
    'link-runs',
    'fifo-merge-junit',
    'fifo-merge-report',
    'fifo-profile-markdown',
    'fifo-lab-out',
    'lab-out-proc',
    'fifo-step-summary',
    'fifo-github-output',
  ]),
  cause('typed-not-crash', 'a folder, /dev/full or a file where another kind is wanted is a typed error', [
    'step-summary-folder',
    'github-output-dev-full',
    'report-list-runs-file',
  ]),
  cause('bounded-reads', 'what report --list and merge read is read within its limit, links unfollowed', [
    'report-list-fifo-latest',
    'report-list-dev-zero',
    'report-list-fifo-run-json',
    'merge-hard-links',
    'merge-link-loop',
    'merge-junit-quadratic',
    'merge-xml-without-junit',
  ]),
  cause('forged-repeat', 'a repeat command is only ever one the check itself writes', ['github-forged-repeat']),
  cause('forged-verdict', 'a merge file is validated and its verdict worked out from its parts', [
    'github-forged-verdict',
    'github-merge-minimal',
    'github-merge-wrong-types',
  ]),
  cause('prune', 'pruning the run history never touches the run just made, nor a name in the future', [
    'runs-from-the-future',
  ]),
  cause('serve-storage', 'serve with a store it cannot open refuses hello with storage_unavailable', [
    'serve-sqlite-fifo',
    'serve-sqlite-folder',
    'serve-sqlite-missing-folder',
    'serve-sqlite-in-a-file',
    'serve-sqlite-unwritable',
    'serve-postgres-no-server',
  ]),
  cause('outside-text', 'text from outside never starts a line, a workflow command or markup of its own', [
    'inject-check',
    'inject-github',
    'inject-workers',
    'inject-replay',
    'inject-profile',
    'inject-merge',
    'inject-demo-story',
  ]),
  cause('restore-story-text', "the restore story prints a refusal's message escaped", ['inject-restore']),
  cause('restore-line-text', "the summary's restore line prints a module's refusal code escaped", [
    'inject-module-restore',
  ]),
  cause('report-path-text', 'the replay line quotes and escapes the report path', ['inject-report-path']),
  cause('init-link', 'init follows no link out of the project', ['init-link-out']),
  cause('init-name', 'init tells a name too long as such, not as "already exists"', ['init-name-too-long']),
];

/** The names of the cases the suite runs: one a cause. */
export const SUITE_CASE_NAMES: ReadonlySet<string> = new Set(HOSTILE_CAUSES.map((c) => c.suite));
