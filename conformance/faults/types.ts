/**
 * What a fault campaign is given and what it controls: the queue under a durability
 * configuration (its factories, the address a proxy forwards to, its tick), and the broker server
 * (kill, restart, pause, resume), which conformance/servers/ provides and a test may fake.
 */
import type { AdapterFactory } from '../adapter.ts';
import type { ConcurrentFactory } from '../concurrent/index.ts';
import type { FAULT_NAMES } from '../profile/result.ts';
import type { ProfileTarget } from '../profile/target.ts';

/** A fault the campaign runs. */
export type FaultName = (typeof FAULT_NAMES)[number];

/** The broker server, as the campaign drives it (BrokerServer has these). */
export interface BrokerControl {
  kill(): Promise<void>;
  restart(): Promise<void>;
  pause(ms?: number): void;
  resume(): void;
}

/** The queue under one durability configuration. */
export interface FaultSubject {
  /** The queue's profile target on this server (its declarations pick the model the history is checked against). */
  readonly target: ProfileTarget;
  /** The configuration's name (conformance/servers/configurations.ts). */
  readonly configuration: string;
  /** Sequential instances on the server: the kill and pause scenarios. */
  readonly factory: AdapterFactory;
  /**
   * Competing workers with one lane's connections sent to `address` (`host:port` of a proxy)
   * instead of the server; absent when the adapter cannot route one worker alone (then the
   * partition is `unknown`, saying so).
   */
  readonly routedFactory?: (lane: number, address: string) => ConcurrentFactory;
  /** Why there is no routedFactory, for the page. */
  readonly unroutable?: string;
  /** Where a proxy forwards to. */
  readonly upstream: { readonly host: string; readonly port: number };
  /** Real milliseconds per tick (the target's wall clock; a logical one uses its own default). */
  readonly tickMs: number;
  /** The command that replays this configuration's campaign, for stories and pages. */
  readonly replayCommand: (fault: FaultName) => string;
}
