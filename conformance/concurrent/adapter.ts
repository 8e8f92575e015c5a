/**
 * The interface a concurrent implementation under test is driven through: many requests in
 * flight at once, each on a worker lane, replies in any order. Sequential adapters (Adapter)
 * remain the interface of every other check.
 */
import type { Config, Reply, Snapshot } from '../../contract/index.ts';

/** Thrown (as a rejection of `execute`) when no reply came: the outcome is indefinite. */
export class IndefiniteOutcome extends Error {
  constructor(
    readonly why: 'timeout' | 'process_died' | 'closed',
    message: string,
  ) {
    super(message);
    this.name = 'IndefiniteOutcome';
  }
}

/** A running implementation that may be sent several requests before earlier ones reply. */
export interface ConcurrentAdapter {
  readonly name: string;
  /**
   * Whether the implementation accepts concurrent requests. When false, the harness still sends
   * one request at a time per round in a random order, and the history is trivially sequential.
   */
  readonly concurrent: boolean;
  /** Executes one command on a lane; rejects with IndefiniteOutcome when no reply can come. */
  execute(lane: number, command: unknown): Promise<Reply>;
  /** The canonical snapshot, taken when nothing is in flight. */
  snapshot(): Promise<Snapshot>;
  /** Releases everything (processes, connections). Idempotent. */
  close(): Promise<void>;
}

/** Creates a fresh, empty concurrent implementation for a config and a number of lanes. */
export type ConcurrentFactory = (config: Config, options: { readonly workers: number }) => Promise<ConcurrentAdapter>;
