import { describe, expect, it } from 'vitest';
import { DECISIONS, JobStore, withDecisions } from '../../impl/index.ts';
import { AckChecksThenSettles } from '../broken/index.ts';
import { GlobalFifo } from '../broken/index.ts';
import { asyncJobStoreFactory, lockedJobStoreFactory } from '../concurrent/inProcess.ts';
import { jobStoreFactory } from '../stores/jobStore.ts';
import { runConcurrentProfile, runRaceSearch } from './concurrentProfile.ts';
import { concurrentRestrictionOf } from './concurrentRestriction.ts';
import { profileSchema, withConcurrent } from './result.ts';
import { emptyProfile } from './emptyProfile.ts';
import { renderProfileMarkdown, renderProfileText } from './render.ts';
import { ProfileError } from './runProfile.ts';
import type { ProfileTarget } from './target.ts';

/** A store that admits whatever comes, full or not (as a broker with no bound would). */
const IgnoresCapacity = withDecisions(JobStore, {
  ...DECISIONS,
  admission: (cfg, c, existing, load) => DECISIONS.admission(cfg, c, existing, { ...load, unresolved: 0 }),
});

const target = (t: Partial<ProfileTarget> & Pick<ProfileTarget, 'queue'>): ProfileTarget => ({
  version: 'test',
  factory: jobStoreFactory(),
  declarations: {},
  ...t,
});

/** The flags of a replay line: `--workers 4 --seed 2 --concurrent-path 3:1` as numbers and a path. */
function replayFlags(line: string): { workers: number; seed: number; path: string } {
  const flag = (name: string): string => {
    const m = new RegExp(`--${name} (\\S+)`).exec(line);
    if (m?.[1] === undefined) throw new Error(`no --${name} in ${line}`);
    return m[1];
  };
  return { workers: Number(flag('workers')), seed: Number(flag('seed')), path: flag('concurrent-path') };
}

describe('runConcurrentProfile', () => {
  it('finds the atomic AsyncJobStore linearizable against the model', async () => {
    const c = await runConcurrentProfile(target({ queue: 'atomic', concurrentFactory: asyncJobStoreFactory() }), {
      workers: 3,
      runs: 40,
      seed: 1,
    });
    expect(c.verdict).toBe('linearizable');
    expect(c.runsDone).toBe(40);
    expect(c.story).toBeUndefined();
  });

  it('checks a store without account order against the declared no-account-order variant: linearizable with the declaration, not without', async () => {
    const fifo = lockedJobStoreFactory(GlobalFifo, 'global-fifo');
    const declared = await runConcurrentProfile(
      target({
        queue: 'fifo',
        concurrentFactory: fifo,
        declarations: { 'account-head-only': { kind: 'variant', variant: 'no-account-order', why: 'one queue' } },
      }),
      { workers: 3, runs: 60, seed: 1 },
    );
    expect(declared.verdict).toBe('linearizable');
    const plain = await runConcurrentProfile(target({ queue: 'fifo', concurrentFactory: fifo }), {
      workers: 3,
      runs: 60,
      seed: 1,
    });
    expect(plain.verdict).toBe('not_linearizable');
  });

  it("tells the stale ack of the catalogue's AckChecksThenSettles as a lanes story whose reproduce line fails again", async () => {
    const t = target({
      queue: 'ack-checks-then-settles',
      concurrentFactory: asyncJobStoreFactory(AckChecksThenSettles),
    });
    const line = (path: string): string =>
      `npx jobcheck profile --module x.ts --workers 4 --seed 2 --concurrent-path ${path}`;
    const c = await runConcurrentProfile(t, { workers: 4, runs: 150, seed: 2, replayCommand: line });
    expect(c.verdict).toBe('not_linearizable');
    expect(c.story).toContain('| lane 1');
    expect(c.story).toMatch(/ack token=\d+ by w\d/);
    expect(c.replay).toBe(line(c.path ?? ''));
    expect(c.story).toContain(`reproduce: ${c.replay}`);
    const again = await runConcurrentProfile(t, { ...replayFlags(c.replay ?? ''), replayCommand: line });
    expect(again.verdict).toBe('not_linearizable');
    expect(again.runsDone).toBe(1);
    expect(again.path).toBe(c.path);
  });

  it('passes a store that ignores capacity only because its declaration keeps the scenarios clear of a full queue', async () => {
    const factory = lockedJobStoreFactory(IgnoresCapacity, 'ignores-capacity');
    const declared = await runConcurrentProfile(
      target({
        queue: 'unbounded',
        concurrentFactory: factory,
        declarations: { 'capacity-counts-running': { kind: 'unsupported', why: 'no bound' } },
      }),
      { workers: 3, runs: 60, seed: 1 },
    );
    expect(declared.verdict).toBe('linearizable');
    expect(declared.avoided.map((a) => a.rule)).toEqual(['capacity-counts-running']);
    expect(declared.avoided[0]?.why).toMatch(/capacity is at least 7/);
    const undeclared = await runConcurrentProfile(target({ queue: 'unbounded', concurrentFactory: factory }), {
      workers: 3,
      runs: 60,
      seed: 1,
    });
    expect(undeclared.verdict).toBe('not_linearizable');
    expect(undeclared.story).toContain('capacity_exceeded');
  });

  it('on a wall clock, replays a failure 3 times: a departure when it fails again, flaky when it does not', async () => {
    const racy = asyncJobStoreFactory(AckChecksThenSettles);
    const sound = asyncJobStoreFactory();
    // Count the instances the search and shrinking create, then let only those be racy: the replays are then sound.
    let created = 0;
    const counting = Object.assign(
      (...a: Parameters<typeof racy>) => {
        created += 1;
        return racy(...a);
      },
      {
        withPause: (...a: Parameters<typeof racy.withPause>) => {
          created += 1;
          return racy.withPause(...a);
        },
      },
    );
    const options = { workers: 4, runs: 150, seed: 2 };
    const logical = await runConcurrentProfile(target({ queue: 'q', concurrentFactory: counting }), options);
    expect(logical.verdict).toBe('not_linearizable');
    expect(logical.replays).toBeUndefined();
    const searched = created;
    const wall = { kind: 'wall', tickMs: 10 } as const;
    const departs = await runConcurrentProfile(target({ queue: 'q', concurrentFactory: racy, clock: wall }), options);
    expect(departs).toMatchObject({ verdict: 'not_linearizable', replays: { runs: 3, departed: 3 } });
    let n = 0;
    const onceRacy = Object.assign(
      (...a: Parameters<typeof racy>) => {
        n += 1;
        return n <= searched ? racy(...a) : sound(...a);
      },
      {
        withPause: (...a: Parameters<typeof racy.withPause>) => {
          n += 1;
          return n <= searched ? racy.withPause(...a) : sound.withPause(...a);
        },
      },
    );
    const flaky = await runConcurrentProfile(target({ queue: 'q', concurrentFactory: onceRacy, clock: wall }), options);
    expect(flaky).toMatchObject({ verdict: 'flaky', replays: { runs: 3, departed: 0 }, path: logical.path });
    expect(flaky.story).toContain('reproduce:');
  });

  it('says not_run for a target without a concurrent factory', async () => {
    const c = await runConcurrentProfile(target({ queue: 'alone' }), { workers: 2 });
    expect(c.verdict).toBe('not_run');
    expect(c.reason).toMatch(/no concurrentFactory/);
  });

  it('is a ProfileError naming a declared-unsupported rule the scenarios cannot avoid', () => {
    const t = target({
      queue: 'q',
      declarations: {
        'stale-token-refused': { kind: 'unsupported', why: 'no tokens' },
        'owner-checked': { kind: 'unsupported', why: 'no owners' },
      },
    });
    expect(() => concurrentRestrictionOf(t)).toThrow(ProfileError);
    expect(() => concurrentRestrictionOf(t)).toThrow(/stale-token-refused/);
  });
});

describe('runRaceSearch', () => {
  it('finds the stale ack of AckChecksThenSettles a race: it departs with its requests in flight together, and its requests one at a time agree', async () => {
    const t = target({
      queue: 'ack-checks-then-settles',
      concurrentFactory: asyncJobStoreFactory(AckChecksThenSettles),
    });
    const line = (path: string): string =>
      `npx jobcheck profile --module x.ts --workers 4 --seed 2 --race-path ${path}`;
    const r = await runRaceSearch(t, { workers: 4, runs: 150, seed: 2, raceReplayCommand: line });
    expect(r?.verdict).toBe('race');
    expect(r?.story).toContain(`reproduce: ${line(r?.path ?? '')}`);
    // Its replay line finds it again, one run, no shrinking.
    const again = await runRaceSearch(t, { workers: 4, seed: 2, racePath: r?.path ?? '', raceReplayCommand: line });
    expect(again).toMatchObject({ verdict: 'race', runsDone: 1, path: r?.path });
  });

  it('lets pass every history of a store that departs one command at a time (no capacity bound), and says how many', async () => {
    const factory = lockedJobStoreFactory(IgnoresCapacity, 'ignores-capacity');
    const t = target({ queue: 'unbounded', factory: jobStoreFactory(IgnoresCapacity), concurrentFactory: factory });
    const c = await runConcurrentProfile(t, { workers: 3, runs: 60, seed: 1, races: true });
    expect(c.verdict).toBe('not_linearizable');
    expect(c.races?.verdict).toBe('none_found');
    expect(c.races?.oneAtATime).toBeGreaterThan(0);
    expect(withConcurrent({ ...baseProfile }, c).verdict).toBe('departs');
  });
});

const baseProfile = emptyProfile();

describe('the profile with its competing workers', () => {
  const base = baseProfile;
  const section = {
    workers: 4,
    runs: 30,
    runsDone: 12,
    seed: 1,
    avoided: [{ rule: 'owner-checked' as const, why: "every settlement is sent in its holder's name." }],
    adapter: 'a',
    story: 'the lanes',
    path: '3:1',
    replay: 'npx jobcheck profile --module m.ts --workers 4 --seed 1 --concurrent-path 3:1',
  };

  it('departs when not linearizable, is incomplete when flaky, unknown or cut short, and stays as it was otherwise', () => {
    expect(withConcurrent(base, { ...section, verdict: 'not_linearizable' }).verdict).toBe('departs');
    for (const v of ['flaky', 'unknown', 'budget_exhausted'] as const)
      expect(withConcurrent(base, { ...section, verdict: v }).verdict).toBe('incomplete');
    expect(withConcurrent(base, { ...section, verdict: 'linearizable' }).verdict).toBe('conforms');
    expect(withConcurrent(base, { ...section, verdict: 'not_run' }).verdict).toBe('conforms');
  });

  it('reads back with the section and without it (an older profile of the same format)', () => {
    expect(profileSchema.safeParse(base).success).toBe(true);
    const p = withConcurrent(base, { ...section, verdict: 'not_linearizable' });
    expect(profileSchema.parse(JSON.parse(JSON.stringify(p)))).toEqual(p);
  });

  it('prints a "Competing workers" section with the verdict, what was avoided, the story and the replay command', () => {
    const p = withConcurrent(base, { ...section, verdict: 'not_linearizable' });
    const md = renderProfileMarkdown(p);
    expect(md).toContain('## Competing workers');
    expect(md).toContain('not linearizable');
    expect(md).toContain("- `owner-checked`: every settlement is sent in its holder's name.");
    expect(md).toContain('```text\nthe lanes\n```');
    expect(md).toContain(`Replay: \`${section.replay}\``);
    const text = renderProfileText(p);
    expect(text).toContain('Competing workers:');
    expect(text).toContain(`replay: ${section.replay}`);
  });
});
