/** Hostile cases of signals sent through npx and a parent that goes away. */
import type { HostileCase } from '../case.ts';

export const SIGNAL_CASES: readonly HostileCase[] = [];
