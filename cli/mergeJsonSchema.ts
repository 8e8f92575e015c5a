/**
 * The format of `jobcheck merge --json`, as a zod schema, and the verdicts a reader derives from
 * it. A merge file comes back from outside (`jobcheck github --from`, a CI artifact anyone could
 * have edited), so it is validated here, once, and its verdicts are never taken from it: the
 * merged verdict is worked out again from its parts' results, and each result's from what it
 * says happened (checkResultVerdict), never kinder than either.
 */
import { z } from 'zod';
import { checkResultSchema } from './checkJsonSchema.ts';
import type { CheckResultJson } from './checkJsonSchema.ts';

/** The version tag of `jobcheck merge --json`. */
export const MERGE_JSON_FORMAT = 'jobcheck.merge/1' as const;
/** Most parts of one merge (the most shards `--shard` splits a check into). */
export const MAX_MERGE_PARTS = 1000;

/** The verdict of a check. */
export type Verdict = CheckResultJson['verdict'];

const verdict = z.enum(['agree', 'diverge', 'incomplete']);

/** The schema of `jobcheck merge --json`. Unknown fields are allowed (a newer jobcheck may add some) and dropped. */
export const mergeResultSchema = z
  .object({
    format: z.literal(MERGE_JSON_FORMAT),
    verdict: verdict.describe('the merged verdict; a reader works it out again from results'),
    target: z.string(),
    seed: z.int(),
    runs: z.int().min(0),
    parts: z
      .array(
        z.object({
          label: z.string(),
          file: z.string(),
          verdict,
          stoppedByTimeLimit: z.boolean(),
          notAPass: z
            .string()
            .nullable()
            .optional()
            .describe('why the part is incomplete when the time limit is not the reason (absent from older files)'),
        }),
      )
      .max(MAX_MERGE_PARTS),
    coverage: checkResultSchema.shape.coverage,
    results: z.array(checkResultSchema).min(1).max(MAX_MERGE_PARTS),
    report: z.object({ dir: z.string(), coverageMd: z.string(), junit: z.string().optional() }),
  })
  .refine((m) => m.parts.length === m.results.length, {
    path: ['parts'],
    message: 'must hold one part for each of the results',
  });

/** What `jobcheck merge --json` prints. */
export type MergeResultJson = z.infer<typeof mergeResultSchema>;

/** The merged verdict of the parts of one check: diverge if any diverged, else incomplete if any was, else agree. Pure. */
export function mergeVerdicts(verdicts: readonly Verdict[]): Verdict {
  if (verdicts.includes('diverge')) return 'diverge';
  if (verdicts.length === 0 || verdicts.includes('incomplete')) return 'incomplete';
  return 'agree';
}

/**
 * The verdict a check result stands for, from what it says happened: diverge when anything in it
 * diverged (a failure, a failing fixture or path, a diverging phase), incomplete when anything was
 * cut short or not decided, and never kinder than the verdict it states. Pure.
 */
export function checkResultVerdict(r: CheckResultJson): Verdict {
  const diverged =
    r.failure !== null ||
    r.fixtures.failed.length > 0 ||
    r.paths.failed.length > 0 ||
    r.campaign.verdict === 'diverge' ||
    r.restore?.verdict === 'diverge' ||
    (r.exploration !== null && ['diverge', 'violation'].includes(r.exploration.verdict)) ||
    r.concurrent?.verdict === 'failed';
  const cutShort =
    r.stoppedByTimeLimit ||
    r.fixtures.notRun.length > 0 ||
    r.paths.notRun.length > 0 ||
    r.campaign.verdict === 'incomplete' ||
    r.campaign.stoppedByTimeLimit ||
    r.exploration?.verdict === 'incomplete' ||
    r.concurrent?.verdict === 'unknown' ||
    r.concurrent?.verdict === 'time_limit' ||
    r.concurrent?.verdict === 'not_exercised' ||
    r.restore?.verdict === 'incomplete' ||
    r.restore?.verdict === 'not_exercised' ||
    (r.notExercised ?? []).length > 0;
  return mergeVerdicts([r.verdict, diverged ? 'diverge' : cutShort ? 'incomplete' : 'agree']);
}

/** The merged verdict of a merge file, worked out from its results alone. Pure. */
export const mergeFileVerdict = (m: MergeResultJson): Verdict => mergeVerdicts(m.results.map(checkResultVerdict));
