/**
 * The catalogue of deliberately broken implementations: each is one small change to
 * impl/JobStore (one file per bug, with a comment naming it), registered here with a name and a
 * description. The conformance engine must catch every one of them.
 *
 * To add a bug: write `conformance/broken/<camelCaseName>.ts` exporting a subclass of JobStore
 * (or any AdapterFactory, e.g. a process running a broken program), then add an entry below.
 */
import type { AdapterFactory } from '../adapter.ts';
import { jobStoreFactory } from '../adapters/jobStore.ts';
import { CapacityForgetsRunning } from './capacityForgetsRunning.ts';
import { RestartResetsTokens } from './restartResetsTokens.ts';
import { RetryForgetsDeadline } from './retryForgetsDeadline.ts';

/** One broken implementation the engine must catch. */
export interface BrokenVariant {
  /** Stable kebab-case name, e.g. `capacity-forgets-running`. */
  readonly name: string;
  /** The bug in one sentence. */
  readonly description: string;
  /** Creates the broken implementation. */
  readonly factory: AdapterFactory;
}

const variant = (name: string, description: string, Store: Parameters<typeof jobStoreFactory>[0]): BrokenVariant => ({
  name,
  description,
  factory: jobStoreFactory(Store, `broken/${name}`),
});

/** Every registered broken variant, in catalogue order. */
export const BROKEN_VARIANTS: readonly BrokenVariant[] = [
  variant('capacity-forgets-running', 'The capacity check counts only ready and waiting jobs, not running ones.', CapacityForgetsRunning),
  variant('retry-forgets-deadline', 'A transient failure schedules a retry even when it would start at or after the deadline.', RetryForgetsDeadline),
  variant('restart-resets-tokens', 'Restoring a snapshot restarts the token counter at 1.', RestartResetsTokens),
];

/** The broken variant with this name, or undefined. */
export const brokenVariant = (name: string): BrokenVariant | undefined => BROKEN_VARIANTS.find((v) => v.name === name);

export { CapacityForgetsRunning } from './capacityForgetsRunning.ts';
export { RestartResetsTokens } from './restartResetsTokens.ts';
export { RetryForgetsDeadline } from './retryForgetsDeadline.ts';
