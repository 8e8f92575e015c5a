/**
 * `jobcheck replay <artifact>`: runs a recorded failure again, step by step, against an
 * implementation (usually after a fix) and tells it as a story. Needs no model: the artifact holds
 * the expected replies and snapshots. Exit code 0 when the implementation now agrees, 1 when not.
 */
import { readArtifact, replayArtifact, verifyArtifact } from '../conformance/lockstep/artifact.ts';
import type { Artifact } from '../conformance/lockstep/artifact.ts';
import { Budget } from '../conformance/budget.ts';
import { renderStory } from '../conformance/lockstep/story.ts';
import { jsonText, outsideText, terminalBlock } from '../conformance/outside/outsideText.ts';
import { clipText, messageOf } from '../contract/index.ts';
import type { CliIO } from './args.ts';
import { z } from 'zod';
import { SetupError, UsageError, durationFlag, readFlags } from './args.ts';
import { DEFAULT_TIME_LIMIT_MS, EXIT_INCOMPLETE, MAX_TIME_LIMIT_MS } from './checkCommand.ts';
import { TARGET_FLAGS, TARGET_OPTIONS, TARGET_USAGE, resolveTarget } from './target.ts';

/** Usage text of `jobcheck replay`. */
export const REPLAY_USAGE = `Usage: jobcheck replay <artifact.json> (--impl "<command>" | --module <path> | --builtin | --broken <name>) [--json]

Replays a failure artifact (written by jobcheck check into its report directory) against an
implementation, comparing every reply and snapshot with the recorded ones.
The artifact is first checked against the reference model: one whose commands or expectations
were changed (or that another version of the contract wrote) is refused with exit code 2.
Exit code: 0 the implementation agrees with the artifact, 1 it diverges, 2 usage or setup error
(including a changed or unreadable artifact), 3 stopped by the time limit.

${TARGET_USAGE}
Options:
  --time-limit <s>     time limit of the replay (default ${DEFAULT_TIME_LIMIT_MS / 60_000}m), as for check
  --json               print the result as JSON
  -h, --help           show this text
`;

/**
 * The text `jobcheck replay` prints: the artifact, what it was found against (the artifact's word,
 * text from a file) and the target, then the story. Pure.
 */
export function replayText(
  file: string,
  artifact: { readonly steps: readonly unknown[]; readonly foundAgainst: string },
  target: string,
  story: string,
): string {
  return terminalBlock(
    `jobcheck replay: ${outsideText(file)} (${artifact.steps.length} steps, found against ${outsideText(clipText(artifact.foundAgainst, 200))}) on ${outsideText(target)}\n\n${story}\n`,
  );
}

/** The flags of `jobcheck replay`, read. */
const REPLAY_FLAGS = z.object({
  ...TARGET_FLAGS,
  json: z.boolean().optional(),
  'time-limit': durationFlag('time-limit', 1000, MAX_TIME_LIMIT_MS).default(DEFAULT_TIME_LIMIT_MS),
  help: z.boolean().optional(),
});

/** Runs `jobcheck replay`; returns the exit code. */
export async function replayCommand(argv: readonly string[], io: CliIO): Promise<number> {
  const options = {
    ...TARGET_OPTIONS,
    json: { type: 'boolean' },
    'time-limit': { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  } as const;
  const read = readFlags('replay', argv, options, REPLAY_FLAGS, { positionals: true });
  if (read.help) {
    io.stdout.write(REPLAY_USAGE);
    return 0;
  }
  const { flags: values, positionals } = read;
  if (positionals.length !== 1)
    throw new UsageError(
      `replay: give exactly one artifact file (got ${positionals.length}) (see jobcheck replay --help)`,
    );
  const file = positionals[0] as string;
  const timeLimitMs = values['time-limit'];
  let artifact: Artifact;
  try {
    artifact = await readArtifact(file);
    verifyArtifact(artifact);
  } catch (error) {
    throw new SetupError(`replay: ${file}: ${messageOf(error)}`);
  }
  const budget = new Budget(timeLimitMs);
  const target = await resolveTarget('replay', { ...values, budget }, io);
  try {
    const result = await replayArtifact(artifact, target.factory, { budget });
    if (result.divergence?.step === 0)
      throw new SetupError(`replay: cannot start the implementation ${target.name}: ${result.divergence.error ?? ''}`);
    const verdict = result.divergence !== null ? 'diverge' : result.interrupted === true ? 'incomplete' : 'agree';
    const story =
      verdict === 'incomplete'
        ? `stopped by the time limit after ${result.steps.length} of ${artifact.steps.length} steps, all agreeing (not a pass)`
        : renderStory(result);
    if (values.json === true) {
      const divergence =
        result.divergence === null ? null : (({ implSnapshot: _dropped, ...rest }) => rest)(result.divergence);
      io.stdout.write(
        `${jsonText({ verdict, artifact: file, target: target.name, steps: result.steps.length, divergence, story }, 2)}\n`,
      );
    } else {
      io.stdout.write(replayText(file, artifact, target.name, story));
    }
    return verdict === 'agree' ? 0 : verdict === 'diverge' ? 1 : EXIT_INCOMPLETE;
  } finally {
    budget.dispose();
    await target.close();
  }
}
