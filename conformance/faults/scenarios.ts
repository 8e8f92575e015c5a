/**
 * The fixed scenarios of the fault campaign, one a fault, each with the rounds before which the
 * nemesis acts. Every queue is asked the same rounds, so that answers compare:
 * - kill: three submits, a claim committed and acknowledged, a fourth submit sent as the broker is
 *   SIGKILLed (its reply may be swallowed); restart on the same folder, the client reconnects,
 *   then two claims, each committed and acknowledged, and a last claim alone: after recovery
 *   nothing acknowledged is lost, and a job acknowledged before the kill is not handed out again;
 * - pause: a claim, then its commit and ack sent while the broker is SIGSTOPped for PAUSE_TICKS
 *   ticks (the lease is longer), then SIGCONT and the next job;
 * - partition-hold: lane 1's worker claims a; its lane is cut off (hold); a's lease runs out, the
 *   cut-off worker acknowledges a (the ack is held), lane 0's worker claims a again; on heal the
 *   held ack lands, after the rival's claim. The contract: it is stale, and refused.
 * Worker lanes: lane 1 is the one cut off, since lane 0 carries what an adapter shares (BullMQ's
 * stalled checker, the snapshot). Distinct operation keys per job, so a doubled effect shows.
 */
import type { Config } from '../../contract/index.ts';
import type { ConcurrentRequest, ConcurrentRound, ConcurrentScenario } from '../concurrent/index.ts';
import type { FaultName } from './types.ts';

/** Lease of the kill and pause scenarios: longer than a restart or a pause, so no lease decides them. */
export const LONG_LEASE_TICKS = 40;
/** Ticks the broker stays SIGSTOPped in the pause scenario. */
export const PAUSE_TICKS = 5;
/** The cut-off lane of the partition scenario. */
export const CUT_LANE = 1;

const config = (leaseTicks: number): Config => ({
  capacity: 8,
  maxAttempts: 3,
  leaseTicks,
  backoffBase: 1,
  backoffCap: 1,
});

const round = (now: ConcurrentRound['now'], requests: ConcurrentRequest[], overlap = false): ConcurrentRound => ({
  now,
  requests,
  shuffle: 0,
  ...(overlap ? { overlap: true } : {}),
});
const submit = (lane: number, id: string, account: string): ConcurrentRequest => ({
  lane,
  command: { kind: 'submit', id, account, key: `k-${id}`, amount: 1, deadlineIn: 100_000 },
});
const live = { pick: 0, ended: false } as const;
const settle = (lane: number, kind: 'commit' | 'ack'): ConcurrentRequest => ({
  lane,
  command: { kind, delivery: live, worker: 'holder' },
});
const claim = (lane: number, as = lane): ConcurrentRequest => ({ lane, command: { kind: 'claim', as } });

/** A fault's scenario and the rounds before which its nemesis starts and ends it. */
export interface FaultScenario {
  readonly fault: FaultName;
  readonly scenario: ConcurrentScenario;
  /** The round (0-based) before which the fault starts. */
  readonly startBefore: number;
  /** The round before which it ends (the scenario's length: before the final snapshot). */
  readonly endBefore: number;
}

/** The kill scenario (see the top of the file). Pure. */
export function killScenario(): FaultScenario {
  const rounds = [
    round({ at: 'same' }, [submit(0, 'a', 'x'), submit(0, 'b', 'x'), submit(0, 'c', 'y')]),
    round({ at: 'later', plus: 1 }, [claim(0)]),
    round({ at: 'same' }, [settle(0, 'commit'), settle(0, 'ack')]),
    round({ at: 'same' }, [submit(0, 'd', 'y')]),
    // The kill comes while d's submit may be in flight; the restart before this round's requests.
    round({ at: 'later', plus: 1 }, [claim(0), settle(0, 'commit'), settle(0, 'ack')], true),
    round({ at: 'same' }, [claim(0), settle(0, 'commit'), settle(0, 'ack')]),
    // A last claim, alone: it finds d, or a job whose acknowledgement the kill lost, or nothing.
    round({ at: 'same' }, [claim(0)]),
  ];
  return {
    fault: 'kill',
    scenario: { config: config(LONG_LEASE_TICKS), workers: 1, rounds },
    startBefore: 4,
    endBefore: 4,
  };
}

/** The pause scenario (see the top of the file). Pure. */
export function pauseScenario(): FaultScenario {
  const rounds = [
    round({ at: 'same' }, [submit(0, 'a', 'x'), submit(0, 'b', 'y')]),
    round({ at: 'later', plus: 1 }, [claim(0)]),
    round({ at: 'same' }, [settle(0, 'commit'), settle(0, 'ack')]),
    round({ at: 'later', plus: PAUSE_TICKS }, [claim(0)], true),
    round({ at: 'same' }, [settle(0, 'commit'), settle(0, 'ack')]),
  ];
  return {
    fault: 'pause',
    scenario: { config: config(LONG_LEASE_TICKS), workers: 1, rounds },
    startBefore: 2,
    endBefore: 3,
  };
}

/** The partition (hold) scenario: the stale holder (see the top of the file). Pure. */
export function partitionHoldScenario(leaseTicks = 2): FaultScenario {
  const first = { pick: 0, ended: false } as const;
  const rounds = [
    round({ at: 'same' }, [submit(0, 'a', 'x'), submit(0, 'b', 'y')]),
    round({ at: 'later', plus: 1 }, [claim(CUT_LANE)]),
    round({ at: 'leaseUntil', delivery: first, plus: 0 }, [{ lane: 0, command: { kind: 'tick' } }]),
    round({ at: 'later', plus: 1 }, [
      { lane: CUT_LANE, command: { kind: 'ack', delivery: { pick: 0, ended: true }, worker: 'holder' } },
    ]),
    round({ at: 'same' }, [claim(0)], true),
    // Healed before this round, once every request off the cut lane has settled.
    round({ at: 'same' }, [{ lane: CUT_LANE, command: { kind: 'tick' } }], true),
    round({ at: 'same' }, [settle(0, 'ack')]),
  ];
  return {
    fault: 'partition-hold',
    scenario: { config: config(leaseTicks), workers: 2, rounds },
    startBefore: 2,
    endBefore: 5,
  };
}

/** The scenario of a fault. Pure. */
export function faultScenario(fault: FaultName): FaultScenario {
  switch (fault) {
    case 'kill':
      return killScenario();
    case 'pause':
      return pauseScenario();
    case 'partition-hold':
      return partitionHoldScenario();
  }
}
