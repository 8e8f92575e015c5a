/**
 * What a check is run against: one object that says how to open fresh stores of the
 * implementation for each phase, instead of a factory per phase threaded through the options.
 *
 * Only `factory` is needed. A process target (conformance/protocol/) offers more: stores whose
 * restarts carry the snapshot into another process of its pool (warm, `factory.warm`), stores
 * that crash-restart a durable implementation (`factory.crash`), and lanes that take requests at
 * once over jobcheck/2 (`concurrentProcessFactory`).
 */
import type { AdapterFactory } from '../adapter.ts';
import type { ConcurrentFactory } from '../concurrent/adapter.ts';
import type { RestartCounts } from '../protocol/index.ts';

/** The implementation under check and the ways to open fresh stores of it. */
export interface CheckTarget {
  /** For reports: a command, a module path, `impl/JobStore`. Optional: the stores name themselves too. */
  readonly name?: string;
  /**
   * Fresh stores whose restarts are cold: the fixture stories use it, so that every check still
   * sees an old process exit when its stdin closes and a newly started one restore; and the
   * restore phase, which offers its stores snapshots through Adapter.offerRestore (or restoreFrom;
   * stores with neither leave that phase not exercised). Every other phase uses it too unless the
   * target says otherwise below.
   */
  readonly factory: AdapterFactory;
  /**
   * Stores for the path suite, the exploration and the campaign, when they differ from `factory`:
   * for a process target, ones whose restarts carry the snapshot into another process of the
   * pool, reset by hello, instead of a newly started one.
   */
  readonly warmFactory?: AdapterFactory;
  /**
   * Stores for the campaign, when they differ from `warmFactory`: for a process target, ones that
   * also crash-restart an implementation whose hello reply says it is durable (SIGKILL, a new
   * process resuming the storage, no snapshot crossing).
   */
  readonly campaignFactory?: AdapterFactory;
  /**
   * Lanes for the competing workers (the `concurrent` option): the implementation taking requests
   * from several lanes at once. Default: `factory`'s stores, one request at a time, whose
   * sequential histories make the competing workers not exercised (and the check incomplete).
   */
  readonly concurrentFactory?: ConcurrentFactory;
  /** Stores checked at once unless the options say otherwise (default 1; a process target does well with several). */
  readonly parallel?: number;
  /** Restarts done so far by the target's adapters, when it counts them (a process target). */
  readonly restarts?: () => RestartCounts;
}
