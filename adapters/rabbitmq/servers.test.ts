/**
 * Which server a lease runs on (servers.ts), how JOBCHECK_AMQP_SERVERS is read, and what a page
 * states of it. Pure: no server needed.
 */
import { describe, expect, it } from 'vitest';
import { consumerTimeoutsOf, serversOf } from './adapter.ts';
import { describeServers, parseServers, serverFor } from './servers.ts';

const servers = [800, 200, 400].map((consumerTimeoutMs) => ({
  consumerTimeoutMs,
  url: `amqp://h:${consumerTimeoutMs}`,
}));
const picked = (leaseTicks: number): number => serverFor(leaseTicks, servers).consumerTimeoutMs;

describe('serverFor', () => {
  it('runs each lease on the shortest consumer_timeout that still gives a tick of 200 ms, else on the longest', () => {
    expect([1, 2, 3, 4, 5, 6, 7, 30].map(picked)).toEqual([200, 400, 800, 800, 800, 800, 800, 800]);
  });

  it('never gives a lease a shorter tick than the longest server alone would', () => {
    for (let lease = 1; lease <= 30; lease++)
      expect(picked(lease) / lease).toBeGreaterThanOrEqual(Math.min(200, 800 / lease));
  });

  it('runs every lease on the one server there is', () => {
    expect([1, 4, 9].map((l) => serverFor(l, [{ consumerTimeoutMs: 800 }]).consumerTimeoutMs)).toEqual([800, 800, 800]);
  });
});

describe('JOBCHECK_AMQP_SERVERS', () => {
  it('reads `ms=url` entries, and nothing from an unset or empty variable', () => {
    expect(parseServers('800=amqp://g:g@127.0.0.1:5,200=amqp://g:g@127.0.0.1:6')).toEqual([
      { consumerTimeoutMs: 800, url: 'amqp://g:g@127.0.0.1:5' },
      { consumerTimeoutMs: 200, url: 'amqp://g:g@127.0.0.1:6' },
    ]);
    expect(parseServers(undefined)).toBeUndefined();
    expect(parseServers('')).toBeUndefined();
  });

  it('refuses an entry of another form with unsupported_config, naming it', () => {
    for (const bad of ['800', '0=amqp://h', '-5=amqp://h', '800=http://h', '800=amqp://h,,200=amqp://k'])
      expect(() => parseServers(bad), bad).toThrow(expect.objectContaining({ code: 'unsupported_config' }));
    expect(() => parseServers('8x0=amqp://h')).toThrow('"8x0=amqp://h"');
  });

  it('is what a factory runs on unless the options name a server', () => {
    const env = { JOBCHECK_AMQP_SERVERS: '200=amqp://a,800=amqp://b', JOBCHECK_AMQP_URL: 'amqp://b' };
    expect(serversOf({}, env).map((s) => s.url)).toEqual(['amqp://a', 'amqp://b']);
    expect(serversOf({ url: 'amqp://c', consumerTimeoutMs: 500 }, env)).toEqual([
      { url: 'amqp://c', consumerTimeoutMs: 500 },
    ]);
    expect(serversOf({}, { JOBCHECK_AMQP_URL: 'amqp://b' })).toEqual([{ url: 'amqp://b', consumerTimeoutMs: 800 }]);
    expect(consumerTimeoutsOf({}, env)).toEqual([200, 800]);
    expect(consumerTimeoutsOf({}, {})).toEqual([800]);
  });
});

describe('describeServers', () => {
  it('states each consumer_timeout with the leases it ran, and the tick each lease got', () => {
    expect(describeServers([200, 400, 800])).toBe(
      'consumer_timeout 200 ms for leaseTicks 1, 400 ms for leaseTicks 2, 800 ms for leaseTicks 3 and more (a server each), so 1 tick = consumer_timeout / leaseTicks (200, 200, 267, 200, 160, 133 ms at leaseTicks 1 to 6); channel_tick_interval 100 ms',
    );
    expect(describeServers([800])).toBe(
      'consumer_timeout 800 ms for every lease, so 1 tick = consumer_timeout / leaseTicks (800, 400, 267, 200, 160, 133 ms at leaseTicks 1 to 6); channel_tick_interval 100 ms',
    );
  });
});
