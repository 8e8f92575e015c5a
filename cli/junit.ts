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
  /** Why the case did not run (the time limit). */
  readonly skipped?: string;
  /** A case that could not reach a verdict (the time limit stopped it): a JUnit error, so that CI shows it. */
  readonly error?: string;
}

function testcase(suiteName: string, c: Case): string {
  const head = `    <testcase classname="${xmlEscape(suiteName)}" name="${xmlEscape(c.name)}" time="${(c.ms / 1000).toFixed(3)}"`;
  if (c.failure !== undefined) return `${head}>\n      <failure message="${xmlEscape(c.failure.message)}" type="divergence">${xmlEscape(c.failure.text)}</failure>\n    </testcase>`;
  if (c.error !== undefined) return `${head}>\n      <error message="${xmlEscape(c.error)}" type="time_limit"/>\n    </testcase>`;
  if (c.skipped !== undefined) return `${head}>\n      <skipped message="${xmlEscape(c.skipped)}"/>\n    </testcase>`;
  return `${head}/>`;
}

const countOf = (cases: readonly Case[], key: 'failure' | 'error' | 'skipped'): number => cases.filter((c) => c[key] !== undefined).length;

function suite(name: string, cases: readonly Case[]): string {
  const time = cases.reduce((t, c) => t + c.ms, 0) / 1000;
  const head = `  <testsuite name="${xmlEscape(name)}" tests="${cases.length}" failures="${countOf(cases, 'failure')}" errors="${countOf(cases, 'error')}" skipped="${countOf(cases, 'skipped')}" time="${time.toFixed(3)}">`;
  return [head, ...cases.map((c) => testcase(name, c)), '  </testsuite>'].join('\n');
}

const NOT_RUN = 'not run: the time limit of the check was reached first';

/** The JUnit XML document of a check. Pure. */
export function checkJunit(report: CheckReport, ctx: CheckContext): string {
  const fixtures: Case[] = [
    ...report.fixtures.map((f) => ({
      name: f.fixture.name,
      ms: f.durationMs,
      ...(f.result.ok ? {} : { failure: { message: f.result.message, text: renderFixtureStory(f) } }),
    })),
    ...report.fixturesNotRun.map((name) => ({ name, ms: 0, skipped: NOT_RUN })),
  ];
  const paths: Case[] = [
    ...report.paths.outcomes.map((o, i) => {
      const d = o.result.divergence;
      return {
        name: o.path.name,
        ms: report.pathMs[i] ?? 0,
        ...(d === null ? {} : { failure: { message: `diverges at step ${d.step} (${d.kind})`, text: renderStory(o.result) } }),
      };
    }),
    ...report.paths.notRun.map((p) => ({ name: p.name, ms: 0, skipped: NOT_RUN })),
  ];
  const c = report.campaign;
  const campaign: Case[] = [
    {
      name: `random campaign (seed ${ctx.seed}, ${ctx.runs} runs)`,
      ms: c.durationMs,
      ...(c.counterexample !== null
        ? {
            failure: {
              message: `diverges; shrunk from ${c.firstFailureLength} to ${c.counterexample.steps.length} steps`,
              text: renderStory(c.counterexample, { seed: ctx.seed, path: c.path }),
            },
          }
        : c.verdict === 'incomplete'
          ? { error: `stopped by the time limit after ${c.runs} of ${c.runsPlanned} runs, none diverging (not a pass)` }
          : {}),
    },
  ];
  // One case per explored config: complete, diverging (with its story), or not run to the end.
  const exploration: Case[] =
    report.exploration === null
      ? report.explorationLeftOut
        ? []
        : [{ name: 'exploration', ms: 0, skipped: NOT_RUN }]
      : report.exploration.configs.map((x) => ({
          name: `exploration ${x.part}/${x.name}`,
          ms: x.durationMs,
          ...(x.counterexample !== null
            ? { failure: { message: x.counterexample.message, text: x.counterexample.story } }
            : x.verdict === 'incomplete'
              ? { error: `stopped after ${x.states} states, before the scope was explored in full (not a pass)` }
              : {}),
        }));
  const all = [...fixtures, ...paths, ...campaign, ...exploration];
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="${xmlEscape(`jobcheck ${ctx.target}`)}" tests="${all.length}" failures="${countOf(all, 'failure')}" errors="${countOf(all, 'error')}" skipped="${countOf(all, 'skipped')}" time="${(report.durationMs / 1000).toFixed(3)}">`,
    suite('jobcheck.fixtures', fixtures),
    suite('jobcheck.paths', paths),
    suite('jobcheck.campaign', campaign),
    suite('jobcheck.exploration', exploration),
    '</testsuites>',
    '',
  ].join('\n');
}
