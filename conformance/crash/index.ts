/**
 * The crash campaign: worker processes killed by SIGKILL at named fault points, and the checks a
 * new process makes of the store it finds (crashRun.ts), one loop for every durable store
 * (crashCampaign.ts) over a target per database: SQLite files (sqliteCrash.ts) and PostgreSQL
 * schemas (pgCrashCampaign.ts).
 */
export type { CampaignRun, CrashCampaignOptions, CrashCampaignResult } from './crashCampaign.ts';
export { contentionStory, crashStory, faultHits, runCrashCampaign } from './crashCampaign.ts';
export type {
  ContentionResult,
  CrashProperty,
  CrashRunOptions,
  CrashRunResult,
  CrashStore,
  CrashTarget,
  Fault,
  PropertyFailure,
  StartGate,
  WorkerOutcome,
} from './crashRun.ts';
export {
  CRASH_PROPERTIES,
  contentionEndProblems,
  crashRun,
  lostAcknowledgements,
  runWorker,
  workerArgs,
} from './crashRun.ts';
export type { PostgresCrashOptions } from './pgCrashCampaign.ts';
export { postgresCrashTarget, runPostgresContention, runPostgresCrashCampaign } from './pgCrashCampaign.ts';
export { CRASH_CONFIG, Rng, crashScript, modelStates } from './script.ts';
export { integrityProblem, ledgerProblems, runContention, sqliteCrashTarget } from './sqliteCrash.ts';
export type { WorkerRequest } from './worker.ts';
export type { PostgresWorkerRequest } from './pgWorker.ts';
// Not exported: worker.ts and pgWorker.ts run as processes of their own, and realKill.ts is a script (chapter 7).
