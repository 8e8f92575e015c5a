/**
 * A profile told for people: a Markdown page (what docs/profiles/ holds) with a table rule →
 * result and a section per departure with its story, and the short text `jobcheck profile`
 * prints. Both are pure functions of the profile, so a fixed seed gives the same page.
 */
import { ruleOf } from '../../contract/rules.ts';
import type { Profile, RuleResult } from './result.ts';

/** A result in a few words: `conforms (412 commands)`, `departs (4 steps)`, `unsupported`. Pure. */
export function describeResult(r: RuleResult): string {
  const against = r.variant === undefined ? '' : ` to variant \`${r.variant}\``;
  switch (r.status) {
    case 'conforms':
      return `conforms (${r.commands} commands)`;
    case 'variant':
      return `conforms${against} (${r.commands} commands)`;
    case 'departs':
      return `**departs**${r.variant === undefined ? '' : ` from variant \`${r.variant}\``} (${r.departure?.steps ?? '?'} steps)`;
    case 'unsupported':
      return 'unsupported (declared)';
    case 'not_reached':
      return 'not reached';
    case 'budget_exhausted':
      return `budget exhausted${against} (${r.commands} commands so far)`;
  }
}

const cell = (text: string): string => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
const anchor = (r: RuleResult): string => `departure-${r.rule}`;

/** The Markdown page of a profile. Pure. */
export function renderProfileMarkdown(
  p: Profile,
  options: { readonly title?: string; readonly contractLink?: string } = {},
): string {
  const contract = options.contractLink ?? '../contract.md';
  const lines: string[] = [];
  lines.push(`# ${options.title ?? `${p.queue} ${p.version}`}`, '');
  lines.push(
    `Profile of \`${p.adapter}\` against the contract, rule by rule (format \`${p.format}\`): seed ${p.seed}, ${p.runs} targeted runs per rule of at most ${p.maxCommands} commands, plus the fixture stories. Verdict: **${p.verdict}**.`,
    '',
  );
  lines.push('| rule | result | runs | fixtures | declared |', '| --- | --- | ---: | ---: | --- |');
  for (const r of p.rules) {
    const result = r.status === 'departs' ? `[${describeResult(r)}](#${anchor(r)})` : describeResult(r);
    const declared = r.why === undefined ? '' : r.why;
    const upstream = r.upstream === undefined ? '' : ` ([upstream](${r.upstream}))`;
    lines.push(
      `| [\`${r.rule}\`](${contract}#rule-${r.rule}) | ${cell(result)} | ${r.runs} | ${r.fixtures.length} | ${cell(declared)}${upstream} |`,
    );
  }
  lines.push('');
  lines.push(
    '"conforms" means that many commands exercised the rule (model/rules.ts) and agreed with the model; "not reached" and "budget exhausted" say nothing about the implementation. A departure is attributed to the rule whose decision the first differing field is.',
  );
  const departing = p.rules.filter((r) => r.departure !== undefined);
  for (const r of departing) {
    const d = r.departure;
    if (d === undefined) continue;
    const rule = ruleOf(r.rule);
    lines.push('', `## <a id="${anchor(r)}"></a>Departure: \`${r.rule}\``, '');
    lines.push(`> ${rule.sentence}`, '');
    const where =
      d.source === 'fixture'
        ? `the fixture \`${d.fixture}\``
        : `the targeted campaign of \`${d.campaign}\` (seed ${d.seed}, path \`${d.path}\`), shrunk from ${d.unshrunkSteps} to ${d.steps} steps`;
    lines.push(
      `Found by ${where}. First difference at step ${d.divergence.step}: \`${d.divergence.field}\`, model ${d.divergence.model}, implementation ${d.divergence.impl}.`,
    );
    if (r.upstream !== undefined) lines.push('', `Upstream: ${r.upstream}`);
    lines.push('', '```text', d.story, '```', '', `Replay: \`${d.replay}\``);
  }
  if (p.unattributed.length > 0) {
    lines.push('', '## Divergences no rule decides', '');
    for (const u of p.unattributed) {
      lines.push(
        `Found by ${u.source === 'fixture' ? `the fixture \`${u.fixture}\`` : `the campaign of \`${u.campaign}\` (seed ${u.seed}, path \`${u.path}\`)`}:`,
        '',
      );
      lines.push('```text', u.story, '```', '');
    }
  }
  return `${lines.join('\n')}\n`;
}

/** The short text `jobcheck profile` prints: one line per rule, then each departure's story. Pure. */
export function renderProfileText(p: Profile): string {
  const width = Math.max(...p.rules.map((r) => r.rule.length));
  const lines = [`${p.adapter} (${p.queue} ${p.version}): ${p.verdict}, seed ${p.seed}, ${p.runs} runs per rule`, ''];
  for (const r of p.rules) lines.push(`  ${r.rule.padEnd(width)}  ${describeResult(r).replace(/\*\*|`/g, '')}`);
  for (const r of p.rules) {
    if (r.departure === undefined) continue;
    lines.push('', `departs on ${r.rule}:`, r.departure.story);
  }
  for (const u of p.unattributed) lines.push('', 'a divergence no rule decides:', u.story);
  return `${lines.join('\n')}\n`;
}
