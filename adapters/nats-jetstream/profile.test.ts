/** JetStream's profile target and the adapter's pure translations: versions, declarations, the stream settings, the ack subject. Needs no server. */
import { describe, expect, it } from 'vitest';
import { RULE_IDS } from '../../contract/rules.ts';
import { NatsAdapterError } from './NatsAdapterError.ts';
import { accountToken, brokerNanos, parseAckSubject, profileTarget, streamSettings } from './index.ts';

describe('the NATS JetStream profile target', () => {
  it('names the server it was written against and the installed 3.x client, on a wall clock of 100 ms a tick', () => {
    expect(profileTarget.version).toMatch(/^nats-server 2\.9\.10, @nats-io\/jetstream 3\.\d+\.\d+$/);
    expect(profileTarget.clock).toEqual({
      kind: 'wall',
      tickMs: 100,
      settings: "ack_wait (leaseTicks − ½) ticks from the pull, a nak's delay (ticks − ½) ticks from the nak",
    });
  });

  it('declares, links and gives tolerances only for rules of the contract, each declaration with its reason', () => {
    for (const [rule, declaration] of Object.entries(profileTarget.declarations)) {
      expect(RULE_IDS).toContain(rule);
      expect(declaration?.why.length).toBeGreaterThan(20);
    }
    for (const [rule, report] of Object.entries(profileTarget.upstream ?? {})) {
      expect(RULE_IDS).toContain(rule);
      expect(report?.url).toMatch(/^https:\/\/github\.com\/nats-io\/nats-server\/(issues|pull)\/\d+$/);
    }
    for (const [rule, sentence] of Object.entries(profileTarget.tolerances ?? {})) {
      expect(RULE_IDS).toContain(rule);
      expect(sentence?.length).toBeGreaterThan(10);
    }
  });

  it('maps the config to a work-queue stream with max_msgs and discard new, and a consumer whose ack wait ends half a tick early', () => {
    const s = streamSettings({ capacity: 2, maxAttempts: 3, leaseTicks: 5, backoffBase: 2, backoffCap: 8 }, 100);
    expect(s.stream).toMatchObject({ retention: 'workqueue', max_msgs: 2, discard: 'new' });
    expect(s.consumer).toMatchObject({ ack_policy: 'explicit', ack_wait: 450_000_000, max_deliver: 3 });
    expect(s.consumer).not.toHaveProperty('backoff');
    expect(brokerNanos(1, 100)).toBe(50_000_000);
    expect(() =>
      streamSettings({ capacity: 2 ** 31, maxAttempts: 3, leaseTicks: 5, backoffBase: 2, backoffCap: 8 }, 100),
    ).toThrow(NatsAdapterError);
  });

  it('reads the delivery count and stream sequence from both forms of an ack subject, and nothing from another subject', () => {
    expect(parseAckSubject('$JS.ACK.S.workers.2.7.9.1796190963140835400.0')).toEqual({ count: 2, seq: 7 });
    expect(parseAckSubject('$JS.ACK.hub.ACCHASH.S.workers.3.8.9.1796190963140835400.0.r')).toEqual({
      count: 3,
      seq: 8,
    });
    expect(parseAckSubject('_INBOX.abc')).toBeUndefined();
  });

  it('puts each account on a subject token of its own, whatever its characters', () => {
    expect(accountToken('a.b *>')).toMatch(/^a[0-9a-f]+$/);
    expect(accountToken('')).toBe('a');
  });
});
