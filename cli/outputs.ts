/**
 * Output destinations, checked before any work starts: a report directory or a JUnit file that
 * cannot be written is a usage error at once (exit 2), not after a whole check has run. Directories
 * are created one level at a time without `recursive` (Node's recursive mkdir spins for ever on a
 * path such as /proc/x), and each is proven writable by creating and removing a probe file.
 */
import { constants } from 'node:fs';
import { access, mkdir, rm, stat, unlink, writeFile } from 'node:fs/promises';
import type { Stats } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { SetupError } from './args.ts';

const code = (error: unknown): string | undefined => (error as { code?: string }).code;
const reason = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/** Creates `dir` and any missing parents, one level at a time, and proves it writable; throws SetupError. Returns the absolute path. */
export async function prepareOutputDir(command: string, what: string, dir: string): Promise<string> {
  const target = resolve(dir);
  const missing: string[] = [];
  for (let current = target; ; ) {
    let info: Stats;
    try {
      info = await stat(current);
    } catch (error) {
      if (code(error) !== 'ENOENT' && code(error) !== 'ENOTDIR')
        throw new SetupError(`${command}: cannot use ${what} ${dir}: ${reason(error)}`);
      missing.unshift(current);
      const parent = dirname(current);
      if (parent === current) throw new SetupError(`${command}: cannot use ${what} ${dir}: no part of the path exists`);
      current = parent;
      continue;
    }
    if (!info.isDirectory())
      throw new SetupError(`${command}: cannot use ${what} ${dir}: ${current} is not a directory`);
    break;
  }
  for (const level of missing) {
    try {
      await mkdir(level);
    } catch (error) {
      if (code(error) !== 'EEXIST') throw new SetupError(`${command}: cannot create ${what} ${dir}: ${reason(error)}`);
    }
  }
  const probe = join(target, `.jobcheck-probe-${process.pid}`);
  try {
    await writeFile(probe, '');
    await unlink(probe);
  } catch (error) {
    throw new SetupError(`${command}: cannot write into ${what} ${dir}: ${reason(error)}`);
  }
  return target;
}

/**
 * Makes sure the report directory exists and is writable, and removes a `failure.json` left by an
 * earlier run there (an agreeing run writes none, and an old one must not be taken for its own).
 */
export async function prepareReportDir(command: string, dir: string): Promise<void> {
  const target = await prepareOutputDir(command, 'the report directory', dir);
  await rm(join(target, 'failure.json'), { force: true }).catch((error: unknown) => {
    throw new SetupError(`${command}: cannot remove the old failure.json in ${dir}: ${reason(error)}`);
  });
}

/** Makes sure `file` can be written: its directory exists (or is created) and it is not a directory itself. */
export async function prepareOutputFile(command: string, what: string, file: string): Promise<void> {
  await prepareOutputDir(command, `the directory of ${what}`, dirname(file));
  try {
    const info = await stat(file);
    if (info.isDirectory()) throw new SetupError(`${command}: cannot write ${what} ${file}: it is a directory`);
    await access(file, constants.W_OK);
  } catch (error) {
    if (error instanceof SetupError) throw error;
    if (code(error) !== 'ENOENT') throw new SetupError(`${command}: cannot write ${what} ${file}: ${reason(error)}`);
  }
}
