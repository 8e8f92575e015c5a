/**
 * The crash campaign: SQLite store files, worker processes killed by SIGKILL at named fault
 * points, and the checks a new process makes of the file it finds (crashRun.ts).
 */
export type { CampaignRun, ContentionResult, CrashCampaignOptions, CrashCampaignResult } from './crashCampaign.ts';
export { crashStory, faultHits, runContention, runCrashCampaign } from './crashCampaign.ts';
export type { CrashProperty, CrashRunOptions, CrashRunResult, Fault, PropertyFailure, StartGate, WorkerOutcome } from './crashRun.ts';
export { CRASH_PROPERTIES, crashRun, integrityProblem, ledgerProblems, lostAcknowledgements, runWorker } from './crashRun.ts';
export { CRASH_CONFIG, Rng, crashScript, modelStates } from './script.ts';
export type { WorkerRequest } from './worker.ts';
// Not exported: worker.ts runs as a process of its own, and realKill.ts is a script (chapter 7).
