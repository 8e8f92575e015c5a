/**
 * The catalogue of deliberately broken implementations: each is one small change (one file per
 * bug, with a comment naming it), registered here with a name and a description. The
 * conformance engine must catch every one of them.
 *
 * A decision bug is the contract's decisions (impl/decisions) with one function replaced: its
 * variant carries that `Decisions` record, which every store runs (the memory store here, and
 * the SQLite and PostgreSQL stores in decisionBugs.test.ts and `npm run catalogue`). A bug in a
 * store's own structures is a subclass of impl/JobStore.
 *
 * To add a bug: write `conformance/broken/<camelCaseName>.ts` exporting a `Decisions` record (or
 * a subclass of JobStore, or any AdapterFactory, e.g. a process running a broken program), then
 * add an entry below.
 */
import { JobStore, withDecisions } from '../../impl/index.ts';
import type { Decisions } from '../../impl/index.ts';
import type { AdapterFactory } from '../adapter.ts';
import { jobStoreFactory } from '../stores/jobStore.ts';
import { capacityForgetsRunning } from './capacityForgetsRunning.ts';
import { RestartResetsTokens } from './restartResetsTokens.ts';
import { retryForgetsDeadline } from './retryForgetsDeadline.ts';

/** One broken implementation the engine must catch. */
export interface BrokenVariant {
  /** Stable kebab-case name, e.g. `capacity-forgets-running`. */
  readonly name: string;
  /** The bug in one sentence. */
  readonly description: string;
  /** Creates the broken implementation (on the memory store). */
  readonly factory: AdapterFactory;
  /** For a decision bug: the broken decisions, which any store can run (`withDecisions`). */
  readonly decisions?: Decisions;
}

const variant = (name: string, description: string, Store: Parameters<typeof jobStoreFactory>[0]): BrokenVariant => ({
  name,
  description,
  factory: jobStoreFactory(Store, `broken/${name}`),
});

/** A decision bug: the memory store running `decisions`, which the other stores can run too. Pure. */
export const decisionVariant = (name: string, description: string, decisions: Decisions): BrokenVariant => ({
  name,
  description,
  factory: jobStoreFactory(withDecisions(JobStore, decisions), `broken/${name}`),
  decisions,
});

/** Every registered broken variant, in catalogue order. */
export const BROKEN_VARIANTS: readonly BrokenVariant[] = [
  decisionVariant(
    'capacity-forgets-running',
    'The capacity check counts only ready and waiting jobs, not running ones.',
    capacityForgetsRunning,
  ),
  decisionVariant(
    'retry-forgets-deadline',
    'A transient failure schedules a retry even when it would start at or after the deadline.',
    retryForgetsDeadline,
  ),
  variant('restart-resets-tokens', 'Restoring a snapshot restarts the token counter at 1.', RestartResetsTokens),
];

/** The broken variant with this name, or undefined. */
export const brokenVariant = (name: string): BrokenVariant | undefined => BROKEN_VARIANTS.find((v) => v.name === name);

export { CapacityForgetsRunning, capacityForgetsRunning } from './capacityForgetsRunning.ts';
export { RestartResetsTokens } from './restartResetsTokens.ts';
export { RetryForgetsDeadline, retryForgetsDeadline } from './retryForgetsDeadline.ts';
