/**
 * The `jobcheck` command line: dispatches to the subcommands and turns every bad invocation or
 * setup failure into one line on stderr and exit code 2, never a stack trace. Callable in-process
 * (tests pass their own streams); cli/main.ts runs it for the real process.
 */
import type { CliIO } from './args.ts';
import { SetupError, UsageError } from './errors.ts';
import { DriverMissingError } from '../impl/DriverMissingError.ts';
import { outsideText } from '../conformance/outside/outsideText.ts';
import { JOBCHECK_VERSION } from './report/version.ts';

/** Usage text of `jobcheck` itself. */
export const MAIN_USAGE = `Usage: jobcheck <command> [options]

Holds a job-store implementation against the reference model of the job lifecycle.

Commands:
  check      check an implementation: fixture stories, path suite, random campaign, exploration,
             and with --workers competing workers checked for linearizability
  profile    check an implementation rule by rule: conforms / departs / unsupported / not reached
  audit      check a recorded history of a real queue (jobcheck-history/1, or a Jepsen export)
  explore    explore every command sequence of a bounded scope, against the model or an implementation
  replay     replay a failure artifact against an implementation
  coverage   merge coverage JSON files and write the Markdown and HTML reports
  merge      join the parts of a check run with --shard: one verdict, coverage report and JUnit file
  github     write a GitHub Actions job summary, outputs and annotations from a check's --json result
  report     list the runs kept in the report directory, newest first (--list)
  paths      list the path suite enumerated from the lifecycle machine
  demo       tell the failure stories step by step, from the reference model
  lab        a page to predict the stories step by step, the model running in it (written or served)
  serve      serve a built-in store over the jobcheck/1 and jobcheck/2 protocols on stdin and stdout
  init       write a starter (Python, JavaScript, Go) or the Python example into this project

Run "jobcheck <command> --help" for the options of a command, "jobcheck --version" for the
version. Documentation: docs/cli.md and, for implementations in other languages, docs/protocol.md,
shipped with this version of the package (node_modules/jobcheck/docs/, or docs/ in a clone).
`;

/** The version of the package (package.json), as `jobcheck --version` prints it and each run records it. */
export const VERSION: string = JOBCHECK_VERSION;

// Each command is loaded when it is run, not before: together they load the engine, zod,
// fast-check and xstate, which would make `jobcheck --help` several times slower to start than
// node itself (docs/startup-bench.md).
const COMMANDS: Record<string, (argv: readonly string[], io: CliIO) => Promise<number>> = {
  check: async (argv, io) => {
    // The implementation's first process starts while the engine loads (checkFlags.ts).
    const early = await import('./checkFlags.ts');
    early.startImplementationEarly(argv);
    try {
      return await (await import('./checkCommand.ts')).checkCommand(argv, io);
    } finally {
      await early.endImplementationStartedEarly();
    }
  },
  audit: async (argv, io) => (await import('./auditCommand.ts')).auditCommand(argv, io),
  explore: async (argv, io) => (await import('./exploreCommand.ts')).exploreCommand(argv, io),
  replay: async (argv, io) => (await import('./replayCommand.ts')).replayCommand(argv, io),
  coverage: async (argv, io) => (await import('./coverageCommand.ts')).coverageCommand(argv, io),
  merge: async (argv, io) => (await import('./mergeCommand.ts')).mergeCommand(argv, io),
  github: async (argv, io) => (await import('./github.ts')).githubCommand(argv, io),
  paths: async (argv, io) => (await import('./pathsCommand.ts')).pathsCommand(argv, io),
  profile: async (argv, io) => (await import('./profileCommand.ts')).profileCommand(argv, io),
  report: async (argv, io) => (await import('./reportCommand.ts')).reportCommand(argv, io),
  lab: async (argv, io) => (await import('./labCommand.ts')).labCommand(argv, io),
  serve: async (argv, io) => (await import('./serveCommand.ts')).serveCommand(argv, io),
  init: async (argv, io) => (await import('./initCommand.ts')).initCommand(argv, io),
  demo: async (argv, io) =>
    (await import('./demo/index.ts')).runDemo([...argv], {
      stdin: io.stdin ?? process.stdin,
      stdout: io.stdout,
      stderr: io.stderr,
      isTTY: (io.stdin as { isTTY?: boolean } | undefined)?.isTTY === true,
      stdoutIsTTY: io.stdoutIsTTY === true,
    }),
};

/** The names of the commands `jobcheck` runs (its usage text and docs/cli.md list each). */
export const COMMAND_NAMES: readonly string[] = Object.keys(COMMANDS);

/** Runs the command line `argv` (without `node jobcheck`); returns the exit code. Never throws. */
export async function runCli(argv: readonly string[], io: CliIO): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    (name === undefined ? io.stderr : io.stdout).write(MAIN_USAGE);
    return name === undefined ? 2 : 0;
  }
  if (name === '--version') {
    io.stdout.write(`jobcheck ${VERSION}\n`);
    return 0;
  }
  const command = COMMANDS[name];
  if (command === undefined || !Object.hasOwn(COMMANDS, name)) {
    io.stderr.write(
      `jobcheck: unknown command ${JSON.stringify(name)} (commands: ${Object.keys(COMMANDS).join(', ')}; see jobcheck --help)\n`,
    );
    return 2;
  }
  try {
    return await command(rest, io);
  } catch (error) {
    if (error instanceof UsageError || error instanceof SetupError || error instanceof DriverMissingError) {
      io.stderr.write(`jobcheck: ${outsideText(error.message.replace(/\s*\n\s*/g, ' '))}\n`);
      return 2;
    }
    const e = error instanceof Error ? error : new Error(String(error));
    io.stderr.write(
      `jobcheck: internal error: ${outsideText(e.message.split('\n')[0] ?? '')} (set JOBCHECK_DEBUG=1 to see where)\n`,
    );
    if (process.env['JOBCHECK_DEBUG'] === '1') io.stderr.write(`${e.stack ?? ''}\n`);
    return 2;
  }
}
