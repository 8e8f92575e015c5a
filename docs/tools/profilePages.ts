/**
 * The pages of docs/profiles/ as functions of the stored profiles (`docs/profiles/data/*.json`):
 * one page per queue and the matrix (README.md), which opens with one line per queue saying what
 * its results mean for the handlers of its jobs, then groups the rules by consequence
 * (contract/consequences.ts), boundaries last. Every line and cell is derived from the profiles, so
 * a changed result changes the page. scripts/profiles.ts writes these pages (`--render-only`
 * rebuilds them from the stored data alone); docs/profiles.test.ts holds the pages to them.
 */
import { existsSync, readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { CONSEQUENCES } from '../../contract/consequences.ts';
import type { Consequence } from '../../contract/consequences.ts';
import type { RuleId } from '../../contract/rules.ts';
import {
  describeClock,
  describeResult,
  profileSchema,
  renderProfileMarkdown,
} from '../../conformance/profile/index.ts';
import type { Profile, RuleResult } from '../../conformance/profile/index.ts';
import { FAULT_NAMES } from '../../conformance/profile/index.ts';
import { slug } from './slug.ts';
import { SOURCE_RECORDS, renderRecord } from './sourceRecords.ts';
import { DOCUMENTED_DIR, DOCUMENTED_VARIANTS, documentedMatrix, readStoredProfile } from './documentedProfiles.ts';
import { DOCUMENTED_MODES } from '../../model/documented.ts';

/** The data file name (without `.json`) of the reference column, the built-in JobStore. */
export const REFERENCE_DATA = 'reference';
/** Most worker lanes of the competing workers the profiles run (`--workers 4`). */
export const CONCURRENT_WORKERS = 4;

const CHAPTER_9 =
  '[Chapter 9](../09-reading-a-profile.md) reads this page with a workload in mind, and the [matrix](README.md) sets it beside the other queues.';
const CHAPTER_11 =
  '[Chapter 11](../11-real-brokers.md) reads this page for the handlers of its jobs: which component recognises a repeat, and who must decide. Its [side by side](../11-real-brokers.md#side-by-side) compares the four brokers operation by operation, and agrees with these pages (docs/realBrokers.test.ts holds them together).';

const SQS_EMULATOR =
  "This page profiles an emulator of Amazon SQS, run on this machine by the suite, not Amazon SQS itself: it shows where the emulator a team tests against keeps the contract and where it departs. Where AWS documents a behaviour other than the contract's, the rule links the AWS page (marked upstream) with what it says. [adapters/sqs/README.md](../../adapters/sqs/README.md) maps every rule.";

/** Adapter modules that may export a ProfileTarget, in the matrix's column order, each with the paragraph of the chapter that reads its page. */
export const PROFILE_ADAPTERS: readonly { readonly file: string; readonly reading: string }[] = [
  { file: 'adapters/pg-boss/profile.ts', reading: CHAPTER_9 },
  { file: 'adapters/bullmq-postgres/profile.ts', reading: CHAPTER_9 },
  { file: 'adapters/bullmq-redis/profile.ts', reading: CHAPTER_11 },
  { file: 'adapters/rabbitmq/profile.ts', reading: CHAPTER_11 },
  { file: 'adapters/nats-jetstream/profile.ts', reading: CHAPTER_11 },
  { file: 'adapters/beanstalkd/profile.ts', reading: CHAPTER_11 },
  { file: 'adapters/redis-streams/profile.ts', reading: CHAPTER_9 },
  { file: 'adapters/sqs/fauxqs-standard/profile.ts', reading: SQS_EMULATOR },
  { file: 'adapters/sqs/fauxqs-fifo/profile.ts', reading: SQS_EMULATOR },
  { file: 'adapters/sqs/local-aws-sqs-standard/profile.ts', reading: SQS_EMULATOR },
  { file: 'adapters/sqs/local-aws-sqs-fifo/profile.ts', reading: SQS_EMULATOR },
];

/** The name a profile's data file takes: the adapter's folder (`pg-boss`), or `reference`. Pure. */
export const dataName = (file: string): string => basename(dirname(file));

/** The data names of the matrix's columns, in order: the reference, then every adapter. */
export const COLUMN_DATA: readonly string[] = [REFERENCE_DATA, ...PROFILE_ADAPTERS.map((a) => dataName(a.file))];

/** A column of the matrix: a profile and the data file it is stored under. */
export interface Column {
  readonly data: string;
  readonly profile: Profile;
}

/** The page file of a queue (`bullmq-postgresql-backend.md`), from its name. Pure. */
export function pageOf(profile: Pick<Profile, 'queue'>): string {
  return `${slug(profile.queue)}.md`;
}

/** A queue's page, as the generator writes it. Pure. */
export function renderPage({ data, profile }: Column): string {
  const reading = PROFILE_ADAPTERS.find((a) => dataName(a.file) === data)?.reading;
  const record = SOURCE_RECORDS[data];
  return renderProfileMarkdown(profile, {
    title: `${profile.queue} ${profile.version}`,
    ...(reading === undefined ? {} : { reading }),
    ...(record === undefined ? {} : { opening: renderRecord(record, profile) }),
  });
}

/**
 * The stored profile of a data name, or undefined when there is none; a file of another format is
 * left out with a message through `log`.
 */
export function readStored(dataDir: string, data: string, log: (line: string) => void): Profile | undefined {
  const file = join(dataDir, `${data}.json`);
  if (!existsSync(file)) return undefined;
  const parsed = profileSchema.safeParse(JSON.parse(readFileSync(file, 'utf8')));
  if (parsed.success) return parsed.data as Profile;
  log(`docs/profiles/data/${data}.json: not a profile of this format, left out of the matrix`);
  return undefined;
}

/** A matrix cell: the result in a few words, a departure linked to its section on the queue's page. Pure. */
function cellOf(r: RuleResult | undefined, page: string): string {
  if (r === undefined) return '';
  const text = describeResult(r).replace(/\|/g, '\\|');
  if (r.status !== 'departs') return text;
  return `[${text}](${page}#departure-${r.rule})${r.departure?.seed === undefined ? '' : ` seed ${r.departure.seed}`}`;
}

const code = (rule: RuleId): string => `\`${rule}\``;
const NOT_ESTABLISHED: readonly RuleResult['status'][] = ['flaky', 'not_reached', 'budget_exhausted', 'unknown'];

/** What a column's results say under one consequence, or undefined when it keeps every rule there. Pure. */
function consequenceText(c: Consequence, { profile }: Column, page: string): string | undefined {
  const results = profile.rules.filter((r) => c.rules.includes(r.rule));
  const departs = results
    .filter((r) => r.status === 'departs')
    .map((r) => `[${code(r.rule)}](${page}#departure-${r.rule})`);
  // The old holder's ack after a redelivery settles a delivery that has ended: a duplicate effect.
  if (c.id === 'duplicate-effects' && profile.concurrent?.staleAck?.verdict === 'departs')
    departs.push(`[the stale acknowledgement](${page}#stale-acknowledgement)`);
  const unsupported = results.filter((r) => r.status === 'unsupported').map((r) => code(r.rule));
  const variants = results.filter((r) => r.status === 'variant').map((r) => `\`${r.variant}\``);
  const unknown = results.filter((r) => NOT_ESTABLISHED.includes(r.status)).length;
  const parts = [
    departs.length === 0 ? '' : `departs on ${departs.join(', ')}`,
    unsupported.length === 0 ? '' : `unsupported ${unsupported.join(', ')}`,
    variants.length === 0 ? '' : `variant ${variants.join(', ')}`,
    unknown === 0 ? '' : `${unknown} not established`,
  ].filter((p) => p !== '');
  return parts.length === 0 ? undefined : `**${c.title.toLowerCase()}**: ${parts.join('; ')}`;
}

/** One line per column: what its results mean for the handlers of its jobs, consequence by consequence. Pure. */
export function handlerLine(column: Column): string {
  const page = pageOf(column.profile);
  const told: string[] = [];
  const kept: string[] = [];
  for (const c of CONSEQUENCES) {
    const text = consequenceText(c, column, page);
    if (text === undefined) kept.push(c.title.toLowerCase());
    else told.push(text);
  }
  const race = column.profile.concurrent?.races?.verdict;
  if (race === 'race' || race === 'flaky')
    told.push(`[${race === 'race' ? 'a race' : 'a flaky race'}](${page}#races) with requests in flight together`);
  if (kept.length === CONSEQUENCES.length && told.length === 0) told.push('keeps every rule');
  else if (kept.length > 0) told.push(`keeps every rule of ${kept.join(', ')}`);
  return `- **${column.profile.queue}** ([page](${page})): ${told.join(' · ')}`;
}

/** The rules on which every real queue (every column but the reference) departs, in RULE_IDS order. Pure. */
function departedByAll(columns: readonly Column[]): RuleId[] {
  const real = columns.filter((c) => c.data !== REFERENCE_DATA);
  if (real.length === 0) return [];
  return CONSEQUENCES.flatMap((c) => c.rules).filter((rule) =>
    real.every((c) => c.profile.rules.find((r) => r.rule === rule)?.status === 'departs'),
  );
}

/** The section that opens the matrix: one line per queue, and the rules that rank no queue. Pure. */
function handlersSection(columns: readonly Column[]): string[] {
  const lines = [
    '## What this means for your handlers',
    '',
    'One line per queue. For each consequence of a departure (the sections below, costliest first, boundaries last): the rules the queue departs on, those it declares unsupported (its handlers do without them), the variants of the model it declares, and how many results its profile did not establish either way (flaky, not reached, budget exhausted). A consequence whose every rule the queue keeps is named last.',
    '',
    ...columns.map(handlerLine),
  ];
  const all = departedByAll(columns);
  if (all.length > 0)
    lines.push(
      '',
      `Every real queue here departs on ${all.map(code).join(', ')}: a departure there ranks no queue above another.`,
    );
  lines.push(
    '',
    "For the four brokers, [chapter 11's side by side](../11-real-brokers.md#side-by-side) says what each does operation by operation, in its own terms, and agrees with these pages.",
  );
  return lines;
}

/** The rows of competing workers: each column's verdicts, linked to their sections. Pure. */
function workerRows(columns: readonly Column[]): string[] {
  const row = (label: string, verdict: (p: Profile) => string | undefined, section: string): string[] => {
    const cells = columns.map(({ profile }) => {
      const v = verdict(profile);
      return v === undefined ? '' : `[${v.replace(/_/g, ' ')}](${pageOf(profile)}#${section})`;
    });
    return cells.some((c) => c !== '') ? [`| ${label} | ${cells.join(' | ')} |`] : [];
  };
  return [
    ...row(
      `competing workers (\`--workers ${CONCURRENT_WORKERS}\`)`,
      (p) => p.concurrent?.verdict,
      'competing-workers',
    ),
    ...row(
      "stale acknowledgement (the old holder's ack after a redelivery)",
      (p) => p.concurrent?.staleAck?.verdict,
      'stale-acknowledgement',
    ),
    ...row('races (departs only with requests in flight together)', (p) => p.concurrent?.races?.verdict, 'races'),
  ];
}

/** One row a fault: per queue, each configuration's verdict, linked to the page's section. Pure. */
function faultRows(columns: readonly Column[]): string[] {
  return FAULT_NAMES.flatMap((fault) => {
    const cells = columns.map(({ profile }) => {
      const results = profile.faults?.results.filter((r) => r.fault === fault) ?? [];
      return results.map((r) => `[${r.configuration}: ${r.verdict}](${pageOf(profile)}#${fault})`).join('<br>');
    });
    return cells.some((c) => c !== '') ? [`| ${fault} | ${cells.join(' | ')} |`] : [];
  });
}

/**
 * The matrix, docs/profiles/README.md: the handlers' lines, the queues, the rules by consequence,
 * competing workers, and the documented services' modes (`documented`: their stored profiles by
 * mode id, docs/tools/documentedProfiles.ts), apart from every measured column. Pure.
 */
export function renderMatrix(columns: readonly Column[], documented: ReadonlyMap<string, Profile> = new Map()): string {
  const lines = ['# Profiles: real queues against the contract', ''];
  lines.push(
    'What each queue does to the handlers of its jobs, checked rule by rule against the [contract](../contract.md).',
    '',
  );
  lines.push(...handlersSection(columns), '');
  lines.push('## The queues', '');
  lines.push(
    'Each queue checked rule by rule by `jobcheck profile` (docs/cli.md): for every rule of the [contract](../contract.md), the fixture stories and a targeted random campaign that exercise it, in lockstep with the model, with the rules a queue declares unsupported left out and its declared variants of the model (model/variants.ts) in their place. The built-in JobStore is the reference column. Generated by `npm run profiles` with seed 1; every departure links to its shrunk story and the command that replays it. [Chapter 9](../09-reading-a-profile.md) reads these pages with a workload in mind.',
    '',
  );
  lines.push('| queue | version | clock | verdict | page |', '| --- | --- | --- | --- | --- |');
  for (const { profile } of columns) {
    const page = pageOf(profile);
    lines.push(
      `| ${profile.queue} | ${profile.version} | ${describeClock(profile)} | ${profile.verdict} | [${page}](${page}) |`,
    );
  }
  const header = [
    `| rule | ${columns.map((c) => c.profile.queue).join(' | ')} |`,
    `| --- | ${columns.map(() => '---').join(' | ')} |`,
  ];
  for (const c of CONSEQUENCES) {
    lines.push('', `## ${c.title}`, '', `A departure here means that ${c.means}.`, '', ...header);
    for (const rule of c.rules) {
      const cells = columns.map(({ profile }) =>
        cellOf(
          profile.rules.find((r) => r.rule === rule),
          pageOf(profile),
        ),
      );
      lines.push(`| [\`${rule}\`](../contract.md#rule-${rule}) | ${cells.join(' | ')} |`);
    }
  }
  const workers = workerRows(columns);
  if (workers.length > 0)
    lines.push(
      '',
      '## Competing workers',
      '',
      `Each queue with lanes of its own also profiled with up to ${CONCURRENT_WORKERS} workers at once (chapter 8): every history checked for linearizability, the old holder's ack after a redelivery asked one fixed way, and the search for races.`,
      '',
      `| | ${columns.map((c) => c.profile.queue).join(' | ')} |`,
      `| --- | ${columns.map(() => '---').join(' | ')} |`,
      ...workers,
    );
  const faults = faultRows(columns);
  if (faults.length > 0)
    lines.push(
      '',
      '## Under faults',
      '',
      "Each queue's broker killed and restarted, paused, and one worker cut off by its proxy, in each durability configuration (conformance/faults/, `npm run profiles:faults`); each cell names the configurations and their verdicts. A process kill keeps the page cache: no result here is a power loss.",
      '',
      `| fault | ${columns.map((c) => c.profile.queue).join(' | ')} |`,
      `| --- | ${columns.map(() => '---').join(' | ')} |`,
      ...faults,
    );
  // Each link with what the thread says: a link alone invites reading more into it than it holds.
  const links = columns.flatMap(({ profile }) =>
    profile.rules.flatMap((r) =>
      r.upstream === undefined ? [] : [`- ${profile.queue}, \`${r.rule}\`: <${r.upstream.url}>: ${r.upstream.says}`],
    ),
  );
  if (links.length > 0) lines.push('', '## Upstream reports', '', ...links);
  const modes = documentedMatrix(documented);
  if (modes.length > 0) lines.push('', ...modes);
  return `${lines.join('\n')}\n`;
}

/**
 * Every page of docs/profiles/ from the stored data alone: file name (relative to docs/profiles/)
 * → text, the matrix under README.md, the columns in COLUMN_DATA order (a data file absent or of
 * another format is left out, said through `log`).
 */
export function renderStoredPages(dataDir: string, log: (line: string) => void): Map<string, string> {
  const columns = COLUMN_DATA.flatMap((data) => {
    const profile = readStored(dataDir, data, log);
    return profile === undefined ? [] : [{ data, profile }];
  });
  const pages = new Map<string, string>();
  for (const column of columns) pages.set(pageOf(column.profile), renderPage(column));
  const documentedData = join(dirname(dataDir), DOCUMENTED_DIR, 'data');
  const documented = new Map<string, Profile>();
  for (const id of [...DOCUMENTED_MODES.map((m) => m.id), ...DOCUMENTED_VARIANTS]) {
    const p = readStoredProfile(documentedData, id);
    if (p !== undefined) documented.set(id, p);
  }
  pages.set('README.md', renderMatrix(columns, documented));
  return pages;
}
