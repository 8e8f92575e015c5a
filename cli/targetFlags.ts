/**
 * The command-line flags that choose an implementation (`--impl`, `--module`, `--builtin`,
 * `--broken` and their options), their usage lines and their zod shape: what `check`,
 * `explore`, `replay` and `profile` read. Apart from target.ts, which resolves the chosen
 * implementation and so loads the engine, the protocol and the catalogue: `jobcheck explore` on
 * the model alone reads these flags and never loads that.
 */
import { DEFAULT_REPLY_TIMEOUT_MS, MAX_REPLY_TIMEOUT_MS } from '../conformance/protocol/limits.ts';
import { z } from 'zod';
import { intFlag } from './args.ts';

// The option table lives apart (targetOptions.ts): `check` reads it to start the implementation
// before anything that loads zod.
export { TARGET_OPTIONS } from './targetOptions.ts';

/** The usage lines of the target flags. */
export const TARGET_USAGE = `Implementation (exactly one):
  --impl "<command>"   a program speaking the jobcheck/1 protocol (docs/protocol.md), run by the shell
  --module <path>      a JS/TS module exporting an AdapterFactory (default export or createAdapter)
  --builtin            the built-in impl/JobStore
  --broken <name>      a deliberately broken variant from the catalogue (see docs/broken-catalogue.md)
Implementation options:
  --timeout <ms>       longest wait for one reply or call (--impl, --module; default ${DEFAULT_REPLY_TIMEOUT_MS},
                       at most ${MAX_REPLY_TIMEOUT_MS}; hello, which starts the process, gets twice as long)
  --fresh              --impl: start a new process for every store instead of resetting one with hello
  --normal-scheduling  --impl: run the program under the system's normal scheduling policy instead of
                       SCHED_BATCH (Linux; see docs/cli.md)
  --verbose            --impl: pass the implementation's stderr through`;

/**
 * The zod shape of the target flags' values, for a command's flag schema: `--timeout` read as the
 * milliseconds a reply may take, from 1 to the protocol's maximum (absent: the protocol's default).
 */
export const TARGET_FLAGS = {
  impl: z.string().optional(),
  module: z.string().optional(),
  builtin: z.boolean().optional(),
  broken: z.string().optional(),
  timeout: intFlag('timeout', 1, MAX_REPLY_TIMEOUT_MS).optional(),
  fresh: z.boolean().optional(),
  'normal-scheduling': z.boolean().optional(),
  verbose: z.boolean().optional(),
};
