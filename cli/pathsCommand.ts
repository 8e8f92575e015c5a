/**
 * `jobcheck paths`: lists the path suite, the paths enumerated from the lifecycle machine with
 * @xstate/graph, each with the transitions it takes and the length of its command script.
 */
import { PATH_CONFIG, lifecyclePaths } from '../conformance/paths/lifecyclePaths.ts';
import { describeCommand, describeConfig } from '../conformance/lockstep/story.ts';
import type { CliIO } from './args.ts';
import { parseCommandArgs } from './args.ts';

/** Usage text of `jobcheck paths`. */
export const PATHS_USAGE = `Usage: jobcheck paths [--script] [--json]

Lists the path suite: every path enumerated from the lifecycle machine (to each state, through
each transition and each reachable pair of transitions), with the transitions job "a" takes.
  --script     also print each path's command script
  --json       print the paths as JSON
  -h, --help   show this text
`;

/** Runs `jobcheck paths`; returns the exit code. */
export function pathsCommand(argv: readonly string[], io: CliIO): Promise<number> {
  const { values } = parseCommandArgs(
    'paths',
    argv,
    { script: { type: 'boolean' }, json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
    false,
  );
  if (values.help === true) {
    io.stdout.write(PATHS_USAGE);
    return Promise.resolve(0);
  }
  const paths = lifecyclePaths();
  if (values.json === true) {
    io.stdout.write(`${JSON.stringify(paths, null, 2)}\n`);
    return Promise.resolve(0);
  }
  const lines = [`${paths.length} paths (config: ${describeConfig(PATH_CONFIG)})`, ''];
  paths.forEach((p, i) => {
    lines.push(`${String(i + 1).padStart(3)}. ${p.name}  (${p.script.length} steps)`);
    lines.push(`       ${p.transitions.length === 0 ? '(no transition)' : p.transitions.join('\n       ')}`);
    if (values.script === true) {
      for (const s of p.script) lines.push(`         - ${'restart' in s ? 'restart' : describeCommand(s.do)}`);
    }
  });
  io.stdout.write(`${lines.join('\n')}\n`);
  return Promise.resolve(0);
}
