/**
 * A failing concurrent run told as a story: the lanes side by side (one column per lane, one row
 * per round, each request with its invoke and return instants, indefinite ones marked, and a line
 * of its own for each fault the nemesis started or ended between rounds), then where
 * the checker's search got stuck (the longest order it found, and for every request that could come
 * next the model's reply beside the one observed), then the model's own replies along the closest
 * order: that prefix, followed by the remaining requests in real-time order.
 */
import type { Config } from '../../contract/index.ts';
import type { Model } from '../../model/step.ts';
import { comparableReply, describeDifference, firstDifference, showValue, withoutFields } from '../lockstep/compare.ts';
import { describeConfig } from '../lockstep/story.ts';
import { outsideText } from '../outside/outsideText.ts';
import { describeFault, type NemesisEvent } from '../nemesis/fault.ts';
import type { ConcurrentFailure } from './result.ts';
import { requestCount } from './generate.ts';
import type { Operation, Witness } from './history.ts';
import { jobModel } from './jobModel.ts';
import type { ConcurrentRun, SentRequest } from './run.ts';

/** How to reproduce the run, printed under the story. */
export interface ConcurrentStoryContext {
  readonly adapter: string;
  /** The campaign's `workers` option (the scenarios depend on it). */
  readonly workers?: number;
  readonly seed?: number;
  readonly path?: string | null;
  /** The command line that repeats it (default: the library call). */
  readonly reproduceCommand?: string;
  /** The model the history was checked against (default the reference model), for the model's replies along the closest order. */
  readonly model?: Model;
  /** Fields the comparison left out (jobModel's `ignoreFields`). */
  readonly ignoreFields?: readonly string[];
}

/** Characters of a lane's column: wide for few lanes, narrower for many. */
const cellWidth = (lanes: number): number => Math.max(30, Math.min(56, Math.floor(112 / lanes)));

const fitCell = (s: string, width: number): string =>
  s.length > width ? `${s.slice(0, width - 3)}...` : s.padEnd(width);

/** A command in a cell: its type and fields, without `now` (the round's column shows it), escaped as a reply is. Pure. */
export function shortCommand(command: unknown): string {
  return outsideText(commandWords(command));
}

function commandWords(command: unknown): string {
  const c = command as Record<string, unknown> | null;
  if (c === null || typeof c !== 'object') return showValue(command);
  switch (c.type) {
    case 'submit':
      return `submit ${String(c.id)} ${String(c.account)}/${String(c.key)} amount=${String(c.amount)} dl=${String(c.deadline)}`;
    case 'claim':
      return `claim by ${String(c.worker)}`;
    case 'commit':
    case 'ack':
      return `${c.type} token=${String(c.token)} by ${String(c.worker)}`;
    case 'fail':
      return `fail ${String(c.kind)} token=${String(c.token)} by ${String(c.worker)}`;
    case 'tick':
      return 'tick';
    case 'snapshot':
      return 'snapshot';
    default:
      return showValue(command);
  }
}

/**
 * A reply in a cell: the part that matters, e.g. `job a token=2 leaseUntil=3`, escaped (its ids,
 * codes and reasons are the implementation's words). Pure.
 */
export function shortReply(reply: unknown): string {
  return outsideText(replyWords(reply));
}

function replyWords(reply: unknown): string {
  const r = reply as Record<string, unknown> | null;
  if (r === null || typeof r !== 'object') return showValue(reply);
  if (r.ok === false) return String(r.code);
  if (typeof r.format === 'string') return 'snapshot';
  switch (r.type) {
    case 'submit':
      return `${r.duplicate === true ? 'duplicate ' : ''}seq=${String(r.seq)}`;
    case 'claim': {
      const job = r.job as { id: string; token: number; leaseUntil: number } | null;
      return job === null ? 'no job' : `job ${job.id} token=${job.token} leaseUntil=${job.leaseUntil}`;
    }
    case 'commit':
      return `${r.applied === true ? 'applied' : 'reused'} balance=${String(r.balance)}`;
    case 'ack':
      return `ok (${String(r.id)} done)`;
    case 'fail':
      return r.status === 'waiting'
        ? `${String(r.id)} waiting until ${String(r.notBefore)}`
        : `${String(r.id)} dead (${String(r.reason)})`;
    case 'tick':
      return 'ok';
    default:
      return showValue(reply);
  }
}

/** The lanes side by side, one row per round (more when a lane sent several requests in it). Pure. */
export function renderLanes(run: ConcurrentRun): string[] {
  const ops = new Map<number, Operation<unknown, unknown>>(run.history.operations.map((o) => [o.id, o]));
  const lanes = Math.max(1, run.workers);
  const CELL = cellWidth(lanes);
  const header = ['round  now ', ...Array.from({ length: lanes }, (_, l) => fitCell(`| lane ${l}`, CELL + 2))].join('');
  const lines = [header.trimEnd(), '-'.repeat(header.trimEnd().length)];
  const cell = (r: SentRequest): [string, string] => {
    const op = ops.get(r.id);
    const span = op?.returned === undefined ? `[${op?.invoked ?? '?'}->?]` : `[${op.invoked}->${op.returned}]`;
    const reply =
      r.indefinite === undefined
        ? `-> ${shortReply(op?.output)}`
        : `-> ?? no reply (${r.indefinite}${r.error === undefined ? '' : `: ${outsideText(r.error)}`})`;
    return [`#${r.id} ${span} ${shortCommand(r.command)}`, `   ${reply}`];
  };
  const faults = [...(run.history.nemesis ?? [])].sort((a, b) => a.at - b.at);
  /** The fault lines recorded before instant `before` and not told yet. */
  const faultsBefore = (before: number): string[] => {
    const told: string[] = [];
    while (faults.length > 0 && (faults[0] as NemesisEvent).at < before)
      told.push(faultLine(faults.shift() as NemesisEvent));
    return told;
  };
  for (const round of run.rounds) {
    lines.push(
      ...faultsBefore(Math.min(...round.requests.map((r) => ops.get(r.id)?.invoked ?? Number.POSITIVE_INFINITY))),
    );
    const perLane = Array.from({ length: lanes }, (_, l) => round.requests.filter((r) => r.lane === l));
    const rows = Math.max(1, ...perLane.map((p) => p.length));
    for (let row = 0; row < rows; row++) {
      const cells = perLane.map((p) => {
        const r = p[row];
        return r === undefined ? ['', ''] : cell(r);
      });
      // `~` marks a round sent while requests of earlier rounds were still in flight.
      const mark = round.overlap === true ? '~' : ' ';
      const lead =
        row === 0 ? `${String(round.index).padStart(3)}${mark}  ${String(round.now).padStart(4)} ` : ' '.repeat(11);
      lines.push((lead + cells.map((c) => `| ${fitCell(c[0] ?? '', CELL)}`).join('')).trimEnd());
      lines.push((' '.repeat(11) + cells.map((c) => `| ${fitCell(c[1] ?? '', CELL)}`).join('')).trimEnd());
    }
  }
  lines.push(...faultsBefore(Number.POSITIVE_INFINITY));
  const snap = ops.get(run.snapshotId);
  if (snap !== undefined) {
    const span =
      snap.returned === undefined ? `[${snap.invoked}->?] (no reply)` : `[${snap.invoked}->${snap.returned}]`;
    lines.push(`   end     | #${snap.id} ${span} snapshot`);
  }
  return lines;
}

/** A fault's start or end as a line of the lanes: `  !! [12] start: partition (hold) of worker lane 1`. Pure. */
function faultLine(event: NemesisEvent): string {
  const note = event.note === undefined ? '' : ` (${outsideText(event.note)})`;
  return `  !! [${event.at}] ${event.phase === 'start' ? 'fault starts' : 'fault ends'}: ${describeFault(event.fault)}${note}`;
}

const roundOf = (run: ConcurrentRun, id: number): { round: number; lane: number } | undefined => {
  for (const round of run.rounds) {
    const r = round.requests.find((q) => q.id === id);
    if (r !== undefined) return { round: round.index, lane: r.lane };
  }
  return undefined;
};

const named = (run: ConcurrentRun, op: Operation<unknown, unknown> | undefined): string => {
  if (op === undefined) return '#?';
  const where = roundOf(run, op.id);
  return `#${op.id} ${shortCommand(op.input)}${where === undefined ? '' : ` (round ${where.round}, lane ${where.lane})`}`;
};

/** The model's replies along the witness's prefix and then the rest in real-time order. Pure. */
function closestOrder(
  run: ConcurrentRun,
  config: Config,
  prefix: readonly number[],
  checked: Pick<ConcurrentStoryContext, 'model' | 'ignoreFields'>,
): string[] {
  const ops = new Map(run.history.operations.map((o) => [o.id, o]));
  const rest = run.history.operations
    .filter((o) => !prefix.includes(o.id) && o.returned !== undefined)
    .sort((a, b) => a.invoked - b.invoked || a.id - b.id)
    .map((o) => o.id);
  const order = [...prefix, ...rest];
  const ignored = new Set(checked.ignoreFields ?? []);
  const model = jobModel(config, checked.model, { ignoreFields: [...ignored] });
  let state = model.init();
  const lines = [
    `The model's replies in the closest order (${order.map((id) => `#${id}`).join(' ')}; requests with no reply outside the prefix left out):`,
  ];
  let shownAfter = 0;
  for (const id of order) {
    const op = ops.get(id);
    if (op === undefined) continue;
    const next = model.step(state, op.input);
    state = next.state;
    const observed = op.returned === undefined ? undefined : op.output;
    const d =
      op.returned === undefined
        ? undefined
        : firstDifference(
            withoutFields(comparableReply(next.output), ignored),
            withoutFields(comparableReply(observed), ignored),
            'reply',
          );
    lines.push(`  ${named(run, op)}`);
    lines.push(`      model:    ${shortReply(next.output)}`);
    if (op.returned === undefined)
      lines.push('      observed: ?? no reply (may have taken effect at any point, or none)');
    else if (d === undefined) lines.push('      observed: same');
    else {
      lines.push(`      observed: ${shortReply(observed)}`);
      lines.push(`      >> ${describeDifference(d)}`);
      shownAfter += 1;
      if (shownAfter >= 3) {
        lines.push('  ...');
        break;
      }
    }
  }
  return lines;
}

/** What went wrong, for the story's first line. Pure. */
function headline(failure: ConcurrentFailure): string {
  switch (failure.kind) {
    case 'not_linearizable':
      return 'no order of the model explains the replies';
    case 'impl_error':
      return `the implementation failed: ${outsideText(failure.error)}`;
  }
}

/** Where the checker's search got stuck, and the model's replies along the closest order. Pure. */
function witnessLines(
  run: ConcurrentRun,
  config: Config,
  witness: Witness<unknown>,
  checked: Pick<ConcurrentStoryContext, 'model' | 'ignoreFields'>,
): string[] {
  const ignored = new Set(checked.ignoreFields ?? []);
  const ops = new Map(run.history.operations.map((o) => [o.id, o]));
  const lines = [
    witness.longestOrder.length === 0
      ? 'No request can come first:'
      : `The longest order found: ${witness.longestOrder.map((id) => `#${id}`).join(' ')}; after it, no request that could come next is explained:`,
  ];
  for (const s of witness.stuck) {
    lines.push(`  ${named(run, ops.get(s.id))}`);
    lines.push(`      model:    ${shortReply(s.expected)}`);
    lines.push(`      observed: ${s.observed === undefined ? '?? no reply' : shortReply(s.observed)}`);
    const d = firstDifference(
      withoutFields(comparableReply(s.expected), ignored),
      withoutFields(comparableReply(s.observed), ignored),
      'reply',
    );
    if (d !== undefined) lines.push(`      >> ${describeDifference(d)}`);
  }
  lines.push('');
  lines.push(...closestOrder(run, config, witness.longestOrder, checked), '');
  return lines;
}

/** What the checker found, for a failure it decided; nothing for one it never ran on. Pure. */
function checkerLines(failure: ConcurrentFailure, ctx: ConcurrentStoryContext): string[] {
  switch (failure.kind) {
    case 'not_linearizable':
      return witnessLines(failure.run, failure.scenario.config, failure.witness, ctx);
    case 'impl_error':
      return [];
  }
}

/** The story of a failure of a concurrent campaign. Pure. */
export function renderConcurrentStory(failure: ConcurrentFailure, ctx: ConcurrentStoryContext): string {
  const run = failure.run;
  const lines: string[] = [];
  lines.push(`${outsideText(ctx.adapter)}: ${headline(failure)}.`);
  const requests = run === null ? 0 : requestCount(run.rounds);
  lines.push(`config: ${describeConfig(failure.scenario.config)}`);
  lines.push(
    `${failure.scenario.workers} worker lane(s), ${run?.rounds.length ?? 0} round(s), ${requests} request(s); every request of a round carries its now; ~ marks a round sent while earlier ones were in flight; [i->j] are its invoke and return instants; dl is a deadline.`,
  );
  lines.push('');
  if (run !== null) lines.push(...renderLanes(run), '');
  lines.push(...checkerLines(failure, ctx));
  if (ctx.seed !== undefined) {
    lines.push(`seed: ${ctx.seed}${ctx.path === undefined || ctx.path === null ? '' : `  path: ${ctx.path}`}`);
    lines.push(
      `reproduce: ${ctx.reproduceCommand !== undefined ? outsideText(ctx.reproduceCommand) : `runConcurrentCampaign({ factory, workers: ${ctx.workers ?? failure.scenario.workers}, seed: ${ctx.seed}${ctx.path === undefined || ctx.path === null ? '' : `, path: ${JSON.stringify(ctx.path)}`} })`}`,
    );
  } else if (ctx.reproduceCommand !== undefined) lines.push(`reproduce: ${outsideText(ctx.reproduceCommand)}`);
  return lines.join('\n');
}
