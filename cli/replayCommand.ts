/**
 * `jobcheck replay <artifact>`: runs a recorded failure again, step by step, against an
 * implementation (usually after a fix) and tells it as a story. Needs no model: the artifact holds
 * the expected replies and snapshots. Exit code 0 when the implementation now agrees, 1 when not.
 */
import { readArtifact, replayArtifact } from '../conformance/artifact.ts';
import { renderStory } from '../conformance/story.ts';
import type { CliIO } from './args.ts';
import { SetupError, UsageError, intFlag, parseCommandArgs } from './args.ts';
import { TARGET_OPTIONS, TARGET_USAGE, resolveTarget } from './target.ts';

/** Usage text of `jobcheck replay`. */
export const REPLAY_USAGE = `Usage: jobcheck replay <artifact.json> (--impl "<command>" | --module <path> | --builtin | --broken <name>) [--json]

Replays a failure artifact (written by jobcheck check into its report directory) against an
implementation, comparing every reply and snapshot with the recorded ones.
Exit code: 0 the implementation agrees with the artifact, 1 it diverges, 2 usage or setup error.

${TARGET_USAGE}
Options:
  --json               print the result as JSON
  -h, --help           show this text
`;

/** Runs `jobcheck replay`; returns the exit code. */
export async function replayCommand(argv: readonly string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseCommandArgs('replay', argv, { ...TARGET_OPTIONS, json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } }, true);
  if (values.help === true) {
    io.stdout.write(REPLAY_USAGE);
    return 0;
  }
  if (positionals.length !== 1) throw new UsageError(`replay: give exactly one artifact file (got ${positionals.length}) (see jobcheck replay --help)`);
  const file = positionals[0] as string;
  const timeout = values.timeout === undefined ? undefined : intFlag('replay', 'timeout', values.timeout, 5000, 1);
  let artifact;
  try {
    artifact = await readArtifact(file);
  } catch (error) {
    throw new SetupError(`replay: ${(error as Error).message}`);
  }
  const target = await resolveTarget('replay', { ...values, timeout }, io);
  try {
    const result = await replayArtifact(artifact, target.factory);
    if (result.divergence?.step === 0) throw new SetupError(`replay: cannot start the implementation ${target.name}: ${result.divergence.error ?? ''}`);
    const story = renderStory(result);
    if (values.json === true) {
      io.stdout.write(`${JSON.stringify({ verdict: result.divergence === null ? 'agree' : 'diverge', artifact: file, target: target.name, steps: result.steps.length, divergence: result.divergence, story }, null, 2)}\n`);
    } else {
      io.stdout.write(`jobcheck replay: ${file} (${artifact.steps.length} steps, found against ${artifact.foundAgainst}) on ${target.name}\n\n${story}\n`);
    }
    return result.divergence === null ? 0 : 1;
  } finally {
    await target.close();
  }
}
