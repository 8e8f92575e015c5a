/**
 * The implementation's processes run under SCHED_BATCH on Linux (scheduling.ts), the program and
 * what it forks, and under the normal policy when asked; the policy is read from the process's own
 * /proc entry (field 41 of /proc/<pid>/stat: 0 normal, 3 batch).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { Peer } from './peer.ts';
import { batchSchedulingAvailable } from './scheduling.ts';

const linux = process.platform === 'linux';
// On a request, a process forked by the shell answers with its own scheduling policy.
const POLICY_OF_A_CHILD = `read line; awk '{print $41}' /proc/self/stat`;

describe.runIf(linux)('the scheduling of an implementation process', () => {
  const peers: Peer[] = [];
  afterAll(() => Promise.all(peers.map((p) => p.end())));

  it('finds batch scheduling available on Linux (util-linux chrt)', () => {
    expect(batchSchedulingAvailable()).toBe(true);
  });

  it('runs the program and what it forks under SCHED_BATCH by default', async () => {
    const peer = new Peer(POLICY_OF_A_CHILD);
    peers.push(peer);
    expect(await peer.request('policy?', 5000)).toBe('3');
    expect(await peer.end()).toBe('exited');
  });

  it('runs them under the normal policy when asked', async () => {
    const peer = new Peer(POLICY_OF_A_CHILD, { scheduling: 'normal' });
    peers.push(peer);
    expect(await peer.request('policy?', 5000)).toBe('0');
    expect(await peer.end()).toBe('exited');
  });

  it('still tells the shell’s complaint about a command that does not start', async () => {
    const peer = new Peer('no-such-program-of-jobcheck');
    peers.push(peer);
    const error = await peer.request('hello', 5000).then(
      () => undefined,
      (e: { message?: string }) => e.message ?? '',
    );
    expect(error).toMatch(/no-such-program-of-jobcheck/);
  });
});
