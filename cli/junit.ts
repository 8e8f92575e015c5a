/**
 * JUnit XML for CI systems: one test suite per phase of the check, one test case per fixture
 * story, per path of the path suite, and one for the random campaign; a failing case carries its
 * story as the failure text. Pure.
 */
import { renderStory } from '../conformance/story.ts';
import type { CheckReport } from './check.ts';
import type { CheckContext } from './checkOutput.ts';
import { renderFixtureStory } from './checkOutput.ts';

/** Escapes text for XML attributes and content, dropping characters XML 1.0 cannot hold. Pure. */
export function xmlEscape(text: string): string {
  return text
    .replace(/[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD]/gu, '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');
}

interface Case {
  readonly name: string;
  readonly ms: number;
  /** One-line failure message and the story, when the case failed. */
  readonly failure?: { readonly message: string; readonly text: string };
}

function suite(name: string, cases: readonly Case[]): string {
  const failures = cases.filter((c) => c.failure !== undefined).length;
  const time = cases.reduce((t, c) => t + c.ms, 0) / 1000;
  const body = cases.map((c) => {
    const head = `    <testcase classname="${xmlEscape(name)}" name="${xmlEscape(c.name)}" time="${(c.ms / 1000).toFixed(3)}"`;
    if (c.failure === undefined) return `${head}/>`;
    return `${head}>\n      <failure message="${xmlEscape(c.failure.message)}" type="divergence">${xmlEscape(c.failure.text)}</failure>\n    </testcase>`;
  });
  return [`  <testsuite name="${xmlEscape(name)}" tests="${cases.length}" failures="${failures}" errors="0" skipped="0" time="${time.toFixed(3)}">`, ...body, '  </testsuite>'].join('\n');
}

/** The JUnit XML document of a check. Pure. */
export function checkJunit(report: CheckReport, ctx: CheckContext): string {
  const fixtures: Case[] = report.fixtures.map((f) => ({
    name: f.fixture.name,
    ms: f.durationMs,
    ...(f.result.ok ? {} : { failure: { message: f.result.message, text: renderFixtureStory(f) } }),
  }));
  const paths: Case[] = report.paths.outcomes.map((o, i) => {
    const d = o.result.divergence;
    return {
      name: o.path.name,
      ms: report.pathMs[i] ?? 0,
      ...(d === null ? {} : { failure: { message: `diverges at step ${d.step} (${d.kind})`, text: renderStory(o.result) } }),
    };
  });
  const c = report.campaign;
  const campaign: Case[] = [
    {
      name: `random campaign (seed ${ctx.seed}, ${ctx.runs} runs)`,
      ms: c.durationMs,
      ...(c.counterexample === null
        ? {}
        : {
            failure: {
              message: `diverges; shrunk from ${c.firstFailureLength} to ${c.counterexample.steps.length} steps`,
              text: renderStory(c.counterexample, { seed: ctx.seed, path: c.path }),
            },
          }),
    },
  ];
  const all = [...fixtures, ...paths, ...campaign];
  const failures = all.filter((x) => x.failure !== undefined).length;
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="${xmlEscape(`jobcheck ${ctx.target}`)}" tests="${all.length}" failures="${failures}" errors="0" time="${(report.durationMs / 1000).toFixed(3)}">`,
    suite('jobcheck.fixtures', fixtures),
    suite('jobcheck.paths', paths),
    suite('jobcheck.campaign', campaign),
    '</testsuites>',
    '',
  ].join('\n');
}
