/**
 * The delivery check (contract section 7, "The delivery check"): commit, ack and fail name a
 * token; it must be the current delivery of a running job (else `stale_token`), held by the
 * worker that names it (else `not_owner`).
 */
import type { Rejection } from '../../contract/index.ts';
import { notOwner, staleToken } from './rejections.ts';

/** What a command that names a token sends. */
export interface TokenHolderClaim {
  readonly token: number;
  readonly worker: string;
}

/** The running job that holds a token, as the check reads it. */
export interface TokenHolder {
  readonly owner: string | null | undefined;
}

/** The rejection for a command whose token `holder` (undefined: no running job holds it) does not back, or undefined. Pure. */
export function deliveryCheck(c: TokenHolderClaim, holder: TokenHolder | undefined): Rejection | undefined {
  if (holder === undefined) return staleToken(c.token);
  if (holder.owner !== c.worker) return notOwner(c.token, holder.owner, c.worker);
  return undefined;
}
