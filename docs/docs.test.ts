import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { findStory, traceStory } from '../cli/demo/index.ts';
import { isSubset, listFixtures } from '../model/fixtures.ts';
import { lifecycleTransitions } from '../model/index.ts';
import { DOCS_DIR, GENERATED_FILES, docFiles, regenerateDoc, runsConsoleBlocks } from './tools/generate.ts';
import { lifecycleMermaid } from './tools/lifecycleDocs.ts';
import {
  PROJECT_ROOT,
  findConsoleBlocks,
  normalizeOutput,
  refreshConsoleBlocks,
  splitWords,
  withoutMachineFigures,
} from './tools/quotedCommands.ts';
import { findRegions, replaceRegions } from './tools/regions.ts';

const read = (file: string): string => readFileSync(join(DOCS_DIR, file), 'utf8');

describe('the committed docs', () => {
  const runSlow = process.env['JOBCHECK_DOCS_FAST'] !== '1';
  it.each(docFiles())(
    `%s matches what the model, the fixtures and its quoted commands produce today${runSlow ? '' : ' (slow commands skipped: JOBCHECK_DOCS_FAST=1)'}`,
    async (file) => {
      const text = read(file);
      const fresh = await regenerateDoc(text, `docs/${file}`, { runSlow });
      expect(withoutMachineFigures(fresh), 'run `npm run docs` to regenerate').toBe(withoutMachineFigures(text));
    },
    runSlow ? 600_000 : 60_000,
  );

  it.each(GENERATED_FILES.map((f) => f.path))(
    'docs/%s is what the generator makes of the model and the fixtures today',
    async (path) => {
      const file = GENERATED_FILES.find((f) => f.path === path);
      expect(readFileSync(join(DOCS_DIR, path), 'utf8'), 'run `npm run docs` to regenerate').toBe(await file?.render());
    },
  );

  it('tell every fixture as a quiz in the failure-stories chapter', () => {
    const names = findRegions(read('02-failure-stories.md')).map((r) => r.name);
    for (const fixture of listFixtures()) expect(names).toContain(`story-quiz:${fixture}`);
  });

  it('quote at least one command in every numbered chapter', () => {
    for (const file of docFiles().filter((f) => /^\d\d-/.test(f))) {
      expect(findConsoleBlocks(read(file)).length, file).toBeGreaterThan(0);
    }
  });

  it('link, in the chapters and the index, only to files that exist', () => {
    const missing: string[] = [];
    for (const file of docFiles().filter((f) => /^\d\d-/.test(f) || f === 'README.md')) {
      for (const m of read(file).matchAll(/\]\(([^)#\s]+)(#[^)]*)?\)/g)) {
        const target = m[1] ?? '';
        if (!/^[a-z]+:/.test(target) && !existsSync(join(DOCS_DIR, target))) missing.push(`${file} -> ${target}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('contain no absolute path of the machine they were generated on', () => {
    for (const file of docFiles()) {
      const text = read(file);
      expect(text.includes(PROJECT_ROOT), file).toBe(false);
      // The chapters quote real outputs: no home or temporary folder may leak into them either.
      if (/^\d\d-/.test(file) || file === 'README.md')
        expect(text, file).not.toMatch(/(^|[\s(`"'])\/(home|Users|tmp|root|work)\//m);
    }
  });
});

/** Steps the chapters' prose refers to by number: if a fixture changes under them, the prose must change too. */
const citedSteps: Array<
  [chapter: string, story: string, step: number, command: Record<string, unknown>, reply: Record<string, unknown>]
> = [
  ['01', 'normal', 2, { type: 'claim', worker: 'worker-1' }, { ok: true, job: { token: 1, leaseUntil: 5 } }],
  ['01', 'normal', 3, { type: 'commit' }, { ok: true, applied: true, balance: 1 }],
  ['01', 'normal', 4, { type: 'ack' }, { ok: true }],
  ['01', 'normal', 5, { type: 'claim', now: 5 }, { ok: true, job: null }],
  ['01', 'exact-lease-equality', 4, { type: 'ack', token: 1, now: 15 }, { ok: false, code: 'stale_token' }],
  ['02', 'lost-ack-safe-replay', 6, { type: 'ack', worker: 'worker-1', token: 2 }, { ok: false, code: 'not_owner' }],
  ['02', 'lost-ack-safe-replay', 8, { type: 'ack', worker: 'worker-1', token: 1 }, { ok: false, code: 'stale_token' }],
  ['02', 'lease-boundary-now4-now5', 4, { type: 'commit', worker: 'worker-1', now: 4 }, { ok: true }],
  [
    '02',
    'lease-boundary-now4-now5',
    5,
    { type: 'commit', worker: 'worker-1', now: 5 },
    { ok: false, code: 'stale_token' },
  ],
  ['03', 'early-ack', 3, { type: 'ack' }, { ok: true }],
  ['03', 'early-ack', 4, { type: 'commit' }, { ok: false, code: 'stale_token' }],
  ['03', 'early-ack', 5, { type: 'claim' }, { ok: true, job: null }],
  ['03', 'lost-ack-safe-replay', 7, { type: 'commit', token: 2 }, { ok: true, applied: false, balance: 1 }],
  ['03', 'changed-payload-same-key', 5, { type: 'submit', id: 'J-12' }, { ok: false, code: 'conflict' }],
  ['03', 'changed-payload-same-key', 8, { type: 'commit' }, { ok: false, code: 'conflict' }],
];

describe('the stories the chapters cite by step number', () => {
  it.each(citedSteps)(
    'chapter %s: %s step %i is still the command and reply the prose describes',
    (_chapter, story, index, command, reply) => {
      const step = traceStory(findStory(story)).steps[index - 1];
      expect(isSubset(command, step?.command)).toBe(true);
      expect(isSubset(reply, step?.reply)).toBe(true);
    },
  );

  it('include the lease expiry in the same step as the refused acknowledgement at tick 15', () => {
    const step = traceStory(findStory('exact-lease-equality')).steps[3];
    expect(step?.transitions).toContain('running --ADVANCE [leaseExpired]--> ready');
  });
});

describe('the claims chapter 5 makes about its quoted outputs', () => {
  it('still hold: the 100-run check with seed 7 misses out_of_range, and the 500-run report hits it', () => {
    const text = read('05-reading-coverage.md');
    expect(text).toMatch(/--seed 7 --runs 100[\s\S]*?rejections 6\/7/);
    expect(text).toMatch(/\| rejection `out_of_range` \| [1-9]\d* \|/);
  });
});

describe('the lifecycle diagram', () => {
  it('has one edge per declared transition, labelled with its event and guard', () => {
    const edges = lifecycleMermaid()
      .split('\n')
      .filter((l) => l.includes('-->') && !l.includes('[*]'))
      .map((l) => l.trim());
    expect(edges).toHaveLength(lifecycleTransitions().length);
    for (const t of lifecycleTransitions()) {
      const guard = t.guard === null ? '' : ` [${t.guard}]`;
      expect(
        edges.some((e) => e.startsWith(`${t.from} --> ${t.to}: ${t.event}${guard}`)),
        t.id,
      ).toBe(true);
    }
  });

  it('keeps every label free of the characters that end a Mermaid description (: ; #)', () => {
    for (const line of lifecycleMermaid()
      .split('\n')
      .filter((l) => l.includes('-->'))) {
      const label = line.slice(line.indexOf(':') + 1);
      expect(label, line).not.toMatch(/[:;#]/);
    }
  });
});

describe('generated regions', () => {
  const doc =
    'intro\n<!-- generated:a -->\nold\n<!-- /generated -->\nprose\n<!-- generated:b:x -->\n<!-- /generated -->\nend\n';

  it('replace only the text between the markers and leave the prose alone', () => {
    const out = replaceRegions(doc, (name) => `new ${name}`);
    expect(out).toBe(
      'intro\n<!-- generated:a -->\nnew a\n<!-- /generated -->\nprose\n<!-- generated:b:x -->\nnew b:x\n<!-- /generated -->\nend\n',
    );
    expect(replaceRegions(out, (name) => `new ${name}`)).toBe(out);
  });

  it('refuse a region the generator does not know, naming the line', () => {
    expect(() => replaceRegions(doc, (name) => (name === 'a' ? 'x' : undefined), 'docs/x.md')).toThrow(
      'docs/x.md:6: unknown generated region "b:x"',
    );
  });

  it('leave a region alone that another tool owns, when asked not to be strict', () => {
    expect(replaceRegions(doc, (name) => (name === 'a' ? 'x' : undefined), 'docs/x.md', false)).toContain(
      '<!-- generated:b:x -->\n<!-- /generated -->',
    );
  });

  it('refuse a region that is not closed', () => {
    expect(() => findRegions('<!-- generated:a -->\nbody\n', 'docs/y.md')).toThrow(
      'docs/y.md:1: region a is not closed',
    );
  });
});

describe('quoted commands', () => {
  it('are rerun and a stale output is replaced by the real one', async () => {
    const stale = '```console\n$ npx jobcheck demo no-such-story\nan output nobody printed\n```\n';
    const fresh = await refreshConsoleBlocks(stale, 'test.md');
    expect(fresh).not.toContain('an output nobody printed');
    expect(fresh).toContain('jobcheck demo: no fixture named "no-such-story"');
  });

  it('run only in chapters, the index, and pages that ask for it', () => {
    expect(runsConsoleBlocks('docs/03-idempotency.md', '')).toBe(true);
    expect(runsConsoleBlocks('docs/protocol.md', 'plain page')).toBe(false);
    expect(runsConsoleBlocks('docs/protocol.md', '<!-- jobcheck:run-console-blocks -->')).toBe(true);
  });

  it('are split into words the way a shell would split simple quoting', () => {
    expect(splitWords(`npx jobcheck check --impl "python3 examples/python/jobstore.py" --seed '7'`)).toEqual([
      'npx',
      'jobcheck',
      'check',
      '--impl',
      'python3 examples/python/jobstore.py',
      '--seed',
      '7',
    ]);
  });

  it('leave slow blocks alone unless asked to run them', async () => {
    const block = '```console slow\n$ npx jobcheck demo no-such-story\nkept as it is\n```\n';
    expect(await refreshConsoleBlocks(block, 'test.md', { runSlow: false })).toBe(block);
    expect(await refreshConsoleBlocks(block, 'test.md', { runSlow: true })).not.toContain('kept as it is');
  });

  it('are compared without the durations they measured and the stores run at once', () => {
    expect(withoutMachineFigures('verdict: AGREE (22.5 s), shrunk in 250 ms')).toBe(
      'verdict: AGREE (<duration>), shrunk in <duration>',
    );
    expect(withoutMachineFigures('leaseTicks 5, 13 stories')).toBe('leaseTicks 5, 13 stories');
    expect(withoutMachineFigures('restarts 0.1 s cold; 2 stores at once')).toBe(
      withoutMachineFigures('restarts 0.3 s cold; 4 stores at once'),
    );
  });

  it('print the project folder as . and drop colour codes', () => {
    expect(normalizeOutput('\x1b[31mfailed\x1b[0m in /some/root/impl/x.ts  \n\n', '/some/root')).toBe(
      'failed in ./impl/x.ts',
    );
  });
});
