/**
 * An adapter's factories with its client's failures typed: every error of a store's creation and
 * of each of its calls that is a lost connection (brokerLoss: a refused or reset socket, or the
 * client's own closed-connection error that `clientLoss` names) is thrown as a BrokerLostError
 * naming the broker and its address, and so is any error of the client itself (not one of the
 * project's typed errors) after which a connection to that address is refused (a client may tell
 * a dead socket in words of its own). Anything else passes
 * unchanged: an ordinary reply of the broker is the adapter's to translate. Each real queue's
 * module wraps its factories here, so that six clients' ways of failing reach the engine as one.
 */
import { connect } from 'node:net';
import { isCodedError } from '../../contract/CodedError.ts';
import type { AdapterFactory } from '../adapter.ts';
import type { ConcurrentFactory } from '../concurrent/adapter.ts';
import { brokerLoss } from './BrokerLostError.ts';
import type { BrokerAddress } from './BrokerLostError.ts';
import { isThenable, wrapCalls } from './wrapCalls.ts';

/** Where the broker is (read when a failure is typed, so an address from the environment is the one used), and the client's own loss errors. */
export interface LossSource {
  readonly where: () => BrokerAddress;
  readonly clientLoss?: (error: unknown) => string | undefined;
}

/** Longest wait for the probe of a broker's address. */
export const PROBE_MS = 1_000;

/** Where a connection to `address` goes: a unix socket (a path), or a host and port (`host:port`, or a URL with both). Pure. */
export function probeTarget(address: string): { path: string } | { host: string; port: number } | undefined {
  if (address.startsWith('/')) return { path: address };
  const m = /^(?:[a-z]+:\/\/(?:[^@/]*@)?)?([A-Za-z0-9.-]+):(\d{1,5})(?:[/?].*)?$/.exec(address);
  return m === null ? undefined : { host: m[1] as string, port: Number(m[2]) };
}

/** Whether nothing answers at `address`: the connection error, or undefined when a connection opens (or the address is not one). */
function probe(address: string): Promise<unknown> {
  const target = probeTarget(address);
  if (target === undefined) return Promise.resolve(undefined);
  return new Promise((resolve) => {
    const socket = connect({ ...target, timeout: PROBE_MS });
    const done = (error: unknown): void => {
      socket.destroy();
      resolve(error);
    };
    socket.once('connect', () => done(undefined));
    socket.once('timeout', () => done(undefined));
    socket.once('error', done);
  });
}

/**
 * What `error` becomes: its BrokerLostError when it is a lost connection; else, when a connection
 * to the broker's address is refused right after (a client that failed in words of its own), one
 * naming that; else itself.
 */
async function typed(error: unknown, source: LossSource): Promise<unknown> {
  const where = source.where();
  const lost = brokerLoss(error, where, source.clientLoss);
  if (lost !== undefined) return lost;
  // The project's own typed errors (a config refused, a bad address) say what they are already.
  if (isCodedError(error)) return error;
  const refused = await probe(where.address);
  return (refused !== undefined && brokerLoss(refused, where)?.withCause(error)) || error;
}

/** Sends every call of `adapter` through the typing. */
const typedCalls = <T extends object>(adapter: T, source: LossSource): T =>
  wrapCalls(adapter, (_method, invoke) => {
    const result = invoke();
    return isThenable(result)
      ? result.catch(async (error: unknown) => {
          throw await typed(error, source);
        })
      : result;
  });

/** `factory`, with a lost connection at creation or in any call thrown as a BrokerLostError. */
export function lossAwareFactory(factory: AdapterFactory, source: LossSource): AdapterFactory {
  return (config) =>
    factory(config).then(
      (adapter) => typedCalls(adapter, source),
      async (error: unknown) => {
        throw await typed(error, source);
      },
    );
}

/** lossAwareFactory for competing workers. */
export function lossAwareConcurrentFactory(factory: ConcurrentFactory, source: LossSource): ConcurrentFactory {
  return (config, options) =>
    factory(config, options).then(
      (adapter) => typedCalls(adapter, source),
      async (error: unknown) => {
        throw await typed(error, source);
      },
    );
}
