/**
 * A story handed to the lab from outside, in its address (`index.html#story=<JSON>`): a failure
 * page links its story so, for someone who hit a divergence to try variations of it against the
 * model. The link is made here (`sharedStoryHash`) and read back here (`parseSharedStory`, in the
 * page): the JSON is checked by the zod schema once, a bad one is LabStoryError `invalid_story`
 * naming the field and the value. The commands themselves are not checked: a failure may hold a
 * malformed command on purpose, and the model answers it with the contract's refusal. Pure.
 */
import { z } from 'zod';
import { CodedError } from '../../../contract/CodedError.ts';
import { configSchema, describeIssue } from '../../../contract/schema.ts';
import type { LabStory } from './labSection.ts';

/** A story in a lab address that cannot be opened. */
export class LabStoryError extends CodedError<'invalid_story'> {
  override name = 'LabStoryError' as const;
  constructor(message: string) {
    super('invalid_story', message);
  }
}

/** Most steps a shared story may hold (a shrunk failure is far shorter). */
export const MAX_SHARED_STEPS = 500;

const nonEmpty = z.string().min(1, 'must be a non-empty string').max(500, 'must be at most 500 characters');

const sharedStorySchema = z.strictObject({
  name: nonEmpty,
  title: z.string().max(2000),
  story: z.string().max(5000),
  config: configSchema,
  focus: z.strictObject({ job: nonEmpty, account: nonEmpty }),
  steps: z
    .array(
      z.union([
        z.strictObject({ do: z.record(z.string(), z.unknown()) }),
        z.strictObject({ restart: z.literal(true) }),
        z.strictObject({ aliasSnapshot: z.literal(true) }),
        z.strictObject({ aliasRestore: z.literal(true) }),
      ]),
    )
    .min(1, 'must hold at least one step')
    .max(MAX_SHARED_STEPS, `must hold at most ${MAX_SHARED_STEPS} steps`),
});

/** A story as a lab address carries it. */
export type SharedStory = z.output<typeof sharedStorySchema>;

/** The address fragment that opens `story` in the lab (`#story=` and the JSON, percent-encoded). Pure. */
export const sharedStoryHash = (story: SharedStory): string => `#story=${encodeURIComponent(JSON.stringify(story))}`;

/** Reads the JSON of a lab address's story; throws LabStoryError naming the bad field and value. Pure. */
export function parseSharedStory(json: string): LabStory {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch (error) {
    throw new LabStoryError(`story: not JSON (${error instanceof Error ? error.message : String(error)})`);
  }
  const result = sharedStorySchema.safeParse(value);
  if (!result.success) throw new LabStoryError(`story: ${describeIssue(result.error, value, 'story').message}`);
  const s = result.data;
  return { ...s, final: null };
}
