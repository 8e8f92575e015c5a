/**
 * Loading a user's module (`--module`): import it, with a TypeScript loader when node needs one.
 * Kept apart from the runner (runner.ts) so that the child process that runs the module isolated
 * loads it exactly as the command line once loaded it in process.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { codeOf } from '../../contract/index.ts';

/** A TypeScript file, by its name. */
const TYPESCRIPT_FILE = /\.[cm]?ts$/;

/** The file of an ESM entry of tsx (`esm` or `esm/api`), found through the package's exports map from `from` (a file). */
export function tsxEntry(from: string, entry: 'esm' | 'esm/api'): string {
  const manifest = createRequire(from).resolve('tsx/package.json');
  const exported = (
    JSON.parse(readFileSync(manifest, 'utf8')) as {
      exports: Record<string, string | { import?: string | { default?: string } }>;
    }
  ).exports[`./${entry}`];
  const target =
    typeof exported === 'string'
      ? exported
      : typeof exported?.import === 'string'
        ? exported.import
        : exported?.import?.default;
  if (target === undefined) throw new Error(`tsx exports no ${entry}`);
  return join(dirname(manifest), target);
}

/**
 * Imports the module at `file`. A TypeScript module needs a loader: from the sources (bin/ in the
 * checkout, vitest, the runner started with tsx) import() takes it, but the installed package is
 * plain JavaScript on a node that runs no TypeScript (node 20). It then loads the module with the
 * tsx of the module's own project (tsImport, which registers nothing globally), and without one
 * says in one line how to get one.
 */
export async function importModule(file: string): Promise<Record<string, unknown>> {
  const url = pathToFileURL(file).href;
  try {
    return (await import(url)) as Record<string, unknown>;
  } catch (error) {
    if (!TYPESCRIPT_FILE.test(file) || codeOf(error) !== 'ERR_UNKNOWN_FILE_EXTENSION') throw error;
  }
  let api: string;
  try {
    // tsx's ESM build of its API, found through its own exports map (its CommonJS build cannot
    // import its ESM half from a linked folder); require.resolve finds the project's tsx.
    api = tsxEntry(file, 'esm/api');
  } catch {
    throw new Error(
      `${basename(file)} is TypeScript, which node ${process.version} does not run by itself: install tsx in its project (npm install --save-dev tsx) or compile the module to JavaScript`,
    );
  }
  const tsx = (await import(pathToFileURL(api).href)) as {
    tsImport(specifier: string, parentURL: string): Promise<unknown>;
  };
  const mod = (await tsx.tsImport(url, import.meta.url)) as Record<string, unknown>;
  // A .ts file of a CommonJS project is compiled to CommonJS: its `export default` arrives as
  // module.exports.default, one level down.
  const inner = mod['default'];
  return typeof inner === 'object' && inner !== null && (inner as { __esModule?: unknown }).__esModule === true
    ? (inner as Record<string, unknown>)
    : mod;
}
