/**
 * Random command sequences for the crash tests, chosen with the reference model so that they
 * reach what a crash can break: deliveries whose effect is committed and then acknowledged (the
 * worker's fault point sits between the two), redeliveries after a lease expired, effects that
 * share an operation key, retries. Deterministic for a seed. Pure apart from the generator state.
 */
import type { Command, Config } from '../../contract/index.ts';
import { initialState, step, toSnapshot } from '../../model/index.ts';
import type { ModelState } from '../../model/index.ts';

/** A small seeded generator (mulberry32). */
export class Rng {
  private state: number;
  constructor(seed: number) {
    this.state = seed >>> 0;
  }
  /** A float in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  /** An integer in [lo, hi]. */
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }
  /** One of the items. */
  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)] as T;
  }
}

/** The config of every crash run: short leases so that redeliveries happen, room for a few jobs. */
export const CRASH_CONFIG: Config = { capacity: 4, maxAttempts: 3, leaseTicks: 4, backoffBase: 1, backoffCap: 4 };

const WORKERS = ['w1', 'w2'] as const;

/** The model's states along a script: `states[i]` is the state after the first i commands. Pure. */
export function modelStates(config: Config, commands: readonly Command[]): ModelState[] {
  const states = [initialState(config)];
  for (const c of commands) states.push(step(states[states.length - 1] as ModelState, c).state);
  return states;
}

/** A random script of `length` commands, valid and mostly accepted, chosen along the model. */
export function crashScript(rng: Rng, length: number, config: Config = CRASH_CONFIG): Command[] {
  let state = initialState(config);
  let now = 0;
  let submitted = 0;
  const commands: Command[] = [];
  let pendingAck: { worker: string; token: number } | undefined;
  while (commands.length < length) {
    const snap = toSnapshot(state);
    const running = Object.values(snap.jobs).filter((j) => j.status === 'running');
    now += rng.pick([0, 0, 1, 1, 1, 2, 3, 5]);
    let command: Command;
    const roll = rng.next();
    if (pendingAck !== undefined && roll < 0.8) {
      command = { type: 'ack', ...pendingAck, now };
      pendingAck = undefined;
    } else if (roll < 0.25) {
      submitted += 1;
      const account = rng.pick(['x', 'y']);
      command = {
        type: 'submit',
        id: `j${submitted}`,
        account,
        key: `${account}:${rng.int(1, 4)}`,
        amount: rng.int(1, 9),
        deadline: now + rng.int(20, 80),
        now,
      };
    } else if (roll < 0.5 || running.length === 0) {
      command = { type: 'claim', worker: rng.pick(WORKERS), now };
    } else {
      const job = rng.pick(running);
      const delivery = { worker: job.owner as string, token: job.token as number };
      const what = rng.next();
      if (what < 0.6) {
        command = { type: 'commit', ...delivery, now };
        pendingAck = delivery;
      } else if (what < 0.8) {
        command = { type: 'ack', ...delivery, now };
      } else if (what < 0.9) {
        command = { type: 'fail', ...delivery, kind: 'transient', error: 'timeout', now };
      } else {
        command = { type: 'tick', now };
      }
    }
    state = step(state, command).state;
    commands.push(command);
  }
  return commands;
}
