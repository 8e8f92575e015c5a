/**
 * Requests written ahead (docs/protocol.md, section 4): the lockstep runner and the exploration's
 * lanes tell their adapter, before they make them, the calls they are about to make
 * (Adapter.plan), and a process adapter writes those requests at once. What it writes has
 * already reached the store when the calls come, so a plan that says anything but what follows
 * would check a store that took other requests. Held here with an in-process store that keeps
 * each plan and refuses, as a process adapter refuses, a call other than the next one planned,
 * through whole checks: the path suite, the campaign and the exploration over lanes (the
 * fixture stories, a few commands each, are not written ahead). Plans must also cover the calls,
 * or the property would hold for a caller that never plans.
 */
import { describe, expect, it } from 'vitest';
import type { Config, Reply, Snapshot } from '../contract/index.ts';
import { JobStore } from '../impl/index.ts';
import type { Adapter, AdapterFactory, PlannedRequest } from './adapter.ts';
import { runCheck } from './check/index.ts';
import { JobStoreAdapter, jobStoreFactory } from './stores/jobStore.ts';

/** What the stores of one factory were asked, against what they were told ahead. */
interface PlanLog {
  /** Calls that were not the next one planned, or restarts with a plan still pending. */
  readonly offPlan: string[];
  /** Calls of each kind, and how many of them a plan had announced. */
  readonly calls: Record<'execute' | 'snapshot' | 'restore', { all: number; planned: number }>;
  plans: number;
}

const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

/** Resettable in-process stores (as a process adapter is) that keep each plan and check every call against it. */
function planCheckingFactory(log: PlanLog): AdapterFactory {
  return (config: Config) => {
    const inner = new JobStoreAdapter(JobStore.create(config), JobStore, 'plan-checking');
    const empty = JobStore.create(config).snapshot();
    let ahead: PlannedRequest[] = [];
    const take = (kind: 'execute' | 'snapshot' | 'restore', value?: unknown): void => {
      log.calls[kind].all += 1;
      const next = ahead.shift();
      if (next === undefined) return;
      const matches =
        kind === 'execute'
          ? 'execute' in next && same(next.execute, value)
          : kind === 'restore'
            ? 'restore' in next && same(next.restore, value)
            : 'snapshot' in next;
      if (matches) log.calls[kind].planned += 1;
      else {
        log.offPlan.push(`${kind} ${JSON.stringify(value) ?? ''} while the plan said ${JSON.stringify(next)}`);
        ahead = [];
      }
    };
    const adapter: Adapter & {
      resetTo(s: Snapshot | undefined): Promise<void>;
      restart(taken?: Snapshot): Promise<void>;
      restartCarriesTaken: boolean;
    } = {
      name: inner.name,
      restartCarriesTaken: true,
      plan: (requests) => {
        if (requests.length < 2 || ahead.length > 0) return;
        log.plans += 1;
        ahead = [...requests];
      },
      execute: (command: unknown): Promise<Reply> => {
        take('execute', command);
        return inner.execute(command);
      },
      snapshot: (): Promise<Snapshot> => {
        take('snapshot');
        return inner.snapshot();
      },
      restart: async (taken?: Snapshot): Promise<void> => {
        if (ahead.length > 0) log.offPlan.push(`restart while the plan said ${JSON.stringify(ahead[0])}`);
        ahead = [];
        await inner.restoreFrom(taken ?? (await inner.snapshot()));
      },
      resetTo: (s: Snapshot | undefined): Promise<void> => {
        if (s === undefined) ahead = [];
        else take('restore', s);
        return inner.restoreFrom(s ?? empty);
      },
      close: (): Promise<void> => {
        ahead = [];
        return inner.close();
      },
    };
    return Promise.resolve(adapter);
  };
}

const newLog = (): PlanLog => ({
  offPlan: [],
  calls: { execute: { all: 0, planned: 0 }, snapshot: { all: 0, planned: 0 }, restore: { all: 0, planned: 0 } },
  plans: 0,
});

describe('plans of requests written ahead', () => {
  it.each([1, 2, 3])(
    'say exactly the calls that follow, through a whole check (seed %i), and announce nearly all of them',
    async (seed) => {
      const log = newLog();
      const report = await runCheck(
        { factory: jobStoreFactory(), warmFactory: planCheckingFactory(log), parallel: 2 },
        { runs: 60, seed },
      );
      expect(report.verdict).toBe('agree');
      expect(report.exploration?.states).toBeGreaterThan(1000);
      expect(log.offPlan).toEqual([]);
      expect(log.plans).toBeGreaterThan(1000);
      // Every command but those after a reset to the empty store (a hello, never written ahead),
      // in a state-changing step of an initial state.
      expect(log.calls.execute.planned / log.calls.execute.all).toBeGreaterThan(0.99);
      // Snapshots: all but the aliasing check's at the end of each run, and those after a hello.
      expect(log.calls.snapshot.planned / log.calls.snapshot.all).toBeGreaterThan(0.9);
      expect(log.calls.restore.planned).toBe(log.calls.restore.all);
    },
  );
});
