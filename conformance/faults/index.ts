/**
 * The queue under faults: the fault campaign (kill and restart, pause, one worker cut off by its
 * proxy), its fixed scenarios, the durability figures of a run, and what a campaign is given.
 */
export type { FaultCampaignOptions } from './campaign.ts';
export { runFault, runFaultCampaign } from './campaign.ts';
export { figuresOf } from './durability.ts';
export type { FaultScenario } from './scenarios.ts';
export {
  CUT_LANE,
  LONG_LEASE_TICKS,
  PAUSE_TICKS,
  faultScenario,
  killScenario,
  partitionHoldScenario,
  pauseScenario,
} from './scenarios.ts';
export type { BrokerControl, FaultName, FaultSubject } from './types.ts';
