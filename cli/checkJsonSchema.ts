/**
 * The format of `jobcheck check --json`, as a zod schema: the one place it is defined. checkJson
 * (cli/output/json.ts) builds values of it, the tests parse real outputs with it, and the JSON
 * Schema generated from it (docs/check-result.schema.json, written by `npm run docs`) is what
 * other tools validate against. The field table of docs/cli.md is generated from the same
 * descriptions.
 *
 * The format is versioned by `format`: a field may be added within a version (readers ignore
 * fields they do not know); a field removed, renamed or changed in meaning makes a new version.
 */
import { OVERLAP_KINDS, OVERLAP_KIND_TEXT } from '../conformance/concurrent/overlap.ts';
import type { OverlapKind } from '../conformance/concurrent/overlap.ts';
import { z } from 'zod';

/** The version tag of the JSON result of a check. */
export const CHECK_JSON_FORMAT = 'jobcheck.check/1' as const;

/** Longest implementation name a result holds, the `...` of a name cut included. */
export const MAX_IMPLEMENTATION_CHARS = 200;

const ms = z.int().min(0);
const count = z.int().min(0);
const verdict = z.enum(['agree', 'diverge', 'incomplete']);
const hitTotal = z
  .strictObject({ hit: count, total: count })
  .describe('{ hit, total }: items of the category hit at least once, and items in all');

/** The schema of the JSON result of `jobcheck check --json`. */
export const checkResultSchema = z
  .object({
    format: z.literal(CHECK_JSON_FORMAT).describe(`the version of this format, "${CHECK_JSON_FORMAT}"`),
    verdict: verdict.describe(
      'agree: every phase ran in full, exercised something and agreed; diverge: something diverged (see failure); incomplete: the time limit stopped the check first, or a phase exercised nothing (see notExercised), nothing diverging (not a pass)',
    ),
    notAPass: z
      .string()
      .nullable()
      .optional()
      .describe(
        'why an incomplete check is not a pass when the time limit is not the reason: a phase that exercised nothing, or a replayed path whose runs all agree; null otherwise',
      ),
    notExercised: z
      .array(
        z.strictObject({
          phase: z.enum(['fixtures', 'restore', 'paths', 'campaign', 'explore', 'concurrent']),
          reason: z.string(),
        }),
      )
      .optional()
      .describe(
        '{ phase, reason } of each phase that ran and exercised nothing (competing workers whose requests were never in flight together, a restore phase that could offer no snapshot): each makes the verdict incomplete',
      ),
    stoppedByTimeLimit: z.boolean().describe('whether the time limit cut any phase short'),
    stoppedByFailFast: z
      .boolean()
      .optional()
      .describe('whether --fail-fast stopped the check at its first divergence, with items or phases after it not run'),
    stops: z
      .array(
        z.strictObject({
          phase: z.enum(['fixtures', 'restore', 'paths', 'campaign', 'explore', 'concurrent']),
          reason: z.enum(['timeout', 'fail_fast']),
          note: z.string(),
        }),
      )
      .optional()
      .describe(
        "{ phase, reason, note } of each phase that left items not run on purpose, before the time limit: after a timeout of the implementation in that phase (its later items given up), or by --fail-fast; the items are in each phase's notRun",
      ),
    concurrentWhen: z
      .enum(['last', 'first', 'only'])
      .nullable()
      .optional()
      .describe(
        '--concurrent: when the competing workers ran (only: the fixture stories, paths, campaign and exploration were left out); null without --workers',
      ),
    target: z
      .string()
      .describe('the implementation checked: the --impl command, the --module path, impl/JobStore or broken/<name>'),
    implementation: z
      .string()
      .max(MAX_IMPLEMENTATION_CHARS)
      .optional()
      .describe(
        `--impl only: the name the program gave in its hello reply, cut to ${MAX_IMPLEMENTATION_CHARS} characters`,
      ),
    seed: z.int().describe('the seed of the random campaign'),
    runs: count.describe('--runs: the random runs of the whole campaign (of all shards)'),
    shard: z
      .strictObject({
        index: z.int().min(1).describe('i, from 1 to n'),
        count: z.int().min(1).describe('n, the number of shards'),
      })
      .nullable()
      .describe('--shard i/n as { index, count }, or null for the whole check'),
    durationMs: ms.describe('the time of the whole check'),
    firstDivergenceMs: ms
      .nullable()
      .describe('time from the start until the first divergence of any phase was seen; null if none'),
    phases: z
      .object({
        fixturesMs: ms.describe('the fixture stories'),
        restoreMs: ms.optional().describe('the restore phase (0 when it did not run)'),
        pathsMs: ms.describe('the path suite'),
        campaignMs: ms.describe('the campaign up to its first failure (without shrinking)'),
        shrinkMs: ms.describe("shrinking the campaign's first failure"),
        exploreMs: ms.describe('the exploration'),
        concurrentMs: ms.describe('the concurrent campaign (--workers), shrinking included; 0 when there was none'),
        restarts: z
          .object({ cold: count, warm: count, coldMs: ms, warmMs: ms, crash: count.optional(), crashMs: ms.optional() })
          .nullable()
          .describe(
            'restarts of a process target: { cold, warm, coldMs, warmMs }, how many of each kind and their summed time, with crash and crashMs for a durable one; null for in-process targets',
          ),
        parallel: z.int().min(1).describe('stores checked at once'),
      })
      .describe('where the time went, in milliseconds per phase'),
    timeLimitMs: ms.optional().describe('the time limit of the check (--time-limit)'),
    fixtures: z
      .object({
        total: count.describe('fixture stories planned'),
        failed: z
          .array(z.object({ name: z.string(), message: z.string() }))
          .describe('{ name, message } of each fixture story that diverged, the message naming the first difference'),
        notRun: z.array(z.string()).describe('the stories not run to the end: the time limit, or a stop in stops'),
      })
      .describe('the fixture stories (none in shards other than 1)'),
    restore: z
      .object({
        verdict: z
          .enum(['agree', 'diverge', 'incomplete', 'not_exercised'])
          .describe(
            "agree: every invalid snapshot offered was refused with the model's code and changed nothing; diverge: one was not (see failure); incomplete: the time limit or a stop came first; not_exercised: no snapshot could be offered (see notExercised)",
          ),
        snapshots: count.describe(
          'invalid snapshots planned (each a valid snapshot changed in one place, refused by the model)',
        ),
        offered: count.describe('invalid snapshots offered'),
        refused: count.describe("of those, refused with the model's code (invalid_snapshot), the store left as it was"),
        kinds: z
          .array(z.strictObject({ kind: z.string(), offered: count, refused: count }))
          .describe(
            '{ kind, offered, refused } for each kind of refusal of docs/contract.md section 10 (shape, format, missing_field, ..., ledger)',
          ),
        failed: z
          .array(
            z.strictObject({
              name: z.string(),
              answer: z.enum(['accepted', 'refused', 'unsupported', 'failed']),
              code: z.string().optional(),
              changed: z.boolean(),
            }),
          )
          .describe(
            '{ name, answer, code, changed } of each snapshot not refused as the model refuses it (at most 100): taken, refused with another code, refused while the store changed, or the implementation failed',
          ),
        notExercised: z.string().nullable().describe('why no snapshot could be offered; null otherwise'),
        durationMs: ms.describe('the time of the restore phase'),
      })
      .nullable()
      .optional()
      .describe(
        'the restore phase: invalid snapshots offered, each to be refused (docs/contract.md section 10); null when left out (--no-restore, shards other than 1, --concurrent only) or not reached in time',
      ),
    paths: z
      .object({
        total: count.describe('paths planned'),
        failed: z.array(z.string()).describe('names of the diverging paths'),
        notRun: z
          .array(z.string())
          .describe('names of the paths not run to the end: the time limit, or a stop in stops'),
      })
      .describe('the path suite (empty in shards other than 1)'),
    exploration: z
      .object({
        verdict: z
          .enum(['complete', 'violation', 'diverge', 'incomplete'])
          .describe('the worst verdict of the configs (violation: the model broke an invariant)'),
        states: count.describe('distinct states explored'),
        transitions: count.describe('transitions explored, each compared with the model'),
        configs: z
          .array(
            z.object({
              part: z.string(),
              name: z.string(),
              verdict: z.enum(['complete', 'violation', 'diverge', 'incomplete']),
              states: count,
              transitions: count,
            }),
          )
          .describe('{ part, name, verdict, states, transitions } of each explored config'),
        notRun: z
          .array(z.string())
          .describe('part/name of the configs not run (after a divergence, or the time limit)'),
      })
      .nullable()
      .describe('the exploration phase; null when left out (--no-explore, shards other than 1) or not reached in time'),
    campaign: z
      .object({
        verdict: verdict.describe('the verdict of the campaign alone'),
        runsPlanned: count.describe('the runs planned (of a shard: its part of --runs)'),
        stoppedByTimeLimit: z.boolean().describe('whether the time limit stopped generation or shrinking'),
        runs: count.describe('the runs that ran, up to the first failing one'),
        commands: count.describe('commands checked, shrinking included'),
        commandsDiscarded: count.describe('commands of parallel runs past the first failure: checked, not counted'),
        commandsToFirstFailure: count
          .nullable()
          .describe('commands of the runs up to and including the first failing one; null if none failed'),
        firstFailureMs: ms
          .nullable()
          .describe('time from the start of the campaign until its first failing run ended; null if none'),
        path: z
          .string()
          .nullable()
          .describe(
            'the fast-check path of the shrunk counterexample: with seed, --path repeats it; null when agreeing',
          ),
        firstFailureLength: count.nullable().describe('steps of the first failing run before shrinking'),
        storyLength: count.nullable().describe('steps of the shrunk story'),
        shrinks: count.describe('shrinking steps that succeeded'),
        durationMs: ms.describe('the time of the campaign, shrinking included'),
        shrinkMs: ms.describe('the time spent shrinking'),
      })
      .describe('the random campaign'),
    concurrent: z
      .object({
        verdict: z
          .enum(['passed', 'failed', 'unknown', 'time_limit', 'not_exercised'])
          .describe(
            "passed: every history linearizable, with requests in flight together (see overlap); failed: a history no order of the model explains, or the implementation failed (the story in failure says which); unknown: the checker ran out of budget on a history (not a pass); time_limit: the check's time limit stopped it; not_exercised: no two requests were ever in flight together (an implementation that takes one at a time), so no race could have been found (not a pass; notExercised says why)",
          ),
        workers: z.int().min(1).describe('worker lanes (--workers)'),
        runsPlanned: count.describe(
          'scenarios planned: the least, when more are added while time allows (no --concurrent-runs)',
        ),
        runs: count.describe('scenarios run, up to the first failing one'),
        unknownRuns: count.describe('histories the checker could not decide within its budget'),
        histories: count
          .optional()
          .describe(
            'histories checked, up to the first failing one: each scenario, and once more for each of its send-time perturbations',
          ),
        overlap: z
          .strictObject({
            requests: count,
            overlapping: count,
            pairs: count,
            kinds: z
              .strictObject(
                Object.fromEntries(OVERLAP_KINDS.map((k) => [k, count.describe(OVERLAP_KIND_TEXT[k])])) as Record<
                  OverlapKind,
                  typeof count
                >,
              )
              .optional()
              .describe(
                'pairs of requests in flight together of each kind where a race can bite; a pair may be of several kinds or none, and a kind at 0 was never tried',
              ),
          })
          .optional()
          .describe(
            '{ requests, overlapping, pairs, kinds } over the runs before any failure: requests sent, requests in flight together with another, pairs of requests in flight together, and those pairs by kind',
          ),
        notExercised: z
          .string()
          .nullable()
          .optional()
          .describe('why no two requests were in flight together, when the verdict is not_exercised; null otherwise'),
        path: z
          .string()
          .nullable()
          .describe(
            'the fast-check path of the shrunk failure: with seed, --workers and --concurrent-path repeat it; null unless failed',
          ),
        firstFailureRequests: count.nullable().describe('requests of the first failing scenario before shrinking'),
        storyRequests: count.nullable().describe('requests of the shrunk story'),
        shrinks: count.describe('shrinking steps that succeeded'),
        durationMs: ms.describe('the time of the concurrent campaign'),
      })
      .nullable()
      .describe('the concurrent campaign of competing workers (--workers 2 or more); null when there was none'),
    failure: z
      .object({
        source: z
          .enum(['campaign', 'path', 'fixture', 'explore', 'concurrent', 'restore'])
          .describe('the phase that found it'),
        name: z
          .string()
          .describe(
            'the path, the fixture story, the explored config, "random campaign", "concurrent campaign", or the invalid snapshot ("restore <kind>: <change>")',
          ),
        steps: count.describe('steps of the story'),
        story: z.string().describe('the story as the text output tells it, with the commands that repeat it'),
        artifact: z.string().optional().describe('the failure artifact written, for jobcheck replay'),
        reproduce: z
          .string()
          .optional()
          .describe(
            'campaign failures: the command that repeats the shrunk run, npx jobcheck check ... --seed N --path P (concurrent ones: --workers W --seed N --concurrent-path P)',
          ),
      })
      .nullable()
      .describe('the shortest failure story found; null when the verdict is agree or incomplete'),
    coverage: z
      .object({
        states: hitTotal,
        transitions: hitTotal,
        pairs: hitTotal,
        rejections: hitTotal,
        paths: hitTotal,
        rules: hitTotal,
      })
      .describe(
        "per coverage category, items hit and items in all (the counts are in the report directory's coverage.json)",
      ),
    report: z
      .object({
        dir: z.string().describe('the report directory (--report)'),
        artifact: z.string().optional().describe('failure.json, when written'),
        coverageJson: z.string().describe('coverage.json, the counts (docs/coverage-format.md)'),
        coverageMd: z.string().describe('coverage.md'),
        coverageHtml: z.string().describe('coverage.html, the page with the lifecycle diagram'),
        page: z
          .string()
          .optional()
          .describe("the run's page: index.html in its folder runs/<time>-<verdict>/, through the latest link"),
      })
      .optional()
      .describe('the files written into the report directory'),
  })
  .describe('The result of jobcheck check --json');

/** The JSON result of a check, as checkResultSchema describes it. */
export type CheckResultJson = z.infer<typeof checkResultSchema>;

/** The JSON Schema (draft 2020-12) of the result, generated from checkResultSchema. Pure. */
export function checkResultJsonSchema(): Record<string, unknown> {
  return {
    $id: 'check-result.schema.json',
    title: 'jobcheck check --json',
    ...z.toJSONSchema(checkResultSchema, { target: 'draft-2020-12', io: 'output' }),
  };
}

/** The committed JSON Schema file's text (docs/check-result.schema.json). Pure. */
export const checkResultSchemaFile = (): string => `${JSON.stringify(checkResultJsonSchema(), null, 2)}\n`;

/**
 * The fields of the result as Markdown table rows, `| field | type | meaning |`, from the JSON
 * Schema, nested objects flattened to dotted names. Pure.
 */
export function checkResultFieldsTable(): string {
  const rows = ['| field | type | meaning |', '| --- | --- | --- |'];
  const typeOf = (s: Record<string, unknown>): string => {
    const any = s['anyOf'] as Record<string, unknown>[] | undefined;
    if (any !== undefined) return any.map(typeOf).join(' or ');
    if (s['const'] !== undefined) return `"${String(s['const'])}"`;
    if (s['enum'] !== undefined) return (s['enum'] as unknown[]).map((v) => `"${String(v)}"`).join(', ');
    if (Array.isArray(s['type'])) return (s['type'] as unknown[]).join(' or ');
    if (s['type'] === 'array') return `${typeOf((s['items'] ?? {}) as Record<string, unknown>)}[]`;
    return String(s['type'] ?? 'any');
  };
  const walk = (schema: Record<string, unknown>, prefix: string): void => {
    const props = (schema['properties'] ?? {}) as Record<string, Record<string, unknown>>;
    const required = new Set((schema['required'] ?? []) as string[]);
    for (const [name, raw] of Object.entries(props)) {
      const objectPart =
        raw['type'] === 'object'
          ? raw
          : ((raw['anyOf'] as Record<string, unknown>[] | undefined)?.find((x) => x['type'] === 'object') ?? undefined);
      const described = typeof raw['description'] === 'string' ? raw['description'] : '';
      // Two levels are listed; a deeper object is described by its parent's line.
      const deep = objectPart !== undefined && objectPart['properties'] !== undefined && !prefix.includes('.');
      const kind = deep ? typeOf(raw).replace('object', 'object (below)') : typeOf(raw);
      rows.push(
        `| \`${prefix}${name}\`${required.has(name) ? '' : ' (optional)'} | ${kind.replace(/\|/g, '\\|')} | ${described.replace(/\|/g, '\\|')} |`,
      );
      if (deep) walk(objectPart, `${prefix}${name}.`);
    }
  };
  walk(checkResultJsonSchema(), '');
  return rows.join('\n');
}
