/**
 * The lifecycle as documentation, generated from the xstate machine itself (model/lifecycle.ts and
 * the state descriptions in model/jobMachine.ts), so the diagram and the tables cannot drift from
 * the specification: a Mermaid state diagram, a table of states and a table of transitions.
 */
import { JOB_STATES, jobMachine, lifecycleTransitions } from '../../model/index.ts';
import type { LifecycleTransition } from '../../model/index.ts';

/** The label a transition carries in the diagram: event, guard in brackets, dead reason after a slash. Pure. */
export function transitionLabel(t: LifecycleTransition): string {
  const guard = t.guard === null ? '' : ` [${t.guard}]`;
  const reason = t.reason === undefined ? '' : ` / ${t.reason}`;
  return `${t.event}${guard}${reason}`;
}

/**
 * A Mermaid `stateDiagram-v2` of the lifecycle, fenced for Markdown: one edge per declared
 * transition (so `running` to `dead` appears four times, once per reason), plus the entry by
 * submit and the two final states. Pure.
 */
export function lifecycleMermaid(): string {
  const lines = ['```mermaid', 'stateDiagram-v2', '    [*] --> ready: submit (admitted)'];
  for (const t of lifecycleTransitions()) lines.push(`    ${t.from} --> ${t.to}: ${transitionLabel(t)}`);
  for (const s of JOB_STATES) {
    if (jobMachine.root.states[s]?.type === 'final') lines.push(`    ${s} --> [*]`);
  }
  lines.push('```');
  return lines.join('\n');
}

const cell = (text: string): string => text.replace(/\|/g, '\\|');

/** A Markdown table of the states with their descriptions from the machine. Pure. */
export function lifecycleStatesTable(): string {
  const lines = ['| state | final | meaning |', '| --- | --- | --- |'];
  for (const s of JOB_STATES) {
    const node = jobMachine.root.states[s];
    lines.push(`| \`${s}\` | ${node?.type === 'final' ? 'yes' : 'no'} | ${cell(node?.description ?? '')} |`);
  }
  return lines.join('\n');
}

/**
 * A Markdown table of every transition in declaration order. `try` is the position among the
 * candidates for the same state and event: the first whose guard holds is taken. Pure.
 */
export function lifecycleTransitionsTable(): string {
  const lines = [
    '| from | event | try | guard | to | dead reason | actions |',
    '| --- | --- | --- | --- | --- | --- | --- |',
  ];
  for (const t of lifecycleTransitions()) {
    const guard = t.guard === null ? '(none)' : `\`${cell(t.guard)}\``;
    const actions = t.actions.length === 0 ? '(none)' : t.actions.map((a) => `\`${a}\``).join(', ');
    lines.push(
      `| \`${t.from}\` | ${t.event} | ${t.order + 1} | ${guard} | \`${t.to}\` | ${t.reason ?? ''} | ${actions} |`,
    );
  }
  return lines.join('\n');
}
