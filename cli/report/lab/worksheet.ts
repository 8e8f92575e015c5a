/**
 * The lab's worksheet: everything a learner predicted and observed (each play of a story with its
 * predictions beside the model's replies, the edited stories, the exercises' answers, the score,
 * the answer in their own words to which component recognises a repeat and what evidence it
 * stores), as a versioned JSON file. A file read back is checked by the zod schema here, once: a
 * bad one is WorksheetError `invalid_worksheet` naming the field and the bad value, and nothing of
 * it is taken. A worksheet read and written again is the same text (written in the schema's key order).
 * Pure; runs in the page and in Node.
 */
import { z } from 'zod';
import { CodedError } from '../../../contract/CodedError.ts';
import { describeIssue } from '../../../contract/schema.ts';

/** The format tag and version every worksheet file carries. */
export const WORKSHEET_FORMAT = 'jobcheck-lab-worksheet';
export const WORKSHEET_VERSION = 1;

/** Most plays a worksheet keeps; a class hands in files, not archives. */
export const MAX_PLAYS = 200;

/** A worksheet file that cannot be read: the message names the field and the value. */
export class WorksheetError extends CodedError<'invalid_worksheet'> {
  override name = 'WorksheetError' as const;
  constructor(message: string) {
    super('invalid_worksheet', message);
  }
}

const text = (max: number) => z.string().max(max, `must be at most ${max} characters`);
const count = z.int().min(0, 'must be >= 0');
const object = z.record(z.string(), z.unknown());

const storyStepSchema = z.union([
  z.strictObject({ do: object }),
  z.strictObject({ restart: z.literal(true) }),
  z.strictObject({ aliasSnapshot: z.literal(true) }),
  z.strictObject({ aliasRestore: z.literal(true) }),
]);

const predictionSchema = z.strictObject({
  outcome: z.enum(['accepted', 'refused', '']).nullable(),
  jobs: z.record(text(200), z.strictObject({ status: text(20).nullable(), token: text(40).nullable() })),
  balance: text(40),
});

const moveSchema = z.strictObject({ job: text(200), from: text(20), to: text(20) });

const traceStepSchema = z.strictObject({
  step: z.int().min(1, 'must be >= 1'),
  command: text(2000),
  do: object.optional(),
  reply: object.optional(),
  outcome: text(2000).optional(),
  moves: z.array(moveSchema).max(100),
  prediction: predictionSchema.optional(),
  points: count,
  of: count,
});

const playSchema = z.strictObject({
  story: text(200),
  title: text(500),
  edited: z.boolean(),
  focus: z.strictObject({ job: text(200), account: text(200) }),
  steps: z.array(storyStepSchema).max(500),
  trace: z.array(traceStepSchema).max(500),
});

const exerciseSchema = z.strictObject({
  answers: z.record(text(40), text(40)),
  reasoning: text(5000),
  run: z
    .strictObject({
      job: text(200),
      right: z.record(text(40), text(40)),
      points: count,
      of: count,
      before: z.array(traceStepSchema).max(500),
      after: z.array(traceStepSchema).max(500),
    })
    .optional(),
});

/** The schema of a worksheet file. */
export const worksheetSchema = z.strictObject({
  format: z.literal(WORKSHEET_FORMAT),
  version: z.literal(WORKSHEET_VERSION),
  learner: text(200),
  answer: text(20000),
  score: z.strictObject({ points: count, asked: count }),
  plays: z.array(playSchema).max(MAX_PLAYS, `must hold at most ${MAX_PLAYS} plays`),
  exercises: z.partialRecord(
    z.enum(['changed-key', 'changed-payload', 'lease-boundary', 'interruption']),
    exerciseSchema,
  ),
});

/** A worksheet. */
export type Worksheet = z.output<typeof worksheetSchema>;
/** One play of a story in a worksheet. */
export type WorksheetPlay = Worksheet['plays'][number];
/** One step of a play, with the prediction when one was made. */
export type WorksheetStep = WorksheetPlay['trace'][number];
/** An exercise's answers and, once run, what the model did. */
export type WorksheetExercise = z.output<typeof exerciseSchema>;

/** An empty worksheet. Pure. */
export const emptyWorksheet = (): Worksheet => ({
  format: WORKSHEET_FORMAT,
  version: WORKSHEET_VERSION,
  learner: '',
  answer: '',
  score: { points: 0, asked: 0 },
  plays: [],
  exercises: {},
});

/** Reads a worksheet from its file's text; throws WorksheetError naming the bad field and value. Pure. */
export function parseWorksheet(fileText: string): Worksheet {
  let value: unknown;
  try {
    value = JSON.parse(fileText);
  } catch (error) {
    throw new WorksheetError(`worksheet: not JSON (${error instanceof Error ? error.message : String(error)})`);
  }
  const result = worksheetSchema.safeParse(value);
  if (!result.success)
    throw new WorksheetError(`worksheet: ${describeIssue(result.error, value, 'worksheet').message}`);
  return result.data;
}

/**
 * A worksheet as its file's text: two-space JSON in the schema's key order (so that what is read
 * back is written again the same, however it was built) and a final newline. Throws WorksheetError
 * for a worksheet the schema would refuse to read back. Pure.
 */
export function worksheetText(sheet: Worksheet): string {
  const result = worksheetSchema.safeParse(sheet);
  if (!result.success)
    throw new WorksheetError(`worksheet: ${describeIssue(result.error, sheet, 'worksheet').message}`);
  return `${JSON.stringify(result.data, null, 2)}\n`;
}
