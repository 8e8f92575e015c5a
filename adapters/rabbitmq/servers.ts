/**
 * Which RabbitMQ server a config runs on. In 3.10 the lease is the server's `consumer_timeout`, one
 * value per server, and one tick is `consumer_timeout / leaseTicks`: a single server of 800 ms runs
 * a one-tick lease at 800 ms a tick. Given several servers (JOBCHECK_AMQP_SERVERS, which
 * scripts/brokers.sh sets for JOBCHECK_AMQP_CONSUMER_TIMEOUTS), a config goes to the one with the
 * shortest consumer_timeout whose tick is still at least PICKED_TICK_MS, else to the longest: so no
 * config runs at a shorter tick than on the longest server alone, and only shorter leases run faster.
 * Every server is expected to check its deliveries every CHANNEL_TICK_INTERVAL_MS (README.md).
 */
import { z } from 'zod';
import { RabbitmqAdapterError } from './RabbitmqAdapterError.ts';

/** One server and the consumer_timeout it runs with. */
export interface AmqpServer {
  readonly url: string;
  readonly consumerTimeoutMs: number;
}

/** The shortest tick a server is picked for: the profile's nominal tick (800 ms over a lease of 4). */
export const PICKED_TICK_MS = 200;

/** The `channel_tick_interval` every server is expected to run with, in ms (scripts/brokers.sh). */
export const CHANNEL_TICK_INTERVAL_MS = 100;

/** The leases the settings text spells out one by one (the profile's configs go up to 6). */
const LEASES_TOLD = 6;

const serverEntry = z.string().regex(/^[1-9]\d*=amqps?:\/\/\S+$/);

/**
 * The servers of JOBCHECK_AMQP_SERVERS (`<consumer_timeout ms>=<url>`, comma-separated), or
 * undefined when it is unset or empty. Throws RabbitmqAdapterError `unsupported_config` naming an
 * entry of another form. Pure.
 */
export function parseServers(text: string | undefined): AmqpServer[] | undefined {
  if (text === undefined || text.trim() === '') return undefined;
  return text.split(',').map((entry) => {
    if (!serverEntry.safeParse(entry).success)
      throw new RabbitmqAdapterError(
        'unsupported_config',
        `JOBCHECK_AMQP_SERVERS: ${JSON.stringify(entry)} is not <consumer_timeout ms>=<amqp url>`,
      );
    const at = entry.indexOf('=');
    return { consumerTimeoutMs: Number(entry.slice(0, at)), url: entry.slice(at + 1) };
  });
}

/**
 * The server a config with a lease of `leaseTicks` runs on: the shortest consumer_timeout whose
 * tick is at least PICKED_TICK_MS, else the longest. Pure.
 */
export function serverFor<S extends Pick<AmqpServer, 'consumerTimeoutMs'>>(
  leaseTicks: number,
  servers: readonly S[],
): S {
  const sorted = [...servers].sort((a, b) => a.consumerTimeoutMs - b.consumerTimeoutMs);
  const longest = sorted.at(-1);
  if (longest === undefined) throw new RangeError('serverFor: no server');
  return sorted.find((s) => s.consumerTimeoutMs / leaseTicks >= PICKED_TICK_MS) ?? longest;
}

const ms = (n: number): string => `${Math.round(n)}`;
const leases = (ls: readonly number[], last: boolean): string => {
  const first = ls[0] as number;
  if (last) return first === 1 ? 'every lease' : `leaseTicks ${first} and more`;
  if (ls.length === 1) return `leaseTicks ${first}`;
  return `leaseTicks ${first} ${ls.length === 2 ? 'and' : 'to'} ${ls.at(-1) as number}`;
};

/**
 * The servers' timer settings in one line, as a profile page states them: which consumer_timeout
 * each lease ran with, the tick that gives, and the channel tick. Pure.
 */
export function describeServers(timeouts: readonly number[]): string {
  const servers = timeouts.map((consumerTimeoutMs) => ({ consumerTimeoutMs }));
  const byLease = Array.from({ length: LEASES_TOLD }, (_, i) => ({ lease: i + 1, server: serverFor(i + 1, servers) }));
  const groups: { ct: number; leases: number[] }[] = [];
  for (const { lease, server } of byLease) {
    const last = groups.at(-1);
    if (last?.ct === server.consumerTimeoutMs) last.leases.push(lease);
    else groups.push({ ct: server.consumerTimeoutMs, leases: [lease] });
  }
  const used = groups.map((g, i) => `${ms(g.ct)} ms for ${leases(g.leases, i === groups.length - 1)}`).join(', ');
  const ticks = byLease.map(({ lease, server }) => ms(server.consumerTimeoutMs / lease)).join(', ');
  const each = groups.length > 1 ? ' (a server each)' : '';
  return `consumer_timeout ${used}${each}, so 1 tick = consumer_timeout / leaseTicks (${ticks} ms at leaseTicks 1 to ${LEASES_TOLD}); channel_tick_interval ${CHANNEL_TICK_INTERVAL_MS} ms`;
}
