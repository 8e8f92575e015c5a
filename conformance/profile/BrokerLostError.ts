/**
 * The broker behind an adapter is gone: refused, reset or closed connections, or its client's own
 * typed "connection lost" error. An adapter throws BrokerLostError for those (brokerLoss turns
 * what its client threw into one), never for an ordinary reply of the broker, so that the profile
 * engine can tell "the queue answered this" from "nothing answers any more": a broker that cannot
 * be reached at the start is a setup error, and one lost mid-run leaves the rules it touched
 * unknown (brokerWatch.ts). The message is one line naming the broker and its address; what the
 * client threw is kept as `cause`, never printed.
 */
import { CodedError } from '../../contract/CodedError.ts';

/** Where an adapter's broker is: its name as its users know it (`Redis`) and its address (`127.0.0.1:6379`). */
export interface BrokerAddress {
  readonly broker: string;
  readonly address: string;
}

/** The broker at `address` cannot be reached, or stopped answering: `detail` says how, in a few words. */
export class BrokerLostError extends CodedError<'broker_lost'> {
  override name = 'BrokerLostError' as const;
  readonly broker: string;
  readonly address: string;
  constructor(where: BrokerAddress, detail: string, options?: { cause?: unknown }) {
    super('broker_lost', `${where.broker} at ${where.address}: ${detail}`, options);
    this.broker = where.broker;
    this.address = where.address;
  }

  /** The same loss, found after `cause` (what the client threw before the probe that found it). */
  withCause(cause: unknown): BrokerLostError {
    return new BrokerLostError(this, this.message.slice(`${this.broker} at ${this.address}: `.length), { cause });
  }
}

/** The errno codes of a connection that failed or went away, in words. */
const TRANSPORT: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  ECONNABORTED: 'connection aborted',
  EPIPE: 'connection broken',
  ETIMEDOUT: 'connection timed out',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host not found',
};

/** The values a thrown value wraps: its cause chain and an AggregateError's errors (node's connect to `localhost`), at most 20. */
function* chain(error: unknown): Generator<unknown> {
  const queue = [error];
  for (let seen = 0; queue.length > 0 && seen < 20; seen++) {
    const e = queue.shift();
    yield e;
    if (typeof e !== 'object' || e === null) continue;
    const { cause, errors } = e as { cause?: unknown; errors?: unknown };
    if (cause !== undefined) queue.push(cause);
    if (Array.isArray(errors)) queue.push(...errors);
  }
}

/** The BrokerLostError a thrown value is or wraps (as a cause), if any. Pure. */
export function brokerLostIn(error: unknown): BrokerLostError | undefined {
  for (const e of chain(error)) if (e instanceof BrokerLostError) return e;
  return undefined;
}

/** A failed or lost connection in a thrown value's chain, in words (`connection refused (ECONNREFUSED)`), if there is one. Pure. */
export function transportFailure(error: unknown): string | undefined {
  for (const e of chain(error)) {
    if (typeof e !== 'object' || e === null) continue;
    const { code, syscall } = e as { code?: unknown; syscall?: unknown };
    if (typeof code !== 'string') continue;
    const words = TRANSPORT[code];
    if (words !== undefined) return `${words} (${code})`;
    // A unix socket that is not there: the server is not running.
    if (code === 'ENOENT' && syscall === 'connect') return 'no server listens there (ENOENT)';
  }
  return undefined;
}

/**
 * The BrokerLostError for what a client threw, or undefined when it is not a lost connection: one
 * already typed, a failed connection in its chain (transportFailure), or what `clientLoss` (the
 * client's own typed errors: a closed connection, a retry limit) recognises anywhere in the chain
 * and says in words. Pure.
 */
export function brokerLoss(
  error: unknown,
  where: BrokerAddress,
  clientLoss?: (error: unknown) => string | undefined,
): BrokerLostError | undefined {
  const typed = brokerLostIn(error);
  if (typed !== undefined) return typed;
  const detail = transportFailure(error) ?? clientLossIn(error, clientLoss);
  return detail === undefined ? undefined : new BrokerLostError(where, detail, { cause: error });
}

/** What `clientLoss` says of the first value of the chain it recognises. Pure. */
function clientLossIn(
  error: unknown,
  clientLoss: ((error: unknown) => string | undefined) | undefined,
): string | undefined {
  if (clientLoss === undefined) return undefined;
  for (const e of chain(error)) {
    const detail = clientLoss(e);
    if (detail !== undefined) return detail;
  }
  return undefined;
}
