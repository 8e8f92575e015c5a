/** Hostile cases of edited reproduce lines, shards that match nothing, huge indexes and flags. */
import type { HostileCase } from '../case.ts';

export const REPRODUCE_CASES: readonly HostileCase[] = [];
