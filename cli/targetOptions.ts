/**
 * The option table of the flags that choose an implementation (targetFlags.ts has their usage and
 * reading). Plain data that loads nothing: `jobcheck check` reads the command line with it
 * (checkFlags.ts) to start the implementation's first process before the rest loads.
 */
/** The flags that choose an implementation, shared by `check` and `replay`. */
export const TARGET_OPTIONS = {
  impl: { type: 'string' },
  module: { type: 'string' },
  builtin: { type: 'boolean' },
  broken: { type: 'string' },
  timeout: { type: 'string' },
  fresh: { type: 'boolean' },
  'normal-scheduling': { type: 'boolean' },
  verbose: { type: 'boolean' },
} as const;
