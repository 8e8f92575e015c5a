/**
 * Admission (contract section 7, submit): a repeat of an admitted id is a duplicate or a
 * conflict, then capacity counts every unresolved job, then the admission number must stay in
 * range. Which facts a store has at hand differs (the memory store counts running jobs for free,
 * a durable store would need a query), so a decision may ask for one more fact instead of
 * deciding: the correct admission never asks, a broken one may (conformance/broken/).
 */
import type { Config, Rejection, SubmitCommand } from '../../contract/index.ts';
import type { AdmittedPayload } from './rejections.ts';
import { capacityFull, payloadConflict, seqExhausted } from './rejections.ts';

/** The job a submit's id already names, as admission reads it. */
export interface AdmittedJob extends AdmittedPayload {
  readonly seq: number;
}

/** The store's load when a submit arrives; `running` is given only once an admission asked for it. */
export interface Load {
  readonly unresolved: number;
  readonly nextSeq: number;
  readonly running?: number;
}

/** What a submit does: admit a new job (under `nextSeq`), answer as a duplicate, refuse, or ask for a fact. */
export type Admission =
  | { readonly type: 'admit' }
  | { readonly type: 'duplicate'; readonly seq: number }
  | { readonly type: 'refused'; readonly rejection: Rejection }
  | { readonly type: 'ask'; readonly fact: 'running' };

const ADMIT: Admission = Object.freeze({ type: 'admit' });

/** The contract's admission of `c`, given the job its id names (if any) and the store's load. Pure. */
export function admission(cfg: Config, c: SubmitCommand, existing: AdmittedJob | undefined, load: Load): Admission {
  if (existing !== undefined) {
    if (
      existing.account === c.account &&
      existing.key === c.key &&
      existing.amount === c.amount &&
      existing.deadline === c.deadline
    ) {
      return { type: 'duplicate', seq: existing.seq };
    }
    return { type: 'refused', rejection: payloadConflict(c.id, existing) };
  }
  if (load.unresolved >= cfg.capacity)
    return { type: 'refused', rejection: capacityFull(cfg.capacity, load.unresolved) };
  if (load.nextSeq >= Number.MAX_SAFE_INTEGER) return { type: 'refused', rejection: seqExhausted(load.nextSeq) };
  return ADMIT;
}
