/**
 * The lab's browser bundle (the reference model as one IIFE, buildLabBundle.ts), found where it
 * is: beside this module when the package was built (`npm run build` writes it into dist/, so an
 * installed package, which has no vite, still has it); else, in a checkout running the sources,
 * in node_modules/.cache/jobcheck-lab/ under a hash of the sources it is built from, built there
 * with vite the first time. When neither works, LabBundleError `lab_bundle_missing` says how to
 * build it.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CodedError } from '../../../contract/CodedError.ts';

/** The file name of the built bundle beside this module (dist/cli/report/lab/). */
export const LAB_BUNDLE_FILE = 'lab-model.js';

/** The bundle can be neither found nor built; the message says how to build it. */
export class LabBundleError extends CodedError<'lab_bundle_missing'> {
  override name = 'LabBundleError' as const;
  constructor(message: string, options?: { cause?: unknown }) {
    super('lab_bundle_missing', message, options);
  }
}

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** Where a bundle is cached in a checkout. */
export const LAB_CACHE_DIR = join(ROOT, 'node_modules', '.cache', 'jobcheck-lab');

/**
 * A hash of what the bundle is built from: the sources of contract/, model/ and the lab (tests and
 * fixtures aside), and the versions of vite, xstate and zod. Reads files.
 */
export function labSourcesHash(root: string = ROOT): string {
  const hash = createHash('sha256');
  const walk = (dir: string): void => {
    const full = join(root, dir);
    if (!existsSync(full)) return;
    for (const entry of readdirSync(full, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory()) {
        if (entry.name !== 'fixtures') walk(path);
      } else if (entry.name.endsWith('.ts') && !entry.name.includes('.test.'))
        hash
          .update(path)
          .update('\0')
          .update(readFileSync(join(root, path)))
          .update('\0');
    }
  };
  for (const dir of ['contract', 'model', 'cli/report/lab']) walk(dir);
  for (const pkg of ['vite', 'xstate', 'zod']) {
    const file = join(root, 'node_modules', pkg, 'package.json');
    hash.update(pkg).update(existsSync(file) ? String(JSON.parse(readFileSync(file, 'utf8')).version) : '-');
  }
  return hash.digest('hex').slice(0, 24);
}

/** Where the bundle came from, for messages and tests. */
export type LabBundleSource = 'dist' | 'cache' | 'built';

/**
 * The bundle's code and where it came from: the built package's file, else the checkout's cache,
 * else a fresh vite build (then cached). Throws LabBundleError when there is no built file and
 * vite cannot build one.
 */
export async function labBundle(): Promise<{ readonly code: string; readonly source: LabBundleSource }> {
  const beside = new URL(`./${LAB_BUNDLE_FILE}`, import.meta.url);
  if (existsSync(beside)) return { code: readFileSync(beside, 'utf8'), source: 'dist' };
  const cached = join(LAB_CACHE_DIR, `${labSourcesHash()}.js`);
  if (existsSync(cached)) return { code: readFileSync(cached, 'utf8'), source: 'cache' };
  let code: string;
  try {
    const { buildLabBundle } = await import('./buildLabBundle.ts');
    code = await buildLabBundle();
  } catch (cause) {
    const why = cause instanceof Error ? cause.message.split('\n')[0] : String(cause);
    throw new LabBundleError(
      `the lab needs the model bundled for the browser, and there is none: this copy of jobcheck was not built (no ${LAB_BUNDLE_FILE} in ${fileURLToPath(new URL('.', import.meta.url))}) and vite could not build it (${why}). In a checkout of jobcheck run \`npm ci\` (vite is a devDependency) or \`npm run build\``,
      { cause },
    );
  }
  mkdirSync(LAB_CACHE_DIR, { recursive: true });
  // Written beside, then renamed: two processes building at once never leave half a file.
  const partial = `${cached}.${process.pid}.tmp`;
  writeFileSync(partial, code);
  renameSync(partial, cached);
  // Bundles of earlier sources are never read again.
  for (const name of readdirSync(LAB_CACHE_DIR))
    if (name.endsWith('.js') && join(LAB_CACHE_DIR, name) !== cached)
      rmSync(join(LAB_CACHE_DIR, name), { force: true });
  return { code, source: 'built' };
}
