/**
 * A profile told for people: a Markdown page (what docs/profiles/ holds) with its rules' results
 * grouped by consequence (contract/consequences.ts, boundaries last) and a section per departure
 * with its story, and the short text `jobcheck profile` prints. Both are pure functions of the
 * profile, so a fixed seed gives the same page.
 */
import { CONSEQUENCES } from '../../contract/consequences.ts';
import { ruleOf } from '../../contract/rules.ts';
import type { ConcurrentSection, Profile, RaceSection, RuleResult, StaleAckSection } from './result.ts';
import { faultsMarkdown } from './faultsRender.ts';
import { markdownBlock, markdownCode, markdownText, outsideText, terminalBlock } from '../outside/outsideText.ts';

/** `, departed 2 times of 3` for a replayed departure, nothing for one that was not replayed. Pure. */
const replayed = (r: RuleResult): string =>
  r.replays === undefined
    ? ''
    : `, departed ${r.replays.departed} time${r.replays.departed === 1 ? '' : 's'} of ${r.replays.runs}`;

/**
 * The clock a profile ran on, in words: `logical clock` or `wall clock, 1 tick = 1000 ms`; given a
 * medium, followed by the broker's timer settings (`; consumer_timeout 800 ms`), escaped for it. Pure.
 */
export function describeClock(p: Pick<Profile, 'clock'>, medium?: 'markdown' | 'terminal'): string {
  if (p.clock.kind === 'logical') return 'logical clock';
  const tick = `wall clock, 1 tick = ${p.clock.tickMs} ms`;
  if (medium === undefined || p.clock.settings === undefined) return tick;
  return `${tick}; ${medium === 'markdown' ? markdownText(p.clock.settings) : outsideText(p.clock.settings)}`;
}

/** A result in a few words: `conforms (412 commands)`, `departs (4 steps)`, `unsupported`. Pure. */
export function describeResult(r: RuleResult): string {
  const against = r.variant === undefined ? '' : ` to variant \`${r.variant}\``;
  switch (r.status) {
    case 'conforms':
      return `conforms (${r.commands} commands)`;
    case 'variant':
      return `conforms${against} (${r.commands} commands)`;
    case 'departs':
      return `**departs**${r.variant === undefined ? '' : ` from variant \`${r.variant}\``} (${r.departure?.steps ?? '?'} steps${replayed(r)})`;
    case 'flaky':
      return `flaky${r.variant === undefined ? '' : ` against variant \`${r.variant}\``} (${r.departure?.steps ?? '?'} steps${replayed(r)})`;
    case 'unsupported':
      return 'unsupported (declared)';
    case 'not_reached':
      return 'not reached';
    case 'budget_exhausted':
      return `budget exhausted${against} (${r.commands} commands so far)`;
    case 'unknown':
      return `unknown${against} (${r.commands} commands before the broker was lost)`;
  }
}

/** `; replayed 3 times on fresh instances, it failed again 2 times`, or nothing without replays. Pure. */
function replaysText(replays: { readonly runs: number; readonly departed: number } | undefined, did: string): string {
  if (replays === undefined) return '';
  const times = `${replays.departed} time${replays.departed === 1 ? '' : 's'}`;
  return `; replayed ${replays.runs} times on fresh instances, it ${did} again ${times}`;
}

/** The verdict of competing workers in words: `linearizable: every history ...`. Pure. */
export function describeConcurrentVerdict(c: ConcurrentSection): string {
  const done = `${c.runsDone} of ${c.runs} scenario${c.runs === 1 ? '' : 's'} of up to ${c.workers} worker lanes`;
  const replays = replaysText(c.replays, 'failed');
  switch (c.verdict) {
    case 'linearizable':
      return `linearizable: in ${done}, an order of the model explains every history`;
    case 'not_linearizable':
      return `not linearizable: no order of the model explains a history (${done}, shrunk story below${replays})`;
    case 'flaky':
      return `flaky: a history no order of the model explains did not fail often enough again to count (${done}${replays}); neither a departure nor a pass`;
    case 'unknown':
      return `unknown (${done}): ${outsideText(c.reason ?? 'nothing is known')}`;
    case 'budget_exhausted':
      return `budget exhausted after ${done}: the time limit stopped the campaign, so nothing is known (not a pass)`;
    case 'not_run':
      return `not run: ${outsideText(c.reason ?? 'no concurrent factory')}`;
  }
}

/** The lines of the "Competing workers" section (Markdown when `markdown`, else text). Pure. */
function concurrentLines(c: ConcurrentSection, markdown: boolean): string[] {
  const lines: string[] = [];
  lines.push(markdown ? '## Competing workers' : 'Competing workers:', '');
  lines.push(
    `${markdown ? '**Verdict**: ' : '  '}${describeConcurrentVerdict(c)}${c.adapter === undefined ? '' : ` (adapter ${markdown ? markdownCode(c.adapter) : outsideText(c.adapter)}, seed ${c.seed})`}.`,
  );
  if (c.avoided.length > 0) {
    lines.push('', markdown ? 'What the scenarios avoided, rule by rule declared unsupported:' : '  Avoided:', '');
    for (const a of c.avoided) lines.push(markdown ? `- \`${a.rule}\`: ${a.why}` : `    ${a.rule}: ${a.why}`);
  }
  if (c.story !== undefined) {
    lines.push('');
    lines.push(markdown ? markdownBlock(c.story) : c.story);
  }
  if (c.replay !== undefined) lines.push('', markdown ? `Replay: \`${c.replay}\`` : `  replay: ${c.replay}`);
  if (c.staleAck !== undefined) lines.push('', ...staleAckLines(c.staleAck, markdown));
  if (c.races !== undefined) lines.push('', ...raceLines(c.races, markdown));
  return lines;
}

/** The verdict of the stale-acknowledgement scenario in words. Pure. */
export function describeStaleAckVerdict(a: StaleAckSection): string {
  const replays = replaysText(a.replays, 'departed');
  switch (a.verdict) {
    case 'kept':
      return "kept: the old holder's ack after the redelivery is refused, the new holder's accepted, as the model answers";
    case 'departs':
      return `departs: no order of the model explains the replies (lanes story below${replays})`;
    case 'flaky':
      return `flaky: the story did not depart often enough again to count (${replays.slice(2)}); neither a departure nor a pass`;
    case 'unknown':
      return `unknown: ${outsideText(a.reason ?? 'nothing is known')}`;
    case 'budget_exhausted':
      return 'budget exhausted: the time limit stopped it, so nothing is known (not a pass)';
  }
}

/** The lines of the stale-acknowledgement scenario (Markdown when `markdown`, else text). Pure. */
function staleAckLines(a: StaleAckSection, markdown: boolean): string[] {
  const lines = [
    markdown ? '### Stale acknowledgement' : 'Stale acknowledgement:',
    '',
    markdown
      ? "One fixed scenario ([staleAck.ts](../../conformance/concurrent/staleAck.ts)): worker w1 claims job a, its lease ends, w2 claims a again, w1 claims b, then w1 acks with the token of its first delivery of a, w2 acks a and w1 acks b. The contract refuses w1's first ack (`stale_token`)."
      : '  (w1 claims a, its lease ends, w2 claims a again, w1 claims b, w1 acks with its old token of a: stale_token)',
    '',
    `${markdown ? '**Verdict**: ' : '  '}${describeStaleAckVerdict(a)}.`,
  ];
  if (a.story !== undefined) {
    lines.push('');
    lines.push(markdown ? markdownBlock(a.story) : a.story);
  }
  if (a.replay !== undefined) lines.push('', markdown ? `Replay: \`${a.replay}\`` : `  replay: ${a.replay}`);
  return lines;
}

/** The verdict of a search for races in words. Pure. */
export function describeRaceVerdict(r: RaceSection): string {
  const done = `${r.runsDone} of ${r.runs} scenario${r.runs === 1 ? '' : 's'}`;
  const excused =
    r.oneAtATime === 0
      ? 'no history was let pass'
      : `${r.oneAtATime} histor${r.oneAtATime === 1 ? 'y' : 'ies'} no order explains had no two requests in flight together, or departed just the same with their requests sent one at a time (in the order sent, or in the closest order), and were let pass (the rules and the section above show those departures)`;
  const replays = replaysText(r.replays, 'departed');
  switch (r.verdict) {
    case 'none_found':
      return `none found in ${done}: ${excused}`;
    case 'race':
      return `a race: a history departs with its requests in flight together, and agrees with the model with them sent one at a time, in the order sent and in the closest order (${done}${replays}; ${excused})`;
    case 'flaky':
      return `flaky: a race did not depart often enough again to count (${done}${replays}); neither a race nor a pass`;
    case 'unknown':
      return `unknown (${done}): ${outsideText(r.reason ?? 'nothing is known')}`;
    case 'budget_exhausted':
      return `budget exhausted after ${done}: the time limit stopped the search, so nothing is known (not a pass)`;
  }
}

/** The lines of the search for races (Markdown when `markdown`, else text). Pure. */
function raceLines(r: RaceSection, markdown: boolean): string[] {
  const lines = [
    markdown ? '### Races' : 'Races:',
    '',
    markdown
      ? 'The same campaign again, letting pass every history whose requests never overlapped, and every one whose requests, sent one at a time to a fresh instance, depart as well, in the order they were sent or in the closest order (the longest prefix the checker explained, then the rest as sent): what remains departs only with requests in flight together.'
      : '  (histories whose requests never overlapped, or that depart one request at a time too, are let pass)',
    '',
    `${markdown ? '**Verdict**: ' : '  '}${describeRaceVerdict(r)}.`,
  ];
  if (r.story !== undefined) {
    lines.push('');
    lines.push(markdown ? markdownBlock(r.story) : r.story);
  }
  if (r.replay !== undefined) lines.push('', markdown ? `Replay: \`${r.replay}\`` : `  replay: ${r.replay}`);
  return lines;
}

const cell = (text: string): string => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
const anchor = (r: RuleResult): string => `departure-${r.rule}`;
const REPLAY_SENTENCE =
  'The queue keeps its own time, so a departure counts only if its shrunk story departs again on at least 2 of 3 replays on fresh instances; one that does not is "flaky", never a pass.';

/**
 * The Markdown page of a profile, its rules grouped by consequence. `reading` is a paragraph of
 * the project's own (a chapter that reads the page), set under the summary. Pure.
 */
export function renderProfileMarkdown(
  p: Profile,
  options: {
    readonly title?: string;
    readonly contractLink?: string;
    readonly reading?: string;
    /** Markdown the page opens with, under its title (docs/tools' record of the queue). */
    readonly opening?: string;
  } = {},
): string {
  const contract = options.contractLink ?? '../contract.md';
  const lines: string[] = [];
  lines.push(`# ${options.title ?? `${p.queue} ${p.version}`}`, '');
  if (options.opening !== undefined) lines.push(options.opening, '');
  lines.push(
    `Profile of ${markdownCode(p.adapter)} against the contract, rule by rule (format \`${p.format}\`, ${describeClock(p, 'markdown')}): seed ${p.seed}, ${p.runs} targeted runs per rule of at most ${p.maxCommands} commands, plus the fixture stories. Verdict: **${p.verdict}**.${p.clock.kind === 'wall' ? ` ${REPLAY_SENTENCE}` : ''}`,
    '',
  );
  if (p.lost !== undefined)
    lines.push(`**Broker lost**: ${markdownText(p.lost)} The rules marked "unknown" are not established.`, '');
  if (options.reading !== undefined) lines.push(options.reading, '');
  lines.push(
    '"conforms" means that many commands exercised the rule (model/rules.ts) and agreed with the model; "not reached" and "budget exhausted" say nothing about the implementation. A departure is attributed to the rule whose decision the first differing field is. The rules are grouped by what a departure costs the handlers of the jobs (contract/consequences.ts), boundaries last.',
  );
  // The tolerance column is there only when the adapter declares tolerances (a queue on its own clock).
  const tolerances = p.rules.some((r) => r.tolerance !== undefined);
  for (const consequence of CONSEQUENCES) {
    const rules = p.rules.filter((r) => consequence.rules.includes(r.rule));
    if (rules.length === 0) continue;
    lines.push('', `## ${consequence.title}`, '', `A departure here means that ${consequence.means}.`, '');
    lines.push(
      `| rule | result |${tolerances ? ' tolerance |' : ''} runs | fixtures | declared |`,
      `| --- | --- |${tolerances ? ' --- |' : ''} ---: | ---: | --- |`,
    );
    for (const r of rules) {
      const result = r.departure !== undefined ? `[${describeResult(r)}](#${anchor(r)})` : describeResult(r);
      const declared = r.why === undefined ? '' : r.why;
      const upstream = r.upstream === undefined ? '' : ` ([upstream](${r.upstream.url}))`;
      const tolerance = tolerances ? ` ${cell(r.tolerance ?? '')} |` : '';
      lines.push(
        `| [\`${r.rule}\`](${contract}#rule-${r.rule}) | ${cell(result)} |${tolerance} ${r.runs} | ${r.fixtures.length} | ${cell(declared)}${upstream} |`,
      );
    }
  }
  const departing = p.rules.filter((r) => r.departure !== undefined);
  for (const r of departing) {
    const d = r.departure;
    if (d === undefined) continue;
    const rule = ruleOf(r.rule);
    const heading =
      r.status === 'flaky'
        ? 'Flaky'
        : r.status === 'budget_exhausted' || r.status === 'unknown'
          ? 'Unconfirmed departure'
          : 'Departure';
    lines.push('', `## <a id="${anchor(r)}"></a>${heading}: \`${r.rule}\``, '');
    lines.push(`> ${rule.sentence}`, '');
    const where =
      d.source === 'fixture'
        ? `the fixture \`${d.fixture}\``
        : `the targeted campaign of \`${d.campaign}\` (seed ${d.seed}, path \`${d.path}\`), shrunk from ${d.unshrunkSteps} to ${d.steps} steps`;
    lines.push(
      `Found by ${where}. First difference at step ${d.divergence.step}: ${markdownCode(d.divergence.field)}, model ${markdownText(d.divergence.model)}, implementation ${markdownText(d.divergence.impl)}.${r.replays === undefined ? '' : ` Replayed ${r.replays.runs} times on fresh instances: departed ${r.replays.departed} time${r.replays.departed === 1 ? '' : 's'} of ${r.replays.runs}${r.status === 'flaky' ? ', too few to count' : r.status === 'budget_exhausted' ? ' before the time limit stopped the rest, too few to decide' : r.status === 'unknown' ? ' before the broker was lost, too few to decide' : ''}.`}`,
    );
    if (r.tolerance !== undefined) lines.push('', `Tolerance: ${r.tolerance}`);
    if (r.upstream !== undefined) lines.push('', `Upstream: ${r.upstream.url}: ${r.upstream.says}`);
    lines.push('', markdownBlock(d.story), '', `Replay: ${markdownCode(d.replay)}`);
  }
  if (p.unattributed.length > 0) {
    lines.push('', '## Divergences no rule decides', '');
    for (const u of p.unattributed) {
      lines.push(
        `Found by ${u.source === 'fixture' ? `the fixture \`${u.fixture}\`` : `the campaign of \`${u.campaign}\` (seed ${u.seed}, path \`${u.path}\`)`}:`,
        '',
      );
      lines.push(markdownBlock(u.story), '');
    }
  }
  if (p.concurrent !== undefined) lines.push('', ...concurrentLines(p.concurrent, true));
  if (p.faults !== undefined) lines.push('', ...faultsMarkdown(p.faults));
  return `${lines.join('\n')}\n`;
}

/**
 * The short text `jobcheck profile` prints: one line per rule, then each departure's story, safe
 * for a terminal (terminalBlock: the stories quote the implementation). Pure.
 */
export function renderProfileText(p: Profile): string {
  const width = Math.max(...p.rules.map((r) => r.rule.length));
  const lines = [
    // A logical clock is the usual case and goes unsaid; a wall clock changes how departures count.
    `${outsideText(p.adapter)} (${p.queue} ${p.version}): ${p.verdict}, seed ${p.seed}, ${p.runs} runs per rule${p.clock.kind === 'wall' ? `, ${describeClock(p, 'terminal')}` : ''}`,
    '',
  ];
  // Said once: every rule it left is `unknown` for this one reason.
  if (p.lost !== undefined) lines.push(`broker lost: ${outsideText(p.lost)}`, '');
  for (const r of p.rules)
    lines.push(
      `  ${r.rule.padEnd(width)}  ${describeResult(r).replace(/\*\*|`/g, '')}${r.tolerance === undefined ? '' : `  [tolerance: ${r.tolerance}]`}`,
    );
  for (const r of p.rules) {
    if (r.departure === undefined) continue;
    const told =
      r.status === 'flaky'
        ? 'flaky'
        : r.status === 'budget_exhausted'
          ? 'unconfirmed (budget exhausted)'
          : r.status === 'unknown'
            ? 'unconfirmed (broker lost)'
            : 'departs';
    lines.push('', `${told} on ${r.rule}:`, r.departure.story);
  }
  for (const u of p.unattributed) lines.push('', 'a divergence no rule decides:', u.story);
  if (p.concurrent !== undefined) lines.push('', ...concurrentLines(p.concurrent, false));
  return terminalBlock(`${lines.join('\n')}\n`);
}
