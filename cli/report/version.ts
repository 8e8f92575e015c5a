/**
 * The jobcheck version (package.json's): what `jobcheck --version` prints (cli/cli.ts) and what a
 * run's page and run.json record. It lives here, importing nothing of ours, because cli.ts loads
 * the commands that write runs (importing it from there would be a cycle).
 */
import { existsSync, readFileSync } from 'node:fs';

/** The package's version, or `unknown` when its package.json is not found; read once. */
export const JOBCHECK_VERSION: string = ((): string => {
  // Two folders up from the sources (cli/report/), three from the built code (dist/cli/report/).
  const file = ['../../package.json', '../../../package.json']
    .map((up) => new URL(up, import.meta.url))
    .find((url) => existsSync(url));
  if (file === undefined) return 'unknown';
  return (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version;
})();
