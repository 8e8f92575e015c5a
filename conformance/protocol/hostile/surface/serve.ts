/** Hostile cases of jobcheck serve with stores it cannot open, and resume of a store with bad rows. */
import type { HostileCase } from '../case.ts';

export const SERVE_CASES: readonly HostileCase[] = [];
