/**
 * The jobcheck version (package.json's): what `jobcheck --version` prints (cli/cli.ts) and what a
 * run's page and run.json record; and the docs folder shipped beside that package.json, which
 * the pages link (the installed package holds docs/*.md). It lives here, importing nothing of
 * ours, because cli.ts loads the commands that write runs (importing it from there would be a cycle).
 */
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The package's version, or `unknown` when its package.json is not found; read once. */
export const JOBCHECK_VERSION: string = ((): string => {
  // Two folders up from the sources (cli/report/), three from the built code (dist/cli/report/).
  const file = ['../../package.json', '../../../package.json']
    .map((up) => new URL(up, import.meta.url))
    .find((url) => existsSync(url));
  if (file === undefined) return 'unknown';
  return (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version;
})();

/**
 * The docs folder of this copy of jobcheck (the checkout's, or the installed package's
 * `node_modules/jobcheck/docs/`), as a path; undefined when it holds no contract.md.
 */
export const JOBCHECK_DOCS_DIR: string | undefined = ((): string | undefined => {
  const dir = ['../../docs/', '../../../docs/']
    .map((up) => new URL(up, import.meta.url))
    .find((url) => existsSync(new URL('contract.md', url)));
  return dir === undefined ? undefined : fileURLToPath(dir);
})();
