/**
 * Portable failure artifacts: a failing run written as data (config, the concrete commands, the
 * model's replies and snapshots after each step), so that it can be replayed later against any
 * implementation without the model or the generator that found it. Artifacts are read back
 * through a schema, once, at the boundary.
 */
import { readInputFile } from '../outside/inputFile.ts';
import { makeOutputFolder, writeOutputFile } from '../outside/outputFile.ts';
import { join } from 'node:path';
import { z } from 'zod';
import type { Config, Reply, Snapshot } from '../../contract/index.ts';
import { configSchema, messageOf, snapshotSchema } from '../../contract/index.ts';
import { fromSnapshot, initialState, step, toSnapshot } from '../../model/index.ts';
import type { ModelState } from '../../model/index.ts';
import type { AdapterFactory } from '../adapter.ts';
import { firstDifference, replyDifference, showValue } from './compare.ts';
import type { Difference } from './compare.ts';
import { ConformanceError } from '../errors.ts';
import { jsonDepth } from '../../contract/index.ts';
import { PROTOCOL_MESSAGE_TYPES } from '../../contract/protocol.ts';
import { runLockstep } from './index.ts';
import type { Divergence, LockstepOptions, LockstepResult } from './index.ts';
import type { ScriptStep } from './symbolic.ts';
import { jsonText } from '../outside/outsideText.ts';

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
export function toArtifact(
  result: LockstepResult,
  meta: { seed?: number; path?: string | null; createdAt?: string } = {},
): Artifact {
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
    throw new ConformanceError(
      'invalid_artifact',
      `invalid artifact: ${where || '(root)'}: ${issue?.message ?? 'invalid'}`,
    );
  }
  r.data.steps.forEach((s, i) => {
    // A command is a flat object (a malformed one at most a little deeper); anything deeper could
    // not even be written to an implementation, and would be blamed on it.
    if ('do' in s && jsonDepth(s.do, MAX_COMMAND_DEPTH) > MAX_COMMAND_DEPTH) {
      throw new ConformanceError(
        'invalid_artifact',
        `invalid artifact: steps.${i}.do: nested deeper than ${MAX_COMMAND_DEPTH} levels`,
      );
    }
    // A command typed as one of the protocol's own messages (hello, snapshot, restore) cannot be
    // sent to a process as a command: the harness would refuse it and blame the implementation.
    const type = 'do' in s && typeof s.do === 'object' && s.do !== null ? (s.do as { type?: unknown }).type : undefined;
    if (typeof type === 'string' && (PROTOCOL_MESSAGE_TYPES as readonly string[]).includes(type)) {
      const rule = `a command may not use the protocol's own type ${JSON.stringify(type)} (step ${i + 1})`;
      throw new ConformanceError('invalid_artifact', `invalid artifact: steps.${i}.do: ${rule}`);
    }
  });
  return input as Artifact;
}

/** Deepest nesting of a command in an artifact. */
const MAX_COMMAND_DEPTH = 16;
/** Largest artifact file read, in bytes. */
export const MAX_ARTIFACT_BYTES = 64 * 1024 * 1024;

/** A file-name-safe slug of an adapter name. Pure. */
const slug = (s: string): string =>
  s
    .replace(/[^A-Za-z0-9]+/g, '-')
    .replace(/^-|-$/g, '')
    .slice(0, 60) || 'impl';

/** Writes an artifact as JSON into `dir` (created if needed; never through a link or a FIFO) and returns the file's path. */
export async function writeArtifact(dir: string, artifact: Artifact, name?: string): Promise<string> {
  await makeOutputFolder(dir);
  const file = join(dir, name ?? `${slug(artifact.foundAgainst)}-${artifact.createdAt.replace(/[:.]/g, '-')}.json`);
  await writeOutputFile(file, `${jsonText(artifact, 2)}\n`);
  return file;
}

/** Reads and validates an artifact file; throws ConformanceError `invalid_artifact`. */
export async function readArtifact(file: string): Promise<Artifact> {
  let data: unknown;
  try {
    data = JSON.parse(await readInputFile(file, MAX_ARTIFACT_BYTES));
  } catch (e) {
    throw new ConformanceError('invalid_artifact', `cannot read artifact ${file}: ${messageOf(e)}`, {
      cause: e,
    });
  }
  return parseArtifact(data);
}

/**
 * Checks that the reference model still answers an artifact's commands exactly as the artifact
 * records (replies without `message`, and every snapshot). An artifact whose commands or
 * expectations were edited, or that was written by another version of the contract, fails here:
 * replaying it would blame the implementation for what is really a changed artifact. Throws
 * ConformanceError `changed_artifact` naming the step and the field; pure otherwise.
 */
export function verifyArtifact(artifact: Artifact): void {
  if (artifact.steps.length === 0)
    throw new ConformanceError('invalid_artifact', 'invalid artifact: steps: must hold at least one step');
  let model: ModelState = initialState(artifact.config);
  artifact.steps.forEach((s, i) => {
    const at = `step ${i + 1} of ${artifact.steps.length}`;
    if ('restart' in s) model = fromSnapshot(JSON.parse(JSON.stringify(toSnapshot(model))));
    else {
      const result = step(model, s.do);
      model = result.state;
      const d = replyDifference(result.reply, s.expect);
      if (d !== undefined) throw changed(at, d, 'the reply');
    }
    const d = firstDifference(toSnapshot(model), s.snapshot);
    if (d !== undefined) throw changed(at, d, 'the snapshot');
  });
}

function changed(at: string, d: Difference, what: string): ConformanceError {
  return new ConformanceError(
    'changed_artifact',
    `the artifact does not match the reference model at ${at}: ${what} differs at ${d.path || '(value)'} (the model: ${showValue(d.model)}, the artifact: ${showValue(d.impl)}); it was edited, corrupted, or written by another version of the contract, so replaying it would prove nothing about the implementation`,
  );
}

/** An artifact step as the lockstep runner takes it. */
const scriptStep = (s: ArtifactStep): ScriptStep => ('restart' in s ? { restart: true } : { do: s.do });

/**
 * Replays an artifact against the implementation made by `factory`: first checks it against the
 * reference model (verifyArtifact; throws ConformanceError for a changed artifact), then runs its
 * commands in lockstep with the model, which now answers exactly what the artifact records. The
 * result is a lockstep result, so that `renderStory` and `coverageOf` work on replays as well.
 */
export async function replayArtifact(
  artifact: Artifact,
  factory: AdapterFactory,
  options: LockstepOptions = {},
): Promise<LockstepResult> {
  verifyArtifact(artifact);
  return runLockstep(artifact.config, artifact.steps.map(scriptStep), factory, options);
}
