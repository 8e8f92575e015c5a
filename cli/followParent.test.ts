import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { ProcReader } from './ancestry.ts';
import { brokenLink, isPackageRunner, isWrapper, parseStat, readAncestry, wrapperLinks } from './ancestry.ts';
import { contextSwitches, followParent, isWaitingShell } from './followParent.ts';

/**
 * Following the parent, on fake processes: their pids, their /proc files and the SIGCONTs are the
 * test's. The real processes (npx, npm killed, a killed wrapper, a shell holding SIGINT) are held by
 * the hostile suite's signal cases (conformance/hostile/surface/signals.ts).
 */
const status = (caught: string, switches: number): string =>
  `Name:\tsh\nSigIgn:\t0000000000000000\nSigCgt:\t${caught}\nvoluntary_ctxt_switches:\t${switches}\nnonvoluntary_ctxt_switches:\t3\n`;

interface FakeParent {
  ppid: number;
  switches: number;
  caught: string;
  proc: ProcReader;
}

/** A parent process under the test's control. */
function fakeParent(cmdline: string): FakeParent {
  const parent = {
    ppid: 4242,
    switches: 4,
    caught: '0000000000010002',
    proc: (pid: number, file: 'cmdline' | 'status' | 'stat'): string | undefined => {
      if (pid !== 4242 || file === 'stat') return undefined;
      return file === 'cmdline' ? cmdline : status(parent.caught, parent.switches);
    },
  };
  return parent;
}

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => vi.useRealTimers());

/** Advances the fake timers by `ms`, one poll at a time. */
function pass(ms: number, step = 100): void {
  for (let t = 0; t < ms; t += step) vi.advanceTimersByTime(step);
}

describe('following the parent', () => {
  it('says the parent is gone, once and with its pid, at the first poll after the process was reparented', () => {
    const parent = fakeParent('node\0server.js\0');
    const gone = vi.fn();
    followParent({ gone }, { pollMs: 100, ppid: () => parent.ppid, proc: parent.proc });
    pass(1000);
    expect(gone).not.toHaveBeenCalled();
    parent.ppid = 1;
    pass(100);
    expect(gone).toHaveBeenCalledExactlyOnceWith(4242);
    parent.ppid = 777;
    pass(1000);
    expect(gone).toHaveBeenCalledTimes(1);
  });

  it('counts a reparenting to a subreaper as gone, not only one to init', () => {
    const parent = fakeParent('node\0');
    const gone = vi.fn();
    followParent({ gone }, { pollMs: 100, ppid: () => parent.ppid, proc: parent.proc });
    parent.ppid = 999;
    pass(100);
    expect(gone).toHaveBeenCalledExactlyOnceWith(4242);
  });

  it('counts a parent read at start and gone before the following began as gone (a signal during a slow start)', () => {
    const gone = vi.fn();
    followParent({ gone }, { pollMs: 100, parent: 4242, ppid: () => 1 });
    pass(100);
    expect(gone).toHaveBeenCalledExactlyOnceWith(4242);
  });

  it('follows nothing when started under init: a detached harness runs on', () => {
    let ppid = 1;
    const gone = vi.fn();
    followParent({ gone }, { pollMs: 100, ppid: () => ppid });
    ppid = 5;
    pass(1000);
    expect(gone).not.toHaveBeenCalled();
  });

  it('stops following when told to', () => {
    const parent = fakeParent('node\0');
    const gone = vi.fn();
    const stop = followParent({ gone }, { pollMs: 100, ppid: () => parent.ppid, proc: parent.proc });
    stop();
    parent.ppid = 1;
    pass(1000);
    expect(gone).not.toHaveBeenCalled();
  });

  it('takes a wake-up of the `sh -c` that waits for it as an interrupt the shell holds', () => {
    const parent = fakeParent("sh\0-c\0'jobcheck' check --impl 'python3 jobstore.py'\0");
    const gone = vi.fn();
    const interrupted = vi.fn();
    followParent({ gone, interrupted }, { pollMs: 100, ppid: () => parent.ppid, proc: parent.proc });
    pass(1000);
    expect(interrupted).not.toHaveBeenCalled();
    parent.switches += 1;
    pass(200);
    expect(interrupted).toHaveBeenCalledExactlyOnceWith(4242);
    parent.ppid = 1;
    pass(500);
    expect(gone).not.toHaveBeenCalled();
  });

  it('takes no wake-up for an interrupt when the harness was continued in between (a stop and continue wake its shell too)', () => {
    const parent = fakeParent('/bin/sh\0-c\0node bin/jobcheck.js check\0');
    const interrupted = vi.fn();
    let continued = (): void => undefined;
    const onContinue = (listener: () => void): (() => void) => {
      continued = listener;
      return () => undefined;
    };
    followParent(
      { gone: vi.fn(), interrupted },
      { pollMs: 100, ppid: () => parent.ppid, proc: parent.proc, onContinue },
    );
    pass(300);
    parent.switches += 2;
    pass(100);
    continued();
    pass(1000);
    expect(interrupted).not.toHaveBeenCalled();
    parent.switches += 1;
    pass(200);
    expect(interrupted).toHaveBeenCalledTimes(1);
  });

  it('watches no wake-ups of a parent that is not a waiting shell: an interactive shell, a shell that ignores SIGINT, node', () => {
    for (const [cmdline, caught] of [
      ['-bash\0', '000000004b813efb'],
      ['sh\0-c\0jobcheck check\0', '0000000000010000'],
      ['node\0-c\0x\0', '0000000000010002'],
    ] as const) {
      const parent = fakeParent(cmdline);
      parent.caught = caught;
      const interrupted = vi.fn();
      const stop = followParent(
        { gone: vi.fn(), interrupted },
        { pollMs: 100, ppid: () => parent.ppid, proc: parent.proc },
      );
      parent.switches += 5;
      pass(500);
      stop();
      expect(interrupted, cmdline).not.toHaveBeenCalled();
    }
  });
});

/** A `/proc/<pid>/stat` text: a command name with spaces and a parenthesis, the start time as field 22. */
const stat = (pid: number, ppid: number, start: number, state = 'S'): string =>
  `${pid} (npm exec (job) ${state} ${ppid} ${pid} ${pid} 0 -1 4194304 ${'0 '.repeat(12)}${start} 1347198976 20288\n`;

const SH = "sh\0-c\0'jobcheck' check --impl 'python3 s.py'\0";
const NPM = `npm exec jobcheck check --impl python3 s.py${'\0'.repeat(20)}`;

interface FakeProcess {
  ppid: number;
  readonly start: number;
  readonly cmdline: string;
}

interface FakeTree {
  readonly ppid: () => number;
  readonly proc: ProcReader;
  /** Ends a process as Linux does: its children are reparented to init. */
  readonly end: (pid: number) => void;
  readonly table: Map<number, FakeProcess>;
}

/** Processes above a harness, given from its parent up as [pid, cmdline]; the last one's parent is init. */
function fakeTree(...chain: [number, string][]): FakeTree {
  const table = new Map<number, FakeProcess>();
  for (const [i, [pid, cmdline]] of chain.entries())
    table.set(pid, { ppid: chain[i + 1]?.[0] ?? 1, start: 100 - i, cmdline });
  let parent = chain[0]?.[0] ?? 1;
  return {
    table,
    ppid: () => parent,
    proc: (pid, file) => {
      const p = table.get(pid);
      if (p === undefined) return undefined;
      if (file === 'stat') return stat(pid, p.ppid, p.start);
      return file === 'cmdline' ? p.cmdline : status('0000000000010002', 4);
    },
    end: (pid) => {
      table.delete(pid);
      if (parent === pid) parent = 1;
      for (const p of table.values()) if (p.ppid === pid) p.ppid = 1;
    },
  };
}

/** `npx jobcheck` from a terminal: npm's `sh -c`, npm under its title, the terminal's bash, sshd. */
const npxFromTerminal = (): FakeTree => fakeTree([4242, SH], [4200, NPM], [4100, '-bash\0'], [900, 'sshd: me@pts/0\0']);

describe('following the wrappers above the parent: npm and its `sh -c`', () => {
  it('says npm is gone, once, when it ends above the shell that started the harness and the shell lives on (SIGHUP or SIGKILL to npx)', () => {
    const tree = npxFromTerminal();
    const gone = vi.fn();
    const interrupted = vi.fn();
    followParent({ gone, interrupted }, { pollMs: 100, ppid: tree.ppid, proc: tree.proc });
    pass(1000);
    expect(gone).not.toHaveBeenCalled();
    tree.end(4200);
    pass(100);
    expect(gone).toHaveBeenCalledExactlyOnceWith(4200);
    tree.end(4242);
    pass(1000);
    expect(gone).toHaveBeenCalledTimes(1);
    expect(interrupted).not.toHaveBeenCalled();
  });

  it('says the shell that ran npx is gone when npm is reparented (`npx jobcheck check &` and the shell exits), as for `jobcheck check &`', () => {
    const tree = npxFromTerminal();
    const gone = vi.fn();
    followParent({ gone }, { pollMs: 100, ppid: tree.ppid, proc: tree.proc });
    tree.end(900);
    pass(500);
    expect(gone).not.toHaveBeenCalled();
    tree.end(4100);
    pass(100);
    expect(gone).toHaveBeenCalledExactlyOnceWith(4100);
  });

  it('looks through nested wrappers (`npm run` of a script that runs `npm run`)', () => {
    const tree = fakeTree(
      [4242, SH],
      [4200, 'npm run jc\0'],
      [4150, 'sh\0-c\0npm run jc\0'],
      [4140, 'node\0/usr/bin/npm\0run\0outer\0'],
      [4100, '-bash\0'],
    );
    const gone = vi.fn();
    followParent({ gone }, { pollMs: 100, ppid: tree.ppid, proc: tree.proc });
    tree.end(4140);
    pass(100);
    expect(gone).toHaveBeenCalledExactlyOnceWith(4140);
  });

  it('follows nothing above the first process that is no wrapper: a terminal, a CI step, a test runner', () => {
    const cases: [FakeTree, number][] = [
      // `node bin/jobcheck.js` in a terminal whose sshd goes
      [fakeTree([4100, '-bash\0'], [900, 'sshd: me@pts/0\0'], [800, 'sshd\0']), 900],
      // `npx jobcheck` in a CI step's script whose runner goes
      [
        fakeTree([4242, SH], [4200, NPM], [4100, 'bash\0--noprofile\0-e\0/tmp/step.sh\0'], [900, 'Runner.Worker\0']),
        900,
      ],
      // a test runner started by `npm test` that runs the harness, its npm and shell gone
      [fakeTree([4300, 'node\0node_modules/vitest/vitest.mjs\0'], [4242, SH], [4200, NPM], [4100, '-bash\0']), 4242],
    ];
    for (const [tree, ended] of cases) {
      const gone = vi.fn();
      const stop = followParent({ gone }, { pollMs: 100, ppid: tree.ppid, proc: tree.proc });
      tree.end(ended);
      pass(500);
      stop();
      expect(gone, `${tree.table.get(tree.ppid())?.cmdline} without ${ended}`).not.toHaveBeenCalled();
    }
  });

  it('takes a stat it cannot read as no news (a full table of file descriptors), and npm gone as gone once it can', () => {
    const tree = npxFromTerminal();
    let readable = false;
    const proc: ProcReader = (pid, file) => (file === 'stat' && !readable ? undefined : tree.proc(pid, file));
    const gone = vi.fn();
    followParent({ gone }, { pollMs: 100, ppid: tree.ppid, proc, ancestry: readAncestry(4242, tree.proc) });
    pass(1000);
    expect(gone).not.toHaveBeenCalled();
    tree.end(4200);
    readable = true;
    pass(100);
    expect(gone).toHaveBeenCalledExactlyOnceWith(4200);
  });

  it('counts npm gone during a slow start as gone when the processes above were read at start, and only then', () => {
    const tree = npxFromTerminal();
    const atStart = readAncestry(4242, tree.proc);
    tree.end(4200);
    const late = vi.fn();
    followParent({ gone: late }, { pollMs: 100, ppid: tree.ppid, proc: tree.proc });
    const gone = vi.fn();
    followParent({ gone }, { pollMs: 100, parent: 4242, ppid: tree.ppid, proc: tree.proc, ancestry: atStart });
    pass(100);
    expect(gone).toHaveBeenCalledExactlyOnceWith(4200);
    expect(late).not.toHaveBeenCalled();
  });

  it('reads the processes above anew when those given were read for another parent', () => {
    const tree = npxFromTerminal();
    const other = readAncestry(777, fakeTree([777, SH], [776, NPM], [775, '-bash\0']).proc);
    expect(other).toHaveLength(3);
    const gone = vi.fn();
    followParent({ gone }, { pollMs: 100, ppid: tree.ppid, proc: tree.proc, ancestry: other });
    tree.end(4200);
    pass(100);
    expect(gone).toHaveBeenCalledExactlyOnceWith(4200);
  });

  it('follows only its own parent where /proc cannot be read (another system than Linux)', () => {
    const tree = npxFromTerminal();
    const gone = vi.fn();
    followParent({ gone }, { pollMs: 100, ppid: tree.ppid, proc: () => undefined });
    tree.end(4200);
    pass(500);
    expect(gone).not.toHaveBeenCalled();
    tree.end(4242);
    pass(100);
    expect(gone).toHaveBeenCalledExactlyOnceWith(4242);
  });
});

describe('reading the processes above from /proc', () => {
  it('reads the state, the parent and the start time of a stat whose command name holds spaces and parentheses', () => {
    expect(parseStat(stat(4200, 4100, 123456))).toEqual({ state: 'S', ppid: 4100, start: '123456' });
    expect(parseStat(stat(4200, 1, 7, 'Z'))).toEqual({ state: 'Z', ppid: 1, start: '7' });
    expect(parseStat('Name:\tsh\n')).toBeUndefined();
    expect(parseStat('4200 (sh) S 4100 4200')).toBeUndefined();
  });

  it("knows a package runner by its executable, its script or npm's title, and nothing else by those names", () => {
    for (const cmdline of [
      NPM,
      'npm run check\0',
      'node\0/usr/lib/node_modules/npm/bin/npx-cli.js\0--no-install\0jobcheck\0',
      '/usr/local/bin/node\0/usr/bin/npm\0exec\0jobcheck\0',
      'node\0/home/me/.local/share/pnpm/pnpm.cjs\0exec\0jobcheck\0',
      '/usr/bin/yarn\0jobcheck\0',
    ])
      expect(isPackageRunner(cmdline), cmdline).toBe(true);
    for (const cmdline of [
      'node\0server.js\0',
      'node\0node_modules/npm-run-all/bin/npm-run-all/index.js\0',
      'npmd\0',
      'python3\0npm.py\0',
      '-bash\0',
      '',
    ])
      expect(isPackageRunner(cmdline), cmdline).toBe(false);
    expect(isWrapper(SH)).toBe(true);
    expect(isWrapper('bash\0script.sh\0')).toBe(false);
  });

  it("links each wrapper to its parent, from the harness's parent up to the first process that is none, never to init", () => {
    expect(wrapperLinks(readAncestry(4242, npxFromTerminal().proc))).toEqual([
      { pid: 4242, start: '100', parent: 4200 },
      { pid: 4200, start: '99', parent: 4100 },
    ]);
    expect(wrapperLinks(readAncestry(4242, fakeTree([4242, SH], [4200, NPM]).proc))).toEqual([
      { pid: 4242, start: '100', parent: 4200 },
    ]);
    expect(wrapperLinks(readAncestry(4100, npxFromTerminal().proc))).toEqual([]);
    expect(readAncestry(4242, () => undefined)).toEqual([]);
  });

  it('breaks a link when the wrapper was reparented, is dead or is another process, and not when its stat cannot be read', () => {
    const link = { pid: 4242, start: '100', parent: 4200 };
    expect(brokenLink(link, stat(4242, 4200, 100))).toBeUndefined();
    expect(brokenLink(link, stat(4242, 1, 100))).toBe(4200);
    expect(brokenLink(link, stat(4242, 4200, 100, 'Z'))).toBe(4242);
    expect(brokenLink(link, stat(4242, 4200, 5000))).toBe(4242);
    expect(brokenLink(link, undefined)).toBeUndefined();
  });
});

describe('reading the parent from /proc', () => {
  it('knows a waiting shell by its -c flag and the SIGINT bit of its caught signals', () => {
    expect(isWaitingShell('sh\0-c\0cmd\0', status('0000000000010002', 1))).toBe(true);
    expect(isWaitingShell('/usr/bin/dash\0-ec\0cmd\0', status('0000000000000002', 1))).toBe(true);
    expect(isWaitingShell('sh\0-c\0cmd\0', status('0000000000010000', 1))).toBe(false);
    expect(isWaitingShell('sh\0script.sh\0', status('0000000000010002', 1))).toBe(false);
    expect(isWaitingShell('npm exec jobcheck\0', status('0000000000010002', 1))).toBe(false);
  });

  it('adds the voluntary and the other context switches', () => {
    expect(contextSwitches(status('0', 4))).toBe(7);
    expect(contextSwitches('Name:\tsh\n')).toBeUndefined();
  });
});
