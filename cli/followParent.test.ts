import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { contextSwitches, followParent, isWaitingShell } from './followParent.ts';

/**
 * Following the parent, on a fake parent: its pid, its /proc files and its SIGCONTs are the test's.
 * The real processes (npx, a killed wrapper, a shell holding SIGINT) are held by the hostile
 * suite's signal cases (conformance/protocol/hostile/surface/signals.ts).
 */
const status = (caught: string, switches: number): string =>
  `Name:\tsh\nSigIgn:\t0000000000000000\nSigCgt:\t${caught}\nvoluntary_ctxt_switches:\t${switches}\nnonvoluntary_ctxt_switches:\t3\n`;

interface FakeParent {
  ppid: number;
  switches: number;
  caught: string;
  proc: (pid: number, file: 'cmdline' | 'status') => string | undefined;
}

/** A parent process under the test's control. */
function fakeParent(cmdline: string): FakeParent {
  const parent = {
    ppid: 4242,
    switches: 4,
    caught: '0000000000010002',
    proc: (pid: number, file: 'cmdline' | 'status'): string | undefined => {
      if (pid !== 4242) return undefined;
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
