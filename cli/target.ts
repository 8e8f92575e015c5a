/**
 * The implementation under test, from the command line: a process speaking the protocol
 * (`--impl "<command>"`), a JS/TS module exporting an AdapterFactory (`--module <path>`), the
 * built-in impl/JobStore (`--builtin`) or one of the catalogue's broken variants (`--broken <name>`).
 */
import { MAX_MODULE_BYTES, inputFileProblem } from '../conformance/outside/inputFile.ts';
import { outsideText } from '../conformance/outside/outsideText.ts';
import { resolve } from 'node:path';
import { availableParallelism } from 'node:os';
import { clipText } from '../contract/index.ts';
import type { Config } from '../contract/index.ts';
import { ModuleLoadError, isolatedModule } from '../conformance/isolated/moduleTarget.ts';
import type { IsolatedModule } from '../conformance/isolated/moduleTarget.ts';
import { MODULE_FAILURE_MARK } from '../conformance/isolated/wire.ts';
import { jobStoreFactory } from '../conformance/stores/jobStore.ts';
import type { Budget } from '../conformance/budget.ts';
import { CATALOGUE, catalogueVariant } from '../conformance/broken/index.ts';
import { ProcessAdapter, processAdapterFactory } from '../conformance/protocol/index.ts';
import type { CheckTarget } from '../conformance/check/index.ts';
import { concurrentProcessFactory } from '../conformance/protocol/index.ts';
import type { ConcurrentFactory } from '../conformance/concurrent/adapter.ts';
import { lockedJobStoreFactory, sequentialFactory } from '../conformance/concurrent/inProcess.ts';
import { CONCURRENT_BROKEN_VARIANTS, concurrentBrokenVariant } from '../conformance/broken/index.ts';
import { SetupError, UsageError } from './errors.ts';
import { flagWord } from './output/reproduce.ts';

// The flags and their usage live apart (targetFlags.ts), so that a command can parse them without
// loading the engine this file needs to resolve a target.
export { TARGET_FLAGS, TARGET_OPTIONS, TARGET_USAGE } from './targetFlags.ts';

/**
 * A chosen implementation: the engine's CheckTarget (its stores for each phase of a check, see
 * conformance/check/target.ts), with how to name it, how to select it again, and how to release it.
 */
export interface Target extends CheckTarget {
  /** For reports: the command, the module path, `impl/JobStore` or `broken/<name>`. */
  readonly name: string;
  /** The flags that select it again, for replay hints (e.g. `--impl "python3 x.py"`). */
  readonly flags: string;
  /** Stores checked at once unless `--parallel` says otherwise: several for a process, 1 in process. */
  readonly parallel: number;
  /**
   * Stores for the concurrent campaign (`--workers`): the implementation taking requests from
   * several lanes at once, or one at a time when it cannot (a jobcheck/1 process, a module without
   * createConcurrentAdapter), which makes the competing workers not exercised.
   */
  readonly concurrentFactory: ConcurrentFactory;
  /** Releases processes the factory keeps. */
  close(): Promise<void>;
}

/** The values of the target flags after parsing. */
export interface TargetFlags {
  readonly impl?: string | undefined;
  readonly module?: string | undefined;
  readonly builtin?: boolean | undefined;
  readonly broken?: string | undefined;
  readonly timeout?: number | undefined;
  readonly fresh?: boolean | undefined;
  readonly 'normal-scheduling'?: boolean | undefined;
  readonly verbose?: boolean | undefined;
  /** The check's time budget: every wait on the implementation is cut to it. */
  readonly budget?: Budget | undefined;
  /** `--parallel`, when given. */
  readonly parallel?: number | undefined;
  /** Receives every stderr line of the implementation's processes, with the name of the process (`impl 4242`). */
  readonly stderrSink?: ((source: string, line: string) => void) | undefined;
}

/** The stderr handler of a target's processes: passed through with --verbose, and given to the sink. */
function stderrHandler(
  flags: TargetFlags,
  io: { stderr: { write(text: string): unknown } },
  kind: string,
): { onStderr?: (line: string, pid: number | undefined) => void } {
  const sink = flags.stderrSink;
  if (flags.verbose !== true && sink === undefined) return {};
  return {
    onStderr: (line, pid) => {
      if (flags.verbose === true) io.stderr.write(`[impl] ${outsideText(line)}\n`);
      sink?.(pid === undefined ? kind : `${kind} ${pid}`, line);
    },
  };
}

/**
 * Stores a process target checks at once by default: one for each core of the machine, at least
 * 2 and at most 4. Each store runs on a process of its own, so that the harness's work overlaps
 * the implementation's; but each also costs a process start, and every process shares the cores
 * with the harness: a `python3` behind a version manager's shim costs about half a CPU second to
 * start, and on two cores four stores (seven processes in a check) left the check slower than two
 * (five) did, while an implementation that starts quickly gained little from more stores than
 * cores (docs/protocol-bench.md).
 */
export const defaultProcessParallel = (cores: number = availableParallelism()): number =>
  Math.min(4, Math.max(2, cores));
/** defaultProcessParallel() on this machine. */
export const DEFAULT_PROCESS_PARALLEL = defaultProcessParallel();
/** Never-used processes a process target keeps started ahead for cold restarts. */
const PROCESS_SPARES = 2;

/** An implementation flag's value as the printed commands write it (one place: cli/output/reproduce.ts). */
const quote = flagWord;

/** Resolves the target flags to a Target; throws UsageError for a bad combination, SetupError for a module that will not load. */
export async function resolveTarget(
  command: string,
  flags: TargetFlags,
  io: { stderr: { write(text: string): unknown } },
): Promise<Target> {
  const chosen = (['impl', 'module', 'builtin', 'broken'] as const).filter(
    (k) => flags[k] !== undefined && flags[k] !== false,
  );
  if (chosen.length === 0)
    throw new UsageError(
      `${command}: say which implementation to check: --impl "<command>", --module <path>, --builtin or --broken <name>`,
    );
  if (chosen.length > 1)
    throw new UsageError(`${command}: choose one implementation, not ${chosen.map((k) => `--${k}`).join(' and ')}`);
  if (flags.impl !== undefined) {
    const cmd = flags.impl.trim();
    if (cmd === '')
      throw new UsageError(`${command}: --impl needs a command, e.g. --impl "python3 examples/python/jobstore.py"`);
    const factory = processAdapterFactory(cmd, {
      spares: PROCESS_SPARES,
      ...(flags.timeout === undefined ? {} : { replyTimeoutMs: flags.timeout, startTimeoutMs: 2 * flags.timeout }),
      ...(flags.fresh === true ? { reuse: false } : {}),
      ...(flags['normal-scheduling'] === true ? { scheduling: 'normal' as const } : {}),
      ...stderrHandler(flags, io, 'impl'),
      ...(flags.budget === undefined ? {} : { budget: flags.budget }),
    });
    const concurrent = concurrentProcessFactory(cmd, {
      ...(flags.timeout === undefined ? {} : { replyTimeoutMs: flags.timeout, startTimeoutMs: 2 * flags.timeout }),
      ...(flags['normal-scheduling'] === true ? { scheduling: 'normal' as const } : {}),
      ...stderrHandler(flags, io, 'workers'),
      ...(flags.budget === undefined ? {} : { budget: flags.budget }),
    });
    return {
      name: cmd,
      flags: `--impl ${quote(cmd)}`,
      factory,
      warmFactory: factory.warm,
      campaignFactory: factory.crash,
      concurrentFactory: concurrent,
      parallel: flags.parallel ?? DEFAULT_PROCESS_PARALLEL,
      restarts: () => factory.restarts,
      close: async () => {
        await Promise.all([factory.close(), concurrent.close()]);
      },
    };
  }
  if (flags.module !== undefined) {
    const file = resolve(flags.module);
    const problem = inputFileProblem(file, MAX_MODULE_BYTES);
    if (problem !== undefined) throw new UsageError(`${command}: --module ${flags.module}: ${problem}`);
    // The module runs in processes of its own (conformance/isolated/): it cannot end, stall or fool the harness.
    let isolated: IsolatedModule;
    try {
      isolated = await isolatedModule(file, {
        name: flags.module,
        ...(flags.timeout === undefined ? {} : { timeoutMs: flags.timeout }),
        ...(flags.budget === undefined ? {} : { budget: flags.budget }),
        onStderr: (line: string) => {
          if (flags.verbose === true || !line.startsWith(MODULE_FAILURE_MARK))
            io.stderr.write(`[module] ${outsideText(line)}\n`);
          if (!line.startsWith(MODULE_FAILURE_MARK)) flags.stderrSink?.('module', line);
        },
      });
    } catch (error) {
      if (!(error instanceof ModuleLoadError)) throw error;
      if (error.code === 'load_failed')
        throw new SetupError(
          `${command}: cannot load module ${flags.module}: ${clipText(error.message.split('\n')[0] ?? '', 300)}`,
        );
      throw new SetupError(`${command}: module ${flags.module} ${error.message}`);
    }
    return {
      name: flags.module,
      flags: `--module ${quote(flags.module)}`,
      factory: isolated.factory,
      concurrentFactory: isolated.concurrentFactory ?? sequentialFactory(isolated.factory),
      parallel: flags.parallel ?? 1,
      close: () => isolated.close(),
    };
  }
  if (flags.builtin === true) {
    return {
      name: 'impl/JobStore',
      flags: '--builtin',
      factory: jobStoreFactory(),
      concurrentFactory: lockedJobStoreFactory(),
      parallel: flags.parallel ?? 1,
      close: () => Promise.resolve(),
    };
  }
  const name = flags.broken ?? '';
  const racy = concurrentBrokenVariant(name);
  if (racy !== undefined) {
    // One request at a time a racy variant keeps the contract; only the concurrent campaign can tell.
    const flagsOf = `--broken ${racy.name}`;
    return {
      name: `broken/${racy.name}`,
      flags: flagsOf,
      factory: jobStoreFactory(racy.Store, `broken/${racy.name}`),
      concurrentFactory: racy.factory,
      parallel: flags.parallel ?? 1,
      close: () => Promise.resolve(),
    };
  }
  const variant = catalogueVariant(name);
  if (variant === undefined) {
    const known = [...CATALOGUE, ...CONCURRENT_BROKEN_VARIANTS].map((v) => v.name).join(', ');
    throw new UsageError(`${command}: no broken variant named ${JSON.stringify(name)} (known: ${known})`);
  }
  return {
    name: `broken/${variant.name}`,
    flags: `--broken ${variant.name}`,
    factory: variant.factory,
    concurrentFactory: sequentialFactory(variant.factory),
    parallel: flags.parallel ?? 1,
    close: () => Promise.resolve(),
  };
}

/**
 * Starts the implementation once, before any checking, so that a command that does not start, a
 * module whose factory throws (a broker that cannot be reached among them), or a refused hello is
 * a setup error (exit 2) rather than a divergence. With `boundMs`, a factory that has not settled
 * by then is one too, and so is a close that has not. Returns the name the implementation gives
 * itself (the hello reply), if any.
 */
export async function preflight(
  target: Pick<Target, 'name' | 'factory'>,
  config: Config,
  boundMs?: number,
): Promise<string | undefined> {
  let adapter: Awaited<ReturnType<Target['factory']>>;
  try {
    adapter = await within(target.factory(config), boundMs, 'it did not start');
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new SetupError(`cannot start the implementation ${target.name}: ${message}`);
  }
  const implementation = adapter instanceof ProcessAdapter ? adapter.implementation : undefined;
  await within(adapter.close(), boundMs, 'it did not close').catch((error: unknown) => {
    throw new SetupError(`cannot close the implementation ${target.name}: ${(error as Error).message}`);
  });
  return implementation;
}

/** `p`, or (with `ms`) an error saying `what` within `ms` ms once they pass. */
function within<T>(p: Promise<T>, ms: number | undefined, what: string): Promise<T> {
  if (ms === undefined) return p;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} within ${ms} ms`)), ms);
  });
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}
