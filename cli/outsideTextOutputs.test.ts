/**
 * Text from outside through every output, as a property: real failing checks of a hostile
 * in-process implementation (its rejection messages and codes, a field of its own, a thrown
 * error, a snapshot key, a refused restore's code and message, its name, its stderr), competing
 * workers' history and a story file
 * carry a marker wherever outside text goes; each generated hostile string (control characters,
 * newlines, `::` workflow commands, bidi marks, `</script>`, EDN and XML specials, a fake verdict
 * or reproduce line) then takes the marker's place, and each output must keep the shape it has
 * with a plain word there: the same lines, each starting with what the harness wrote (so nothing
 * from outside starts a line), no workflow command, no acting character; the JSON and the
 * exports parse back to what was written, the XML parses with the same elements, the HTML has
 * the same elements, and GitHub's annotations say the same rules and the same repeat command.
 * The escaping functions alone get 10,000 strings each (conformance/outside/outsideText.test.ts);
 * whole outputs are dearer (a page lays out its diagram), so they get HOSTILE_RUNS strings.
 */
import { parseEDNString } from 'edn-data';
import fc from 'fast-check';
import { parse as parseHtml } from 'parse5';
import { SaxesParser } from 'saxes';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCheck } from '../conformance/check/index.ts';
import type { CheckReport } from '../conformance/check/index.ts';
import { porcupineOperations, toJepsen, toPorcupine } from '../conformance/concurrent/export.ts';
import type { History } from '../conformance/concurrent/history.ts';
import { sequentialFactory } from '../conformance/concurrent/inProcess.ts';
import { coverageHtml, coverageMarkdown } from '../conformance/coverage/coverageReport.ts';
import type { Adapter, AdapterFactory } from '../conformance/adapter.ts';
import { jsonText } from '../conformance/outside/outsideText.ts';
import { renderStory } from '../conformance/lockstep/story.ts';
import { renderProfileMarkdown, renderProfileText, runProfile } from '../conformance/profile/index.ts';
import type { Profile } from '../conformance/profile/index.ts';
import { jobStoreFactory } from '../conformance/stores/jobStore.ts';
import type { Reply, Snapshot } from '../contract/index.ts';
import { loadFixture } from '../model/fixtures.ts';
import { plainColors } from './demo/colours.ts';
import { renderTrace } from './demo/render.ts';
import { traceStory } from './demo/trace.ts';
import { githubStep } from './github.ts';
import { checkJunit } from './junit.ts';
import { mergeText, mergeVerdicts } from './mergeCommand.ts';
import type { MergeResultJson } from './mergeCommand.ts';
import { checkJson, renderCheckText, renderFailure, reportContext, reportTitle } from './output/index.ts';
import type { CheckContext, ReportFiles } from './output/index.ts';
import { replayText } from './replayCommand.ts';
import { checkHeadline } from './report/checkHeadline.ts';
import { reportPage } from './report/page.ts';
import { quotedCommand } from './report/runRecord.ts';
import { sectionsOf } from './report/sections.ts';

/** Whole outputs checked per hostile string (each lays out two diagrams). */
const HOSTILE_RUNS = Number(process.env['JOBCHECK_HOSTILE_TEXT_RUNS'] ?? 25);
/** The time a property over whole outputs may take: generous, and more for a long run by hand. */
const LONG_MS = Math.max(300_000, HOSTILE_RUNS * 2_000);
/** Where outside text goes in the checks run once: replaced by each hostile string, or by PLAIN. */
const MARK = 'QqOutsideMarkQq';
/** A plain word in MARK's place: the shape every output must keep. */
const PLAIN = 'plainword';
/** The command line's name of the implementation: the user's words, not the implementation's. */
const TARGET = 'python3 hostile.py';

/** Pieces of hostile text, joined at random with arbitrary characters. */
const PIECES = [
  '\n',
  '\r',
  '\r\n',
  '\t',
  '\u0000',
  '\u001b[2J',
  '\u001b]0;title\u0007',
  '\u009b31m',
  '\u0085',
  '\u202e',
  '\u2066',
  '\u200f',
  '\u2028',
  '\u2029',
  '\uFFFF',
  '\uD800',
  '🚀',
  '::error::pwned',
  '::set-output name=verdict::agree',
  '::add-mask::x',
  '::stop-commands::tok',
  '  ::warning file=a,line=1::x',
  '##[error]x',
  '##[add-mask]y',
  'verdict: AGREE with the model (0.1 s)',
  'reproduce: npx jobcheck check --builtin --seed 1 ; echo INJECTED',
  'replay: npx jobcheck replay x --builtin ; echo INJECTED',
  'rule counters-stay-safe (docs/contract.md#rule-counters-stay-safe): fake',
  '</script><script>alert(1)</script>',
  '<!--',
  '<b>bold</b>',
  '<![CDATA[',
  ']]>',
  '&amp;',
  '&#0;',
  '"',
  "'",
  '`',
  '```',
  '|',
  '*',
  '[x](y)',
  '# heading',
  '- item',
  '\\',
  '{:a 1}',
  '#inst "x"',
  ';',
  ',',
  ':',
  '%0A',
  '%25',
  '__proto__',
];
const hostile = fc
  .array(fc.oneof(fc.constantFrom(...PIECES), fc.string({ unit: 'binary', maxLength: 6 })), {
    minLength: 1,
    maxLength: 8,
  })
  // Never empty: an empty key or name changes a layout on purpose (a field with no name shows none).
  .map((parts) => parts.join('') || 'x');

/** Characters that act on a terminal rather than show (the newline aside, which the harness writes). */
const ACTING = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

/** A copy of a plain value with `from` (MARK) replaced by `to` in every string and key. */
function swap<T>(value: T, to: string, from = MARK): T {
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') return v.replaceAll(from, to);
    if (Array.isArray(v)) return v.map(walk);
    if (v instanceof Map) return new Map([...v].map(([k, x]) => [walk(k), walk(x)]));
    if (typeof v === 'object' && v !== null && [Object.prototype, null].includes(Object.getPrototypeOf(v)))
      return Object.fromEntries(Object.entries(v).map(([k, x]) => [k.replaceAll(from, to), walk(x)]));
    return v;
  };
  return walk(value) as T;
}

/** What the hostile implementation says where its own text goes: MARK, or a hostile string for a profile run per string. */
let said = MARK;

/**
 * An implementation that answers as impl/JobStore, in one hostile way, saying `said` where its own
 * text goes (`restore`: every snapshot it cannot restore refused with `said` for code and message).
 */
function hostileFactory(how: 'refuses' | 'throws' | 'snapshot' | 'restore'): AdapterFactory {
  const inner = jobStoreFactory(undefined, TARGET);
  return async (config) => {
    const a = await inner(config);
    const adapter: Adapter = {
      name: TARGET,
      async execute(command) {
        const reply = await a.execute(command);
        const claimed = (command as { type?: unknown } | null)?.type === 'claim' && reply.ok && 'job' in reply;
        if (claimed && reply.job !== null && how === 'throws') throw new Error(`${said} threw ${said}`);
        if (claimed && reply.job !== null && how === 'refuses')
          return { ok: false, code: said, message: said, [said]: said } as unknown as Reply;
        return reply.ok ? reply : ({ ...reply, message: said } as Reply);
      },
      async snapshot() {
        const s = await a.snapshot();
        return how === 'snapshot' ? { ...s, [said]: said } : s;
      },
      restart: () => a.restart(),
      close: () => a.close(),
      ...(how === 'restore'
        ? {
            async restoreFrom(snapshot: Snapshot) {
              try {
                await a.restoreFrom?.(snapshot);
              } catch {
                throw Object.assign(new Error(said), { code: said });
              }
            },
          }
        : {}),
    };
    return adapter;
  };
}

const ctxOf = (workers?: number): CheckContext => ({
  target: TARGET,
  flags: '--module hostile.mjs',
  implementation: MARK,
  seed: 1,
  runs: 5,
  ...(workers === undefined ? {} : { workers }),
});
const FILES: ReportFiles = {
  dir: 'report',
  artifact: 'report/failure.json',
  coverageJson: 'report/coverage.json',
  coverageMd: 'report/coverage.md',
  coverageHtml: 'report/coverage.html',
  page: 'report/latest/index.html',
};

/**
 * Every output of one check, as the commands write them, for a report and its context; `outside`
 * is also a stderr line of the implementation and the folder a merged part was read from.
 */
async function outputsOf(report: CheckReport, ctx: CheckContext, outside: string): Promise<Record<string, string>> {
  const json = checkJson(report, ctx, FILES);
  const junit = checkJunit(report, ctx, new Date(0));
  const story = report.failure === null ? null : renderFailure(report.failure, report, ctx, FILES);
  const context = reportContext(report, story);
  const withJunit = githubStep({ kind: 'check', result: json }, { junit, junitPath: 'junit.xml' });
  const alone = githubStep({ kind: 'check', result: json });
  const part = { label: `${outside}/result.json`, file: `${outside}/result.json`, verdict: json.verdict };
  const merged: MergeResultJson = {
    format: 'jobcheck.merge/1',
    verdict: mergeVerdicts([json.verdict]),
    target: json.target,
    seed: json.seed,
    runs: json.runs,
    parts: [{ ...part, stoppedByTimeLimit: false, notAPass: null }],
    coverage: json.coverage,
    results: [json],
    report: { dir: 'merged', coverageMd: 'merged/coverage.md' },
  };
  const page = reportPage({
    verdict: report.verdict,
    headline: checkHeadline(report),
    version: '0.0.0',
    time: new Date(0).toISOString(),
    durationMs: 1,
    command: quotedCommand(['check', '--impl', ctx.target]),
    target: ctx.target,
    seed: ctx.seed,
    stderr: { href: 'stderr.txt', tail: [`[impl 1] ${outside}`], lines: 1, bytesDropped: 0 },
    links: [],
    sections: await sectionsOf(report.failure),
  });
  const run = report.failure?.kind === 'divergence' ? report.failure.run : undefined;
  const artifact = { steps: run?.steps ?? [], foundAgainst: outside };
  return {
    text: renderCheckText(report, ctx, FILES, plainColors),
    'replay text': replayText('report/failure.json', artifact, ctx.target, run === undefined ? '' : renderStory(run)),
    json: `${jsonText(json, 2)}\n`,
    junit,
    'coverage.md': coverageMarkdown(report.coverage, reportTitle(ctx), context),
    'coverage.html': await coverageHtml(report.coverage, { title: reportTitle(ctx), context }),
    'index.html': page,
    'github summary': withJunit.summary,
    'github annotations (JUnit)': withJunit.annotations.join('\n'),
    'github annotations': alone.annotations.join('\n'),
    'github outputs': Object.entries(withJunit.outputs)
      .map(([k, v]) => `${k}=${v}`)
      .join('\n'),
    'merge text': mergeText(merged, json.failure === null ? null : { part, story: json.failure.story }, undefined),
    'merge --json': `${jsonText(merged, 2)}\n`,
  };
}

const lines = (text: string): string[] => text.split('\n');

/**
 * The hostile output keeps the plain one's shape: as many lines, each starting with what the
 * harness wrote before the outside text in the plain one (a plain line with no outside text is
 * the harness's from end to end). A plain line that outside text begins fails at once.
 */
function expectSameLines(name: string, plain: string, bad: string): void {
  const p = lines(plain);
  const b = lines(bad);
  expect(b.length, `${name}: lines`).toBe(p.length);
  p.forEach((line, i) => {
    // A Markdown fence is made longer than any run of backticks inside (markdownBlock): a fence still.
    const fence = /^`{3,}(text)?$/.exec(line);
    if (fence !== null) {
      expect(b[i], `${name}, line ${i + 1}: a fence`).toMatch(new RegExp(`^\`{3,}${fence[1] ?? ''}$`));
      return;
    }
    const at = line.indexOf(PLAIN);
    const own = at === -1 ? line : line.slice(0, at);
    if (at !== -1) expect(own.trim(), `${name}: outside text begins line ${i + 1}: ${line}`).not.toBe('');
    expect((b[i] ?? '').startsWith(own), `${name}, line ${i + 1}: ${JSON.stringify(b[i])} after ${own}`).toBe(true);
  });
}

/** No workflow command a runner would take from a line of log, and no character that acts. */
function expectInertLog(name: string, plain: string, bad: string): void {
  const p = lines(plain);
  lines(bad).forEach((line, i) => {
    if (line.trimStart().startsWith('::'))
      expect((p[i] ?? '').trimStart().startsWith('::'), `${name}: workflow command ${line}`).toBe(true);
  });
  expect(bad.includes('##['), `${name}: an old-style workflow command`).toBe(false);
  expect(ACTING.exec(bad)?.[0], `${name}: a character that acts`).toBeUndefined();
}

/** The elements of an HTML document in order, with their attribute names, and the JSON of its data scripts. */
function htmlShape(html: string): { elements: string[]; data: unknown[] } {
  const elements: string[] = [];
  const data: unknown[] = [];
  type Node = {
    nodeName: string;
    attrs?: Array<{ name: string; value: string }>;
    childNodes?: Node[];
    content?: Node;
    value?: string;
  };
  const visit = (node: Node): void => {
    if (node.attrs !== undefined) {
      elements.push(`${node.nodeName}[${node.attrs.map((a) => a.name).join(' ')}]`);
      if (node.nodeName === 'script' && node.attrs.some((a) => a.name === 'type' && a.value === 'application/json'))
        data.push(JSON.parse(node.childNodes?.map((c) => c.value ?? '').join('') ?? ''));
    }
    for (const child of node.childNodes ?? []) visit(child);
  };
  visit(parseHtml(html) as unknown as Node);
  return { elements, data };
}

/** The elements of an XML document in order, with their attribute names; throws on anything not well-formed. */
function xmlShape(xml: string): string[] {
  const parser = new SaxesParser();
  const elements: string[] = [];
  parser.on('opentag', (tag) => elements.push(`${tag.name}[${Object.keys(tag.attributes).join(' ')}]`));
  parser.on('error', (error) => {
    throw error;
  });
  parser.write(xml).close();
  return elements;
}

/** The annotation lines as GitHub reads them: command, properties, and the message unescaped. */
function annotationsOf(text: string): Array<{ props: string[]; message: string[] }> {
  return lines(text)
    .filter((l) => l !== '')
    .map((line) => {
      const m = /^::error ([^:]*)::(.*)$/.exec(line);
      expect(m, `not one annotation: ${line}`).not.toBeNull();
      const props = (m?.[1] ?? '').split(',').map((p) => p.split('=')[0] ?? '');
      const message = (m?.[2] ?? '').replaceAll('%0D', '\r').replaceAll('%0A', '\n').replaceAll('%25', '%');
      return { props, message: message.split('\n') };
    });
}

const LOGS = [
  'text',
  'replay text',
  'json',
  'github annotations (JUnit)',
  'github annotations',
  'github outputs',
  'merge text',
];
const JSONS = ['json', 'merge --json'];

describe('text from outside, through every output', () => {
  const checks: Array<{ name: string; report: CheckReport; ctx: CheckContext }> = [];
  let history: History<unknown, unknown> | undefined;

  beforeAll(async () => {
    const run = (factory: AdapterFactory, concurrent?: boolean) =>
      runCheck(
        { name: TARGET, factory, ...(concurrent === true ? { concurrentFactory: sequentialFactory(factory) } : {}) },
        {
          seed: 1,
          runs: 5,
          noExplore: true,
          ...(concurrent === true ? { concurrent: { workers: 2, runs: 5, when: 'only' as const } } : {}),
        },
      );
    checks.push({ name: 'refusals', report: await run(hostileFactory('refuses')), ctx: ctxOf() });
    checks.push({ name: 'a thrown error', report: await run(hostileFactory('throws')), ctx: ctxOf() });
    checks.push({ name: 'a snapshot key', report: await run(hostileFactory('snapshot')), ctx: ctxOf() });
    checks.push({ name: 'a refused restore', report: await run(hostileFactory('restore')), ctx: ctxOf() });
    const race = await run(hostileFactory('refuses'), true);
    checks.push({ name: 'competing workers', report: race, ctx: ctxOf(2) });
    history = race.failure?.kind === 'race' ? (race.failure.race.run?.history ?? undefined) : undefined;
  }, 120_000);

  it('runs checks that fail with the marker where outside text goes', () => {
    expect(checks.map((c) => [c.name, c.report.verdict, c.report.failure?.kind])).toEqual([
      ['refusals', 'diverge', 'divergence'],
      ['a thrown error', 'diverge', 'divergence'],
      ['a snapshot key', 'diverge', 'divergence'],
      ['a refused restore', 'diverge', 'restore'],
      ['competing workers', 'diverge', 'race'],
    ]);
    expect(history?.operations.length).toBeGreaterThan(0);
    for (const c of checks) expect(renderCheckText(c.report, c.ctx, FILES, plainColors)).toContain(MARK);
  });

  it(
    `keeps every output of a check in its shape, whatever the outside text (${HOSTILE_RUNS} strings)`,
    async () => {
      const plain = await Promise.all(
        checks.map(async (c) => outputsOf(swap(c.report, PLAIN), swap(c.ctx, PLAIN), PLAIN)),
      );
      await fc.assert(
        fc.asyncProperty(hostile, async (text) => {
          for (const [k, c] of checks.entries()) {
            const good = plain[k] as Record<string, string>;
            const report = swap(c.report, text);
            const out = await outputsOf(report, swap(c.ctx, text), text);
            for (const [name, bad] of Object.entries(out)) {
              const label = `${c.name}: ${name}`;
              const was = good[name] as string;
              expect(bad.includes(MARK), `${label}: the marker left`).toBe(false);
              expectSameLines(label, was, bad);
              if (LOGS.includes(name)) expectInertLog(label, was, bad);
              if (name.endsWith('.html')) {
                expect(htmlShape(bad), label).toEqual(swap(htmlShape(was), text, PLAIN));
                expect(ACTING.exec(bad)?.[0], `${label}: a character that acts`).toBeUndefined();
              }
              if (name === 'junit') expect(xmlShape(bad), label).toEqual(xmlShape(was));
              if (JSONS.includes(name)) expect(ACTING.exec(bad)?.[0], label).toBeUndefined();
            }
            expect(JSON.parse(out['json'] as string)).toEqual(checkJson(report, swap(c.ctx, text), FILES));
            for (const name of ['github annotations (JUnit)', 'github annotations']) {
              const bad = annotationsOf(out[name] as string);
              const was = annotationsOf(good[name] as string);
              expect(bad.map((a) => a.props)).toEqual(was.map((a) => a.props));
              // The same rules and the same command to repeat it, each message three lines.
              expect(bad.map((a) => [a.message.length, a.message[1], a.message[2]])).toEqual(
                was.map((a) => [a.message.length, a.message[1], a.message[2]]),
              );
            }
          }
        }),
        { numRuns: HOSTILE_RUNS },
      );
    },
    LONG_MS,
  );

  // A profile tells its stories as it runs: each string gets a profile of its own (of one rule, two runs).
  it(
    `tells a profile, text and Markdown, as itself, whatever the implementation wrote (${HOSTILE_RUNS} strings)`,
    async () => {
      const target = { queue: 'hostile', version: '0', factory: hostileFactory('refuses'), declarations: {} };
      const told = async (words: string): Promise<Record<string, string>> => {
        said = words;
        const p: Profile = await runProfile(target, { runs: 2, seed: 1, rules: ['lease-from-claim'] }).finally(() => {
          said = MARK;
        });
        expect(p.verdict).toBe('departs');
        return { 'profile text': renderProfileText(p), 'profile.md': renderProfileMarkdown(p) };
      };
      const plain = await told(PLAIN);
      expect(plain['profile text']).toContain(PLAIN);
      await fc.assert(
        fc.asyncProperty(hostile, async (text) => {
          for (const [name, bad] of Object.entries(await told(text))) {
            const was = plain[name] as string;
            expect(bad.includes(MARK), `${name}: the marker left`).toBe(false);
            expectSameLines(name, was, bad);
            if (name === 'profile text') expectInertLog(name, was, bad);
            else expect(ACTING.exec(bad)?.[0], `${name}: a character that acts`).toBeUndefined();
          }
        }),
        { numRuns: HOSTILE_RUNS },
      );
    },
    LONG_MS,
  );

  it(`writes competing workers' history for Jepsen and Porcupine as it was, whatever its strings (${HOSTILE_RUNS * 10} strings)`, () => {
    const h = history as History<unknown, unknown>;
    const plainEdn = toJepsen(swap(h, PLAIN));
    fc.assert(
      fc.property(hostile, (text) => {
        const bad = swap(h, text);
        const edn = toJepsen(bad);
        expectSameLines('history.jepsen.edn', plainEdn, edn);
        expect(ACTING.exec(edn)?.[0]).toBeUndefined();
        const read = lines(edn)
          .filter((l) => l !== '')
          .map((l) => parseEDNString(l, { mapAs: 'object', keywordAs: 'string' }) as Record<string, unknown>);
        const values = new Map(bad.operations.map((op) => [op.id, op]));
        for (const op of read) {
          const source = values.get(op['id'] as number);
          if (op['type'] === 'invoke') expect(op['value']).toEqual(source?.input);
          else if (op['type'] === 'ok') expect(op['value']).toEqual(source?.output);
        }
        const porcupine = toPorcupine(bad);
        expect(ACTING.exec(porcupine)?.[0]).toBeUndefined();
        expect(JSON.parse(porcupine)).toEqual(JSON.parse(JSON.stringify(porcupineOperations(bad))));
      }),
      { numRuns: HOSTILE_RUNS * 10 },
    );
  });

  it(`tells a story file as itself, whatever its title, story, notes and names (${HOSTILE_RUNS * 10} strings)`, () => {
    const fixture = loadFixture('normal');
    const told = (text: string): string => {
      const story = {
        ...fixture,
        title: `${text} title`,
        story: `${text} story`,
        focus: { job: text, account: `${text} account` },
        steps: fixture.steps.map((s) => ({ ...s, note: `${text} note` })),
      };
      return renderTrace(traceStory(story), plainColors, true);
    };
    const was = told(PLAIN);
    fc.assert(
      fc.property(hostile, (text) => {
        const bad = told(text);
        expectSameLines('demo', was, bad);
        expectInertLog('demo', was, bad);
      }),
      { numRuns: HOSTILE_RUNS * 10 },
    );
  });
});
