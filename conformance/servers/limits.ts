/**
 * What this machine can and cannot do to a broker, said once so that pages quote it word for word.
 * A kill here is a process crash: the kernel keeps the page cache, so a write the server handed to
 * the kernel survives it even unflushed; that is not a power loss. There is no LazyFS and no
 * dm-flakey, so no test here loses unflushed writes or corrupts a disk. A disk-full fault needs
 * root and `unshare` (a tmpfs in a mount namespace); diskFullUnsupported says why it cannot run.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { onPath, run } from './recipe.ts';

/** The sentence pages quote about what the faults here are not. */
export const MACHINE_LIMITS =
  'A kill here is SIGKILL of the server process: the kernel keeps its page cache, so what the server had written but not flushed survives, and a kill is not a power loss. There is no LazyFS or dm-flakey on this machine, so neither a power loss nor a corrupted disk was tested: no result here says what a configuration keeps when the machine itself goes down.';

let probed: Promise<string | undefined> | undefined;

/**
 * Why a disk-full fault cannot be made here (not Linux, not root, no unshare or nsenter, or the
 * kernel refused a tmpfs in a new mount namespace), or undefined when it can. Probed once.
 */
export function diskFullUnsupported(): Promise<string | undefined> {
  probed ??= probe();
  return probed;
}

async function probe(): Promise<string | undefined> {
  if (process.platform !== 'linux') return `mount namespaces are Linux's, and this is ${process.platform}`;
  if (process.getuid?.() !== 0) return 'mounting a tmpfs in a mount namespace needs root, and this process is not root';
  for (const tool of ['unshare', 'nsenter'])
    if (onPath(tool) === undefined) return `${tool} is not installed (Debian's util-linux)`;
  const folder = mkdtempSync(join(tmpdir(), 'jobcheck-tmpfs-probe-'));
  try {
    await run([
      'unshare',
      '-m',
      '--propagation',
      'private',
      '--',
      'mount',
      '-t',
      'tmpfs',
      '-o',
      'size=64k',
      'jobcheck',
      folder,
    ]);
    return undefined;
  } catch (error) {
    return `a tmpfs could not be mounted in a new mount namespace (${(error as Error).message.split('\n')[0]})`;
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}
