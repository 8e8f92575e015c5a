/**
 * The optional Linux mode of a partition: a worker runs as a process inside a network namespace of
 * its own, linked to the host by a veth pair, and nft rules inside the namespace cut it off, so
 * the kernel's TCP does what it does in a real partition (`drop`: packets vanish and TCP
 * retransmits until the heal; `reset`: every packet to the host is answered with a TCP RST).
 *
 * It needs Linux, root (the host's end of the veth pair is made in the host's namespace: `unshare
 * -Urn` gives a namespace of its own, but no link to the host's) and the `ip` and `nft` commands;
 * `namespaceUnavailable()` says which is missing. Names carry the harness's pid
 * (`jobcheck-<pid>-<n>`), so that `sweepNamespaces` removes those of a harness that died, and
 * `close()` (or the process's exit) kills the processes started inside and deletes the veth pair,
 * the namespace and its rules, whatever happened before; closing twice is one close.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import { outsideText } from '../outside/outsideText.ts';
import { NemesisError } from './errors.ts';

/** The commands the mode runs, each looked up on PATH and in the sbin folders. */
const TOOLS = ['ip', 'nft'] as const;
const SBIN = ['/usr/sbin', '/sbin'];
/** Each command of the mode may take this long before it is called failed. */
const COMMAND_TIMEOUT_MS = 10_000;
const PREFIX = 'jobcheck-';

/** Where a command is, or undefined. */
function which(command: string): string | undefined {
  for (const dir of [...(process.env['PATH'] ?? '').split(delimiter), ...SBIN]) {
    if (dir === '') continue;
    try {
      accessSync(join(dir, command), constants.X_OK);
      return join(dir, command);
    } catch {}
  }
  return undefined;
}

/** Why the namespace mode cannot run here, or undefined when it can. */
export function namespaceUnavailable(): string | undefined {
  if (process.platform !== 'linux') return `the namespace mode needs Linux (this is ${process.platform})`;
  if (process.getuid?.() !== 0)
    return 'the namespace mode needs root, to link a namespace to the host by a veth pair (the proxy needs none)';
  const absent = TOOLS.filter((t) => which(t) === undefined);
  if (absent.length > 0)
    return `the namespace mode needs ${absent.join(' and ')} (Debian's iproute2 and nftables packages)`;
  return undefined;
}

/** Runs one command of the mode; throws `namespace_failed` with its words, escaped. */
function run(args: readonly string[], input?: string): string {
  const [command, ...rest] = args as [string, ...string[]];
  try {
    return execFileSync(which(command) ?? command, rest, {
      input: input ?? '',
      encoding: 'utf8',
      timeout: COMMAND_TIMEOUT_MS,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
  } catch (e) {
    const stderr = String((e as { stderr?: unknown }).stderr ?? '').trim();
    throw new NemesisError(
      'namespace_failed',
      `${args.join(' ')}: ${outsideText(stderr === '' ? String((e as Error).message) : stderr)}`,
      { cause: e },
    );
  }
}

/** Runs a command of a cleanup, which may find its object already gone. */
const quietly = (args: readonly string[]): void => {
  try {
    run(args);
  } catch {}
};

/** A namespace a worker runs in, and the switch that cuts it off. */
export interface NamespacePartition {
  readonly name: string;
  /** The host as the namespace reaches it (a broker must listen there, or on every address). */
  readonly hostAddress: string;
  /** The namespace's own address, as the host sees it. */
  readonly innerAddress: string;
  /** Starts a command inside the namespace, in a process group of its own that `close()` kills. */
  spawn(command: string, args: readonly string[]): ChildProcess;
  /** Cuts the namespace off from the host: `drop` every packet, or `reset` every TCP packet with an RST. */
  partition(mode: 'drop' | 'reset'): void;
  /** Removes the cut. */
  heal(): void;
  close(): void;
}

/** The namespaces this process made and has not closed, for the exit hook. */
const live = new Map<string, () => void>();
let hooked = false;

/** Whether a process is alive. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as { code?: string }).code === 'EPERM';
  }
}

/** Deletes the namespaces of harnesses that died without closing theirs; returns their names. */
export function sweepNamespaces(): string[] {
  const names = run(['ip', 'netns', 'list'])
    .split('\n')
    .map((line) => line.split(' ')[0] ?? '')
    .filter((n) => n.startsWith(PREFIX));
  const stale = names.filter((n) => {
    const pid = Number(n.slice(PREFIX.length).split('-')[0]);
    return Number.isInteger(pid) && pid !== process.pid && !alive(pid);
  });
  for (const name of stale) quietly(['ip', 'netns', 'delete', name]);
  return stale;
}

let opened = 0;

/** A free /30 of 10.213.0.0/16 (none of the host's addresses in it): the host's end `.1`, the namespace's `.2`. */
function freeSubnet(): { host: string; inner: string } {
  const taken = run(['ip', '-o', '-4', 'addr', 'show']);
  for (let tries = 0; tries < 64; tries++) {
    const k = Math.floor(Math.random() * 16_384);
    const base = `10.213.${k >> 6}.${(k & 63) * 4}`;
    const [a, b, c, d] = base.split('.').map(Number) as [number, number, number, number];
    const host = `${a}.${b}.${c}.${d + 1}`;
    if (!taken.includes(` ${host}/`) && !taken.includes(` ${a}.${b}.${c}.${d + 2}/`))
      return { host, inner: `${a}.${b}.${c}.${d + 2}` };
  }
  throw new NemesisError('namespace_failed', 'no free /30 found in 10.213.0.0/16 after 64 tries');
}

/**
 * Makes a namespace linked to the host by a veth pair, with no cut; throws `namespace_unavailable`
 * (with why) where the mode cannot run, `namespace_failed` when a command fails (what it made is undone).
 */
export function openNamespace(): NamespacePartition {
  const why = namespaceUnavailable();
  if (why !== undefined) throw new NemesisError('namespace_unavailable', why);
  sweepNamespaces();
  opened += 1;
  const name = `${PREFIX}${process.pid}-${opened}`;
  const tag = `jc${process.pid % 100_000}${opened % 100}`;
  const outer = `${tag}h`;
  const inner = `${tag}n`;
  const children = new Set<ChildProcess>();
  let closed = false;
  const inside = (args: readonly string[], input?: string): string =>
    run(['ip', 'netns', 'exec', name, ...args], input);

  const close = (): void => {
    if (closed) return;
    closed = true;
    for (const child of children)
      if (child.pid !== undefined && child.exitCode === null && child.signalCode === null)
        try {
          process.kill(-child.pid, 'SIGKILL');
        } catch {}
    quietly(['ip', 'link', 'delete', outer]);
    quietly(['ip', 'netns', 'delete', name]);
    live.delete(name);
  };
  live.set(name, close);
  if (!hooked) {
    hooked = true;
    process.once('exit', () => {
      for (const end of [...live.values()]) end();
    });
  }

  let subnet: { host: string; inner: string };
  try {
    run(['ip', 'netns', 'add', name]);
    run(['ip', 'link', 'add', outer, 'type', 'veth', 'peer', 'name', inner]);
    run(['ip', 'link', 'set', inner, 'netns', name]);
    subnet = freeSubnet();
    run(['ip', 'addr', 'add', `${subnet.host}/30`, 'dev', outer]);
    run(['ip', 'link', 'set', outer, 'up']);
    inside(['ip', 'addr', 'add', `${subnet.inner}/30`, 'dev', inner]);
    inside(['ip', 'link', 'set', inner, 'up']);
    inside(['ip', 'link', 'set', 'lo', 'up']);
  } catch (e) {
    close();
    throw e;
  }
  const { host, inner: innerAddress } = subnet;

  /**
   * The rules of a cut. An RST that `reject` makes for the worker comes in on `lo` with the host's
   * address as its source: the input chain lets it through, or the worker would never see it.
   */
  const cut = (verdict: string): void => {
    inside(
      ['nft', '-f', '-'],
      [
        'table inet jobcheck {',
        `  chain input { type filter hook input priority 0; policy accept; iifname != "lo" ip saddr ${host} ${verdict}; }`,
        `  chain output { type filter hook output priority 0; policy accept; ip daddr ${host} ${verdict}; }`,
        '}',
        '',
      ].join('\n'),
    );
  };
  const open = (): void => {
    if (closed) throw new NemesisError('closed', `namespace ${name}: used after close`);
  };

  return {
    name,
    hostAddress: host,
    innerAddress,
    spawn: (command, args) => {
      open();
      const child = spawn(which('ip') ?? 'ip', ['netns', 'exec', name, command, ...args], {
        detached: true,
        stdio: ['pipe', 'pipe', 'pipe'],
      });
      children.add(child);
      child.once('exit', () => children.delete(child));
      return child;
    },
    partition: (mode) => {
      open();
      if (mode !== 'drop' && mode !== 'reset')
        throw new NemesisError(
          'invalid_fault',
          `namespace partition: mode must be drop or reset (got ${String(mode)})`,
        );
      quietly(['ip', 'netns', 'exec', name, 'nft', 'delete', 'table', 'inet', 'jobcheck']);
      cut(mode === 'drop' ? 'drop' : 'meta l4proto tcp reject with tcp reset');
    },
    heal: () => {
      open();
      quietly(['ip', 'netns', 'exec', name, 'nft', 'delete', 'table', 'inet', 'jobcheck']);
    },
    close,
  };
}
