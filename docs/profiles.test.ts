/**
 * docs/profiles/ held to what the queues do now (the pages are written by `npm run profiles`,
 * scripts/profiles.ts, from the stored data, docs/tools/profilePages.ts):
 * - every page names the version of the queue installed;
 * - the reference page (the built-in JobStore) is exactly what the generator writes for it today;
 * - every page and the matrix are what the stored data renders to today (`--render-only`);
 * - the matrix opens with one line per queue from its data, and groups the rules by consequence,
 *   boundaries last, as every page does; every broker page links chapter 11;
 * - the matrix agrees with the pages, cell by cell (the brokers' columns too);
 * - every departure on a real queue's page replays on the real queue: its campaign's run at its
 *   path departs on the same rule, in the same number of steps, at the same field (PostgreSQL:
 *   skipped locally without a server, required in CI).
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CONSEQUENCES, consequenceOf } from '../contract/consequences.ts';
import { RULE_IDS } from '../contract/rules.ts';
import type { RuleId } from '../contract/rules.ts';
import { jobStoreFactory } from '../conformance/stores/jobStore.ts';
import { describeResult, runConcurrentProfile, runProfile, withConcurrent } from '../conformance/profile/index.ts';
import { lockedJobStoreFactory } from '../conformance/concurrent/inProcess.ts';
import type { Profile, ProfileTarget } from '../conformance/profile/index.ts';
import { postgresMissing, postgresRequired } from '../conformance/postgresEnv.ts';
import {
  COLUMN_DATA,
  REFERENCE_DATA,
  handlerLine,
  pageOf,
  readStored,
  renderMatrix,
  renderPage,
  renderStoredPages,
} from './tools/profilePages.ts';
import { DOCUMENTED_RECORDS, SOURCE_RECORDS, renderRecord } from './tools/sourceRecords.ts';
import { DOCUMENTED_MODES, DOCUMENTED_SERVICES } from '../model/documented.ts';
import type { SourceRecord } from './tools/sourceRecords.ts';

const page = (name: string): string => readFileSync(new URL(`profiles/${name}`, import.meta.url), 'utf8');
const version = (pkg: string): string =>
  (
    JSON.parse(readFileSync(new URL(`../node_modules/${pkg}/package.json`, import.meta.url), 'utf8')) as {
      version: string;
    }
  ).version;
const own = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string })
  .version;

const DATA_DIR = fileURLToPath(new URL('profiles/data', import.meta.url));
/** The stored profile of a data name (the test fails when there is none). */
function stored(data: string): Profile {
  const p = readStored(DATA_DIR, data, (line) => expect.fail(line));
  if (p === undefined) return expect.fail(`docs/profiles/data/${data}.json: absent`);
  return p;
}

/** The queues of the pages: page file, title, installed version, the module exporting the target. */
const QUEUES = [
  {
    file: 'pg-boss.md',
    queue: 'pg-boss',
    version: version('pg-boss'),
    load: async (): Promise<ProfileTarget> => (await import('../adapters/pg-boss/profile.ts')).pgBossProfile,
  },
  {
    file: 'bullmq-postgresql-backend.md',
    queue: 'bullmq (PostgreSQL backend)',
    version: version('bullmq'),
    load: async (): Promise<ProfileTarget> => (await import('../adapters/bullmq-postgres/profile.ts')).bullmqPostgres,
  },
] as const;

/**
 * The brokers' pages: page file, title, the version of the client package the title names (the
 * server's version is the broker's own, read where it runs). Their departures replay through each
 * adapter's own tests on the real broker (adapters/<broker>/*.test.ts), not here: on a broker's own
 * clock a replay takes real time.
 */
const BROKERS = [
  { file: 'bullmq-redis.md', queue: 'bullmq (Redis)', version: version('bullmq') },
  { file: 'rabbitmq.md', queue: 'rabbitmq', version: `amqplib ${version('amqplib')}` },
  {
    file: 'nats-jetstream.md',
    queue: 'NATS JetStream',
    version: `@nats-io/jetstream ${version('@nats-io/jetstream')}`,
  },
  { file: 'beanstalkd.md', queue: 'beanstalkd', version: '' },
] as const;

/** A departure as a page tells it. */
interface Told {
  readonly rule: RuleId;
  readonly campaign: RuleId;
  readonly path: string;
  readonly steps: number;
  readonly field: string;
}

/** The departures a page tells that came from a targeted campaign (those replay by seed and path). */
function departures(text: string): Told[] {
  const found: Told[] = [];
  const re =
    /^## <a id="departure-([a-z-]+)"><\/a>Departure: `[a-z-]+`\n[\s\S]*?^Found by the targeted campaign of `([a-z-]+)` \(seed -?\d+, path `([\d:]+)`\), shrunk from \d+ to (\d+) steps?\. First difference at step \d+: `([^`]+)`/gm;
  for (const m of text.matchAll(re))
    found.push({
      rule: m[1] as RuleId,
      campaign: m[2] as RuleId,
      path: m[3] as string,
      steps: Number(m[4]),
      field: m[5] as string,
    });
  return found;
}

/** The result column of a page's rule table, by rule. */
function results(text: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const m of text.matchAll(/^\| \[`([a-z-]+)`\]\(\.\.\/contract\.md#rule-[a-z-]+\) \| ([^|]+?) \|/gm))
    out.set(m[1] as string, (m[2] as string).replace(/\]\(#departure-[a-z-]+\)/, '').replace(/^\[/, ''));
  return out;
}

describe('docs/profiles', () => {
  it('names the installed version of every queue, and of jobcheck for the reference', () => {
    expect(page('jobcheck-jobstore.md')).toMatch(new RegExp(`^# jobcheck JobStore ${own.replace(/\./g, '\\.')}\n`));
    for (const q of QUEUES)
      expect(page(q.file)).toMatch(
        new RegExp(`^# ${q.queue.replace(/[().]/g, '\\$&')} ${q.version.replace(/\./g, '\\.')}\n`),
      );
    for (const b of BROKERS) {
      const title = page(b.file).split('\n')[0] ?? '';
      expect(title.startsWith(`# ${b.queue} `), b.file).toBe(true);
      expect(title, b.file).toContain(b.version);
    }
  });

  it('holds the reference page as the generator writes it today', async () => {
    const reference: ProfileTarget = {
      queue: 'jobcheck JobStore',
      version: own,
      factory: jobStoreFactory(),
      concurrentFactory: lockedJobStoreFactory(),
      declarations: {},
    };
    const sequential = await runProfile(reference, {
      runs: 10,
      seed: 1,
      replayCommand: (rule, campaign, path) =>
        campaign === undefined || path === undefined
          ? `npx jobcheck profile --builtin --rule ${rule}  (found by the fixture stories, which every profile runs)`
          : `npx jobcheck profile --builtin --rule ${campaign} --path ${path}`,
    });
    // Competing workers as scripts/profiles.ts runs them: 4 lanes, 20 scenarios, seed 1, the stale acknowledgement and the search for races.
    const profile = withConcurrent(
      sequential,
      await runConcurrentProfile(reference, {
        workers: 4,
        runs: 20,
        seed: 1,
        races: true,
        staleAck: true,
        staleAckReplayCommand: 'npx jobcheck profile --builtin --workers 4 --stale-ack',
        replayCommand: (path) => `npx jobcheck profile --builtin --workers 4 --seed 1 --concurrent-path ${path}`,
        raceReplayCommand: (path) => `npx jobcheck profile --builtin --workers 4 --seed 1 --race-path ${path}`,
      }),
    );
    expect(profile.concurrent).toMatchObject({
      verdict: 'linearizable',
      staleAck: { verdict: 'kept' },
      races: { verdict: 'none_found' },
    });
    expect(renderPage({ data: REFERENCE_DATA, profile })).toBe(page('jobcheck-jobstore.md'));
    // The reference conforms on every rule, the counters' edge included (reached from a restored snapshot).
    for (const r of profile.rules) expect(`${r.rule}: ${describeResult(r)}`).toMatch(/: conforms \(\d+ commands?\)$/);
  }, 120_000);

  it('holds every page and the matrix as the stored data renders them today', () => {
    const rendered = renderStoredPages(DATA_DIR, (line) => expect.fail(line));
    expect([...rendered.keys()].sort()).toEqual(['README.md', ...COLUMN_DATA.map((d) => pageOf(stored(d)))].sort());
    const stale = [...rendered].filter(([file, text]) => text !== page(file)).map(([file]) => file);
    expect(stale, 'stale pages: npx tsx scripts/profiles.ts --render-only rewrites them from the stored data').toEqual(
      [],
    );
  });

  it("opens every page with the source's five facts, each beside the stored results of the rules that show it", () => {
    expect(Object.keys(SOURCE_RECORDS).sort()).toEqual([...COLUMN_DATA].sort());
    const STATUS = /^`([a-z-]+)` (?:\[\*\*(departs)\*\*\]\(#departure-\1\)|([a-z ]+))$/;
    for (const data of COLUMN_DATA) {
      const profile = stored(data);
      const text = page(pageOf(profile));
      // The record comes first, under the title.
      expect(text.split('\n').slice(1, 4), data).toEqual(['', '## The record', '']);
      const section = text.split('\n## ')[1] ?? '';
      const rows = section
        .split('\n')
        .filter((l) => l.startsWith('| ') && !l.startsWith('| fact ') && !l.startsWith('| ---'));
      expect(
        rows.map((r) => r.split(' | ')[0]?.slice(2)),
        data,
      ).toEqual([
        'delivery mode',
        'acknowledgement operation',
        'expiry behaviour',
        'bounded retry policy',
        'owner of repeatedly failing work',
      ]);
      for (const row of rows) {
        const shown = (row.split(' | ')[2] ?? '').replace(/ \|$/, '').split(', ');
        expect(shown.length, row).toBeGreaterThan(0);
        for (const cell of shown) {
          const m = STATUS.exec(cell);
          expect(m, `${data}: ${cell}`).not.toBeNull();
          const result = profile.rules.find((r) => r.rule === m?.[1]);
          // The word is the stored status, whatever the fact says.
          expect(m?.[2] ?? m?.[3], `${data}: ${cell}`).toBe(result?.status.replace('_', ' ') ?? 'not profiled');
        }
      }
    }
    // The documented modes have theirs too, one at the head of each mode's section.
    expect(Object.keys(DOCUMENTED_RECORDS).sort()).toEqual(DOCUMENTED_MODES.map((m) => m.id).sort());
    for (const service of DOCUMENTED_SERVICES) {
      const text = readFileSync(new URL(`profiles/documented/${service.id}.md`, import.meta.url), 'utf8');
      for (const mode of service.modes)
        expect(text.split(`## ${mode.name}\n`)[1]?.split('\n## ')[0], mode.id).toMatch(
          /^\nSetting: [^\n]*\n\n### The record\n/,
        );
    }
    // A fact shows what the data says: a departure recorded for a rule turns its word into departs.
    const nats = stored('nats-jetstream');
    const conforming = nats.rules.find((r) => r.rule === 'ack-settles-done');
    expect(conforming?.status).toBe('conforms');
    const changed = renderRecord(SOURCE_RECORDS['nats-jetstream'] as SourceRecord, {
      ...nats,
      rules: nats.rules.map((r) => (r.rule === 'ack-settles-done' ? { ...r, status: 'departs' } : r)),
    });
    expect(changed).toContain('`ack-settles-done` [**departs**](#departure-ack-settles-done)');
  });

  it('opens the matrix with one line per queue for its handlers, made from its data', () => {
    const matrix = page('README.md');
    const opening = matrix.split('\n## ')[1] ?? '';
    expect(opening.startsWith('What this means for your handlers\n')).toBe(true);
    const columns = COLUMN_DATA.map((data) => ({ data, profile: stored(data) }));
    const lines = opening.split('\n').filter((l) => l.startsWith('- **'));
    expect(lines).toEqual(columns.map(handlerLine));
    // A line is the data's: a result that changes changes its queue's line, and no other.
    const rabbit = stored('rabbitmq');
    const changed: Profile = {
      ...rabbit,
      rules: rabbit.rules.map((r) =>
        r.rule === 'admission-in-seq-order' ? { ...r, status: 'unsupported', why: 'a test' } : r,
      ),
    };
    const line = handlerLine({ data: 'rabbitmq', profile: changed });
    expect(line).not.toBe(handlerLine({ data: 'rabbitmq', profile: rabbit }));
    expect(line).toMatch(/\*\*order\*\*: [^·]*unsupported `admission-in-seq-order`/);
    const other = renderMatrix(columns.map((c) => (c.data === 'rabbitmq' ? { ...c, profile: changed } : c)));
    const changedLines = other.split('\n').filter((l) => !matrix.includes(l));
    expect(changedLines.filter((l) => l.startsWith('- **'))).toEqual([line]);
  });

  it('groups the rules by consequence, boundaries last, on the matrix and on every page', () => {
    const titles = CONSEQUENCES.map((c) => c.title);
    expect(titles[titles.length - 1]).toBe('Boundaries');
    for (const file of [
      'README.md',
      'jobcheck-jobstore.md',
      ...QUEUES.map((q) => q.file),
      ...BROKERS.map((b) => b.file),
    ]) {
      const text = page(file);
      const headings = [...text.matchAll(/^## (.+)$/gm)].map((m) => m[1] as string).filter((h) => titles.includes(h));
      expect(headings, file).toEqual(titles);
      let under: string | undefined;
      const seen: RuleId[] = [];
      for (const line of text.split('\n')) {
        if (line.startsWith('## ')) under = line.slice(3);
        const rule = /^\| \[`([a-z-]+)`\]\(\.\.\/contract\.md#rule-/.exec(line)?.[1] as RuleId | undefined;
        if (rule === undefined) continue;
        seen.push(rule);
        expect(`${file} ${rule} under ${under}`).toBe(
          `${file} ${rule} under ${CONSEQUENCES.find((c) => c.id === consequenceOf(rule))?.title}`,
        );
      }
      expect([...seen].sort(), file).toEqual([...RULE_IDS].sort());
    }
  });

  it("links chapter 11's side by side from the matrix and from every broker page", () => {
    const link = '](../11-real-brokers.md#side-by-side)';
    expect(page('README.md')).toContain(link);
    for (const b of BROKERS) expect(page(b.file), b.file).toContain(link);
  });

  it('has a matrix that agrees with every page, rule by rule', () => {
    const matrix = page('README.md');
    const columns = ['jobcheck-jobstore.md', ...QUEUES.map((q) => q.file), ...BROKERS.map((b) => b.file)];
    for (const rule of RULE_IDS) {
      const row = new RegExp(`^\\| \\[\`${rule}\`\\]\\(\\.\\./contract\\.md#rule-${rule}\\) \\| (.*) \\|$`, 'm').exec(
        matrix,
      )?.[1];
      expect(row, rule).toBeDefined();
      const cells = (row as string).split(' | ');
      columns.forEach((file, i) => {
        const told = results(page(file)).get(rule);
        expect(told, `${file} ${rule}`).toBeDefined();
        expect(cells[i]?.replace(/^\[/, '').replace(/\]\([^)]*\)( seed -?\d+)?$/, ''), `${file} ${rule}`).toBe(told);
      });
    }
  });

  it('tells at least one departure of each real queue, each from a campaign that replays', () => {
    for (const q of [...QUEUES, ...BROKERS]) expect(departures(page(q.file)).length, q.file).toBeGreaterThan(0);
  });
});

/** Replays of one departure before it counts as not replaying. */
const REPLAY_TRIES = 3;

const missing = postgresMissing();
describe.skipIf(missing !== undefined && !postgresRequired())(
  'every departure in docs/profiles replays on the real queue',
  () => {
    it('has a server', () => {
      expect(missing, 'PostgreSQL is required in CI (scripts/pg.sh starts it)').toBeUndefined();
    });

    for (const q of QUEUES) {
      it(`replays each departure of ${q.queue}`, async () => {
        const target = await q.load();
        try {
          for (const d of departures(page(q.file))) {
            // pg-boss draws its retry jitter from PostgreSQL's random(), which no client can seed for
            // its maintenance: a story that passes through a jittered retry may need another try.
            let seen: string[] = [];
            for (let attempt = 0; attempt < REPLAY_TRIES; attempt++) {
              const profile = await runProfile(target, { seed: 1, replay: { rule: d.campaign, path: d.path } });
              const result = profile.rules.find((r) => r.rule === d.rule);
              seen = [
                ...seen,
                `${result?.status ?? 'absent'} in ${result?.departure?.steps ?? '-'} steps at ${result?.departure?.divergence.field ?? '-'}`,
              ];
              if (
                result?.status === 'departs' &&
                result.departure?.steps === d.steps &&
                result.departure.divergence.field === d.field
              )
                break;
            }
            expect(
              seen[seen.length - 1],
              `${q.queue} ${d.rule} (campaign ${d.campaign}, path ${d.path}); tries: ${seen.join('; ')}`,
            ).toBe(`departs in ${d.steps} steps at ${d.field}`);
          }
        } finally {
          await target.close?.();
        }
      }, 300_000);
    }
  },
);
