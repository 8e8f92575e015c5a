/**
 * Broker servers the harness controls, for faults: start one of a named durability configuration,
 * then kill and restart it on the same folder and port, pause and resume it, fill its disk, and
 * dispose of it with nothing left behind (BrokerServer.ts). The readiness probes and the process
 * tree helpers stay inside: a caller needs a server, not its plumbing.
 */
export { BrokerServer, disposeAllNow } from './BrokerServer.ts';
export type { ServerState, StartOptions } from './BrokerServer.ts';
export { CONFIGURATIONS, configuration, configurationsOf } from './configurations.ts';
export type {
  BrokerName,
  Configuration,
  ConfigurationName,
  DurabilityPromise,
  ServerConfig,
} from './configurations.ts';
export { MACHINE_LIMITS, diskFullUnsupported } from './limits.ts';
export { quorumMemberRegistered } from './rabbitmq.ts';
export { ServerError } from './ServerError.ts';
export type { ServerErrorCode } from './ServerError.ts';
