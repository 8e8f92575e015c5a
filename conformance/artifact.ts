/**
 * Portable failure artifacts: a failing run written as data (config, the concrete commands, the
 * model's replies and snapshots after each step), so that it can be replayed later against any
 * implementation without the model or the generator that found it. Artifacts are read back
 * through a schema, once, at the boundary.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import type { Config, Reply, Snapshot } from '../contract/index.ts';
import { configSchema, snapshotSchema } from '../contract/index.ts';
import { fromSnapshot, initialState, step, toSnapshot } from '../model/index.ts';
import type { JobStep, ModelState } from '../model/index.ts';
import type { Adapter, AdapterFactory } from './adapter.ts';
import { firstDifference, replyDifference } from './compare.ts';
import type { Difference } from './compare.ts';
import { ConformanceError } from './errors.ts';
import { aliasDifference } from './lockstep.ts';
import type { Divergence, LockstepResult, LockstepStep } from './lockstep.ts';

/** Version tag of the artifact format. */
export const ARTIFACT_FORMAT = 'jobcheck.artifact/1' as const;

/** One recorded step: a command with the model's reply, or a restart; each with the model's snapshot after it. */
export type ArtifactStep =
  | { readonly do: unknown; readonly expect: Reply; readonly snapshot: Snapshot }
  | { readonly restart: true; readonly snapshot: Snapshot };

/** A failing run as portable data. */
export interface Artifact {
  readonly format: typeof ARTIFACT_FORMAT;
  /** The implementation the failure was found against. */
  readonly foundAgainst: string;
  readonly createdAt: string;
  /** fast-check seed and path that found it, when it came from a campaign. */
  readonly seed?: number;
  readonly path?: string;
  readonly config: Config;
  readonly steps: readonly ArtifactStep[];
  /** The divergence as it was observed (for information; replay recomputes it). */
  readonly divergence?: Divergence | null;
}

/** Builds the artifact of a lockstep run (usually a shrunk counterexample). Pure. */
export function toArtifact(result: LockstepResult, meta: { seed?: number; path?: string | null; createdAt?: string } = {}): Artifact {
  const steps: ArtifactStep[] = result.steps.map((s) =>
    'restart' in s.action
      ? { restart: true, snapshot: s.modelSnapshot }
      : { do: s.action.do, expect: s.modelReply as Reply, snapshot: s.modelSnapshot },
  );
  return {
    format: ARTIFACT_FORMAT,
    foundAgainst: result.adapter,
    createdAt: meta.createdAt ?? new Date().toISOString(),
    ...(meta.seed === undefined ? {} : { seed: meta.seed }),
    ...(meta.path === undefined || meta.path === null ? {} : { path: meta.path }),
    config: result.config,
    steps,
    divergence: result.divergence,
  };
}

const replySchema = z.looseObject({ ok: z.boolean() });
const artifactSchema = z.looseObject({
  format: z.literal(ARTIFACT_FORMAT),
  foundAgainst: z.string(),
  createdAt: z.string(),
  seed: z.int().optional(),
  path: z.string().optional(),
  config: configSchema,
  steps: z.array(
    z.union([
      z.strictObject({ restart: z.literal(true), snapshot: snapshotSchema }),
      z.strictObject({ do: z.unknown(), expect: replySchema, snapshot: snapshotSchema }),
    ]),
  ),
});

/** Validates an artifact read from outside; throws ConformanceError `invalid_artifact` naming the field. */
export function parseArtifact(input: unknown): Artifact {
  const r = artifactSchema.safeParse(input);
  if (!r.success) {
    const issue = r.error.issues[0];
    const where = issue === undefined ? '' : issue.path.map(String).join('.');
    throw new ConformanceError('invalid_artifact', `invalid artifact: ${where || '(root)'}: ${issue?.message ?? 'invalid'}`);
  }
  return input as Artifact;
}

/** A file-name-safe slug of an adapter name. Pure. */
const slug = (s: string): string => s.replace(/[^A-Za-z0-9]+/g, '-').replace(/^-|-$/g, '').slice(0, 60) || 'impl';

/** Writes an artifact as JSON into `dir` (created if needed) and returns the file's path. */
export async function writeArtifact(dir: string, artifact: Artifact, name?: string): Promise<string> {
  await mkdir(dir, { recursive: true });
  const file = join(dir, name ?? `${slug(artifact.foundAgainst)}-${artifact.createdAt.replace(/[:.]/g, '-')}.json`);
  await writeFile(file, `${JSON.stringify(artifact, null, 2)}\n`);
  return file;
}

/** Reads and validates an artifact file; throws ConformanceError `invalid_artifact`. */
export async function readArtifact(file: string): Promise<Artifact> {
  let data: unknown;
  try {
    data = JSON.parse(await readFile(file, 'utf8'));
  } catch (e) {
    throw new ConformanceError('invalid_artifact', `cannot read artifact ${file}: ${(e as Error).message}`, { cause: e });
  }
  return parseArtifact(data);
}

const errorText = (e: unknown): string => (e instanceof Error ? `${e.name}: ${e.message}` : String(e));

/**
 * Replays an artifact against the implementation made by `factory`, comparing every reply
 * (without `message`) and snapshot with the recorded expectations, then the aliasing check of
 * runLockstep. The verdict needs no model (the model runs alongside only to record its lifecycle
 * trace, so that replays count towards coverage). Returns a lockstep result, so that
 * `renderStory` and `coverageOf` work on replays as well.
 */
export async function replayArtifact(artifact: Artifact, factory: AdapterFactory): Promise<LockstepResult> {
  let adapter: Adapter;
  try {
    adapter = await factory(artifact.config);
  } catch (e) {
    return { adapter: '(factory)', config: artifact.config, steps: [], divergence: { step: 0, kind: 'impl_error', error: errorText(e) } };
  }
  const steps: LockstepStep[] = [];
  // The model runs alongside only to record its lifecycle trace (for coverage); the verdict
  // comes from the artifact's recorded expectations.
  let model: ModelState = initialState(artifact.config);
  try {
    for (let i = 0; i < artifact.steps.length; i++) {
      const s = artifact.steps[i] as ArtifactStep;
      const index = i + 1;
      let trace: readonly JobStep[] = [];
      if ('restart' in s) model = fromSnapshot(JSON.parse(JSON.stringify(toSnapshot(model))));
      else ({ state: model, trace } = step(model, s.do));
      let implReply: unknown;
      let error: string | undefined;
      try {
        if ('restart' in s) await adapter.restart();
        else implReply = await adapter.execute(s.do);
      } catch (e) {
        error = `${'restart' in s ? 'restart' : 'execute'} threw ${errorText(e)}`;
      }
      const record: LockstepStep =
        'restart' in s
          ? { index, action: { restart: true }, modelSnapshot: s.snapshot, trace }
          : { index, action: { do: s.do }, modelReply: s.expect, ...(error === undefined ? { implReply } : {}), modelSnapshot: s.snapshot, trace };
      steps.push(record);
      const reply: Difference | undefined = 'restart' in s || error !== undefined ? undefined : replyDifference(s.expect, implReply);
      let implSnapshot: unknown;
      let snapshot: Difference | undefined;
      try {
        implSnapshot = await adapter.snapshot();
        snapshot = firstDifference(s.snapshot, implSnapshot);
      } catch (e) {
        error ??= `snapshot threw ${errorText(e)}`;
      }
      if (error !== undefined || reply !== undefined || snapshot !== undefined) {
        const divergence: Divergence = {
          step: index,
          kind: error !== undefined ? 'impl_error' : reply !== undefined ? 'reply' : 'snapshot',
          ...(reply === undefined ? {} : { reply }),
          ...(snapshot === undefined ? {} : { snapshot }),
          ...(implSnapshot === undefined ? {} : { implSnapshot }),
          ...(error === undefined ? {} : { error }),
        };
        return { adapter: adapter.name, config: artifact.config, steps, divergence };
      }
    }
    const last = steps[steps.length - 1];
    if (last !== undefined) {
      const alias = await aliasDifference(adapter, last.modelSnapshot);
      if (alias !== undefined) return { adapter: adapter.name, config: artifact.config, steps, divergence: { step: last.index, ...alias } };
    }
    return { adapter: adapter.name, config: artifact.config, steps, divergence: null };
  } finally {
    await adapter.close().catch(() => undefined);
  }
}
