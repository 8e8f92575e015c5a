/**
 * The flags of `jobcheck check`, apart from the command itself (checkCommand.ts), which loads the
 * engine: so that the command line can be read, and the implementation's first process started
 * (conformance/protocol/prestart.ts), while the engine is still loading.
 */
import { parseArgs } from 'node:util';
import { prestart } from '../conformance/protocol/prestart.ts';
import { TARGET_OPTIONS } from './targetOptions.ts';

/** The options of `jobcheck check`, as parseArgs reads them. */
export const CHECK_OPTIONS = {
  ...TARGET_OPTIONS,
  runs: { type: 'string' },
  seed: { type: 'string' },
  path: { type: 'string' },
  'max-commands': { type: 'string' },
  report: { type: 'string' },
  junit: { type: 'string' },
  json: { type: 'boolean' },
  'time-limit': { type: 'string' },
  parallel: { type: 'string' },
  'no-explore': { type: 'boolean' },
  'no-restore': { type: 'boolean' },
  shard: { type: 'string' },
  workers: { type: 'string' },
  'concurrent-runs': { type: 'string' },
  'concurrent-path': { type: 'string' },
  concurrent: { type: 'string' },
  'fail-fast': { type: 'boolean' },
  'keep-runs': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

/**
 * Starts the first process of `--impl` at once, when the command line is a check of a program
 * that reads as valid flags and does not ask for help; the check takes that process for its
 * first store. A value the check refuses later (a bad --runs, say) ends it unused. Never throws:
 * a command line it cannot read is left to the check to refuse.
 */
export function startImplementationEarly(argv: readonly string[]): void {
  let values: { impl?: string | undefined; help?: boolean | undefined; 'normal-scheduling'?: boolean | undefined };
  try {
    ({ values } = parseArgs({ args: [...argv], options: CHECK_OPTIONS, strict: true, allowPositionals: false }));
  } catch {
    return;
  }
  const impl = values.impl?.trim();
  if (impl === undefined || impl === '' || values.help === true) return;
  prestart(impl, values['normal-scheduling'] === true ? { scheduling: 'normal' } : {});
}

/** Ends the process startImplementationEarly() started, when the check did not take it. */
export { endPrestarted as endImplementationStartedEarly } from '../conformance/protocol/prestart.ts';
