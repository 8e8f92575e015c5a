/** Hostile cases of the concurrent phase (jobcheck/2 peers: slow, silent snapshot, lying after a delay). */
import type { HostileCase } from '../case.ts';

export const CONCURRENT_CASES: readonly HostileCase[] = [];
