/** Hostile cases of input files that are not regular files, or are over their limits. */
import type { HostileCase } from '../case.ts';

export const FILE_CASES: readonly HostileCase[] = [];
