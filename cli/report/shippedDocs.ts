/**
 * Where a page jobcheck writes points its readers for the contract: the copy of docs/contract.md
 * shipped with the jobcheck that wrote it (the installed package's, or the checkout's), named by
 * its version, so that a link never promises a repository address or a branch that may say
 * something else. The link is a file URL: it works offline from the page's folder and through
 * the `latest` link alike; on another machine (a CI artifact) it names the file and the version
 * to look for there.
 */
import { pathToFileURL } from 'node:url';
import { JOBCHECK_DOCS_DIR, JOBCHECK_VERSION } from './version.ts';

/** The contract a page links: its URL (rules add `#rule-<id>`) and the version it is the contract of. */
export interface ShippedContract {
  readonly url: string;
  readonly version: string;
}

/** The contract shipped with this copy of jobcheck; undefined when its docs are not found. Reads nothing after start. */
export function shippedContract(): ShippedContract | undefined {
  if (JOBCHECK_DOCS_DIR === undefined) return undefined;
  return { url: pathToFileURL(`${JOBCHECK_DOCS_DIR}contract.md`).href, version: JOBCHECK_VERSION };
}
