/**
 * Editing a story in the lab: a step's command changed field by field, a step inserted or
 * deleted. Every edit is checked by the contract's own command schemas (contract/schema.ts,
 * bundled into the page with the model) before it touches the story: a malformed one comes back
 * as the contract's typed refusal (`invalid_argument`, naming the field and the bad value) and the
 * story is left as it was, never half-edited. An edited story keeps no expectation of the story it
 * came from (the model's answer is the only record of it). Pure; runs in the page and in Node.
 */
import type { Rejection } from '../../../contract/index.ts';
import { parseCommandBySchema } from '../../../contract/schema.ts';
import type { LabStoryStep } from './labStep.ts';

/** The fields of each command type, in the order the editor shows them (the contract's own fields). */
export const COMMAND_FIELDS = {
  submit: ['id', 'account', 'key', 'amount', 'deadline', 'now'],
  claim: ['worker', 'now'],
  commit: ['worker', 'token', 'now'],
  ack: ['worker', 'token', 'now'],
  fail: ['worker', 'token', 'kind', 'error', 'now'],
  tick: ['now'],
} as const;

/** A command's type, as the editor offers it. */
export type CommandType = keyof typeof COMMAND_FIELDS;

/** The fields the contract holds to be whole numbers: text typed into them is read as a number when it is one. */
const NUMBER_FIELDS: ReadonlySet<string> = new Set(['amount', 'deadline', 'now', 'token']);

/** One edit of a story: a step's command set, a command inserted before `at` (0-based), a step deleted. */
export type StoryEdit =
  | { readonly op: 'set'; readonly at: number; readonly command: Readonly<Record<string, unknown>> }
  | { readonly op: 'insert'; readonly at: number; readonly command: Readonly<Record<string, unknown>> }
  | { readonly op: 'delete'; readonly at: number };

/** The outcome of an edit: the edited steps, or the contract's refusal with the story unchanged. */
export type EditOutcome =
  | { readonly ok: true; readonly steps: LabStoryStep[] }
  | { readonly ok: false; readonly refusal: Rejection };

/**
 * A command from the editor's text fields: the type's fields in the contract's order, each whole
 * number typed into a numeric field read as a number, anything else kept as typed (so the schema
 * names it). Fields the type does not have are left out. Pure.
 */
export function commandFromFields(type: string, fields: Readonly<Record<string, string>>): Record<string, unknown> {
  const names: readonly string[] = Object.hasOwn(COMMAND_FIELDS, type) ? COMMAND_FIELDS[type as CommandType] : [];
  const command: Record<string, unknown> = { type };
  for (const name of names) {
    const text = Object.hasOwn(fields, name) ? (fields[name] ?? '') : '';
    command[name] = NUMBER_FIELDS.has(name) && /^-?\d+$/.test(text.trim()) ? Number(text.trim()) : text;
  }
  return command;
}

const refused = (message: string): EditOutcome => ({
  ok: false,
  refusal: { ok: false, code: 'invalid_argument', message },
});

/** A story step with its record of the original story dropped: only what the learner asked for. */
const bare = (s: LabStoryStep): LabStoryStep => {
  if ('do' in s) return { do: s.do };
  if (s.restart === true) return { restart: true };
  return s.aliasSnapshot === true ? { aliasSnapshot: true } : { aliasRestore: true };
};

/**
 * Applies `edit` to `steps`: the command is checked by the contract's schema first, and a position
 * outside the story is refused too. Returns new steps, every one without the original story's
 * expectations; `steps` is not changed. Pure.
 */
export function editStory(steps: readonly LabStoryStep[], edit: StoryEdit): EditOutcome {
  const last = edit.op === 'insert' ? steps.length : steps.length - 1;
  if (!Number.isInteger(edit.at) || edit.at < 0 || edit.at > last)
    return refused(`step: must be between 1 and ${last + 1} (got ${edit.at + 1})`);
  if (edit.op !== 'delete') {
    const parsed = parseCommandBySchema(edit.command);
    if (!parsed.ok) return { ok: false, refusal: parsed.rejection };
  } else if (steps.length === 1) return refused('step: a story keeps at least one step (got a delete of the last one)');
  const out = steps.map(bare);
  if (edit.op === 'set') out[edit.at] = { do: { ...edit.command } };
  else if (edit.op === 'insert') out.splice(edit.at, 0, { do: { ...edit.command } });
  else out.splice(edit.at, 1);
  return { ok: true, steps: out };
}
