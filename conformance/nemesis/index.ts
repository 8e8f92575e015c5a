/**
 * The nemesis layer's public names: the faults, their schedule and the events that record them,
 * the per-worker TCP proxy, and the partition in a Linux network namespace.
 */
export type { NemesisErrorCode } from './errors.ts';
export { NemesisError } from './errors.ts';
export type { Fault, FaultKind, FaultTarget, NemesisAction, NemesisEvent, PartitionMode } from './fault.ts';
export {
  describeFault,
  describeTarget,
  faultSchema,
  lanesHit,
  MAX_LATENCY_MS,
  nemesisEventSchema,
  PARTITION_MODES,
  targetSchema,
} from './fault.ts';
export type { NamespacePartition } from './namespace.ts';
export { namespaceUnavailable, openNamespace, sweepNamespaces } from './namespace.ts';
export type { FaultProxy, ProxyCounts, ProxyMode, ProxyOptions } from './proxy.ts';
export { DEFAULT_MAX_HELD_BYTES, startProxy } from './proxy.ts';
export type { NemesisSchedule, ScheduledFault, ScheduleTurn } from './schedule.ts';
export { MAX_SCHEDULED_FAULTS, nemesisScheduleSchema, parseNemesisSchedule, scheduleEnd, turnAt } from './schedule.ts';
