/** Hostile cases of in-process modules (--module) that exit, loop, throw or pollute. */
import type { HostileCase } from '../case.ts';

export const MODULE_CASES: readonly HostileCase[] = [];
