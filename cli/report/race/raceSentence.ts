/**
 * What happened in a race, in one sentence in the job store's own words ("two overlapping claims
 * both got job a"), for the top of the race section. Each kind of race the catalogue holds has a
 * reading (a job delivered twice, an old delivery's ack accepted beside a newer one, an accepted
 * ack the final snapshot does not show, an account's second job started while its first ran, an
 * effect applied twice, a submit over the capacity, a lane's submit its own claim could not see);
 * a reading is said only when the history's own requests and replies show it, by the contract's
 * rules alone. Anything else gets a neutral sentence from the checker's witness: the request no
 * order could place, its reply and the model's (for a snapshot, the first field that differs).
 *
 * Pure: it reads the failure's history and writes text (raw: the page escapes it).
 */
import type { RaceFailure } from '../../../conformance/check/failure.ts';
import type { Operation } from '../../../conformance/concurrent/history.ts';
import { shortCommand, shortReply } from '../../../conformance/concurrent/story.ts';
import { comparableReply, firstDifference, showValue } from '../../../conformance/lockstep/compare.ts';
import { clipText } from '../../../contract/index.ts';

type Op = Operation<unknown, unknown>;
type Fields = Readonly<Record<string, unknown>>;

const fields = (v: unknown): Fields | undefined =>
  typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Fields) : undefined;
const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
/** A string of a reply or a command, clipped: a reply's id can be as long as a protocol line. */
const str = (v: unknown): string | undefined => (typeof v === 'string' ? clipText(v, 40) : undefined);

/** A request with its command and, when it came, its reply. */
interface Sent {
  readonly op: Op;
  readonly type: string;
  readonly command: Fields;
  readonly reply: Fields | undefined;
}

/** A claim that delivered a job. */
interface Delivery {
  readonly op: Op;
  readonly worker: string;
  readonly now: number;
  readonly job: string;
  readonly token: number;
  readonly leaseUntil: number;
  readonly account: string | undefined;
  readonly deadline: number | undefined;
}

const sent = (op: Op): Sent | undefined => {
  const command = fields(op.input);
  const type = str(command?.type);
  if (command === undefined || type === undefined) return undefined;
  return { op, type, command, reply: op.returned === undefined ? undefined : fields(op.output) };
};

const accepted = (s: Sent): boolean => s.reply?.ok === true;

function deliveryOf(s: Sent): Delivery | undefined {
  if (s.type !== 'claim' || !accepted(s)) return undefined;
  const job = fields(s.reply?.job);
  const id = str(job?.id);
  const token = num(job?.token);
  const leaseUntil = num(job?.leaseUntil);
  const now = num(s.command.now);
  if (id === undefined || token === undefined || leaseUntil === undefined || now === undefined) return undefined;
  const payload = fields(job?.payload);
  return {
    op: s.op,
    worker: String(s.command.worker),
    now,
    job: id,
    token,
    leaseUntil,
    account: str(payload?.account),
    deadline: num(payload?.deadline),
  };
}

/** Whether two requests were in flight together (both replied, their spans cross). */
const overlapping = (a: Op, b: Op): boolean =>
  a.returned !== undefined && b.returned !== undefined && a.invoked < b.returned && b.invoked < a.returned;

/** The tokens an accepted ack or fail settled: after one, its delivery no longer holds the job. */
const settledTokens = (all: readonly Sent[]): Set<number> =>
  new Set(
    all
      .filter((s) => (s.type === 'ack' || s.type === 'fail') && accepted(s))
      .map((s) => num(s.command.token))
      .filter((t): t is number => t !== undefined),
  );

/** Pairs of deliveries, the earlier token first. */
function pairs(deliveries: readonly Delivery[]): Array<[Delivery, Delivery]> {
  const sorted = [...deliveries].sort((a, b) => a.token - b.token);
  return sorted.flatMap((a, i) => sorted.slice(i + 1).map((b): [Delivery, Delivery] => [a, b]));
}

/** Whether `b` was claimed while `a`'s delivery still held its job by the contract: lease and deadline not reached, never settled. */
const stillHeld = (a: Delivery, b: Delivery, settled: Set<number>): boolean =>
  b.now < a.leaseUntil && (a.deadline === undefined || b.now < a.deadline) && !settled.has(a.token);

const claims = (a: Delivery, b: Delivery): string =>
  overlapping(a.op, b.op) ? 'two overlapping claims' : 'two claims';

/** One job delivered twice: a second claim got it while the first delivery's lease held and nothing settled it. */
function deliveredTwice(deliveries: readonly Delivery[], settled: Set<number>): string | undefined {
  const hit = pairs(deliveries).find(([a, b]) => a.job === b.job && stillHeld(a, b, settled));
  if (hit === undefined) return undefined;
  const [a, b] = hit;
  return `${claims(a, b)} both got job ${a.job}: #${a.op.id} by ${a.worker} (token ${a.token}, lease until ${a.leaseUntil}) and #${b.op.id} by ${b.worker} (token ${b.token}) at now ${b.now}, before that lease ran out.`;
}

/** An old delivery's ack accepted beside a newer delivery of the same job: either alone is the contract, both together are not. */
function staleAck(all: readonly Sent[], deliveries: readonly Delivery[]): string | undefined {
  for (const s of all.filter((x) => x.type === 'ack' && accepted(x))) {
    const token = num(s.command.token);
    const job = str(s.reply?.id);
    const newer = deliveries.find((d) => d.job === job && token !== undefined && d.token > token);
    if (token === undefined || job === undefined || newer === undefined) continue;
    return `the ack #${s.op.id} with the old token ${token} settled job ${job}, and the claim #${newer.op.id} by ${newer.worker} took job ${job} again (token ${newer.token}): no order accepts both.`;
  }
  return undefined;
}

/** An accepted ack whose job the store's final snapshot has in another state than done (nothing can undo a done job). */
function ackUndone(failure: RaceFailure, all: readonly Sent[]): string | undefined {
  const run = failure.race.run;
  const final = all.find((s) => s.op.id === run?.snapshotId);
  const stuck = failure.race.witness?.stuck.some((x) => x.id === final?.op.id) === true;
  const jobs = fields(final?.reply?.jobs);
  if (final === undefined || !stuck || jobs === undefined) return undefined;
  for (const s of all.filter((x) => x.type === 'ack' && accepted(x))) {
    const job = str(s.reply?.id);
    const status = job === undefined ? undefined : str(fields(jobs[job])?.status);
    if (job === undefined || status === undefined || status === 'done') continue;
    return `the ack #${s.op.id} by ${String(s.command.worker)} was accepted (job ${job} done), yet the store's final snapshot (#${final.op.id}) has job ${job} ${status}.`;
  }
  return undefined;
}

/** An account's second job started while its first ran. */
function accountTwice(deliveries: readonly Delivery[], settled: Set<number>): string | undefined {
  const hit = pairs(deliveries).find(
    ([a, b]) => a.job !== b.job && a.account !== undefined && a.account === b.account && stillHeld(a, b, settled),
  );
  if (hit === undefined) return undefined;
  const [a, b] = hit;
  return `${claims(a, b)} got jobs ${a.job} and ${b.job} of account ${a.account}: #${b.op.id} by ${b.worker} started ${b.job} while ${a.job} was still running (#${a.op.id} by ${a.worker}), where an account runs one job at a time.`;
}

/** One effect applied twice: two commits of the same (account, key) both replied `applied: true`. */
function effectTwice(all: readonly Sent[]): string | undefined {
  const effectOf = new Map<string, string>();
  for (const s of all.filter((x) => x.type === 'submit')) {
    const id = str(s.command.id);
    if (id !== undefined) effectOf.set(id, `${String(s.command.account)}/${String(s.command.key)}`);
  }
  const applied = all.filter((s) => s.type === 'commit' && accepted(s) && s.reply?.applied === true);
  for (const [i, a] of applied.entries()) {
    const jobA = str(a.reply?.id);
    const effect = jobA === undefined ? undefined : (effectOf.get(jobA) ?? `of job ${jobA}`);
    const b = applied.slice(i + 1).find((x) => {
      const jobB = str(x.reply?.id);
      return jobB !== undefined && (effectOf.get(jobB) ?? `of job ${jobB}`) === effect;
    });
    if (b === undefined || effect === undefined) continue;
    const what = (s: Sent): string => `#${s.op.id} by ${String(s.command.worker)} (token ${String(s.command.token)})`;
    return `${overlapping(a.op, b.op) ? 'two overlapping commits' : 'two commits'} both applied the effect ${effect}: ${what(a)} and ${what(b)}, where a second commit of an effect is reused (applied: false).`;
  }
  return undefined;
}

/** A stuck submit the implementation admitted where the model refuses it with capacity_exceeded. */
function overCapacity(failure: RaceFailure, all: readonly Sent[]): string | undefined {
  const race = failure.race;
  for (const stuck of race.witness?.stuck ?? []) {
    const s = all.find((x) => x.op.id === stuck.id);
    const expected = fields(stuck.expected);
    if (s?.type !== 'submit' || !accepted(s) || expected?.code !== 'capacity_exceeded') continue;
    const beside = all.filter(
      (x) => x !== s && x.type === 'submit' && accepted(x) && x.reply?.duplicate !== true && overlapping(x.op, s.op),
    );
    const capacity = race.scenario.config.capacity;
    const ids = [...beside, s].map((x) => x.op.id).sort((a, b) => a - b);
    const listed = `${ids
      .slice(0, -1)
      .map((id) => `#${id}`)
      .join(', ')} and #${ids[ids.length - 1]}`;
    return beside.length === 0
      ? `the submit #${s.op.id} of job ${String(s.command.id)} was admitted where the model refuses it with capacity_exceeded (capacity ${capacity}).`
      : `overlapping submits ${listed} were ${ids.length === 2 ? 'both' : 'all'} admitted, where the model refuses #${s.op.id} (job ${String(s.command.id)}) with capacity_exceeded (capacity ${capacity}).`;
  }
  return undefined;
}

/** A lane's claim that found no job though the lane's own submit of one had been acknowledged before it was sent. */
function laneOwnSubmit(failure: RaceFailure, all: readonly Sent[]): string | undefined {
  for (const stuck of failure.race.witness?.stuck ?? []) {
    const s = all.find((x) => x.op.id === stuck.id);
    const expectedJob = str(fields(fields(stuck.expected)?.job)?.id);
    if (s?.type !== 'claim' || !accepted(s) || s.reply?.job !== null || expectedJob === undefined) continue;
    const own = all.find(
      (x) =>
        x.type === 'submit' &&
        x.op.lane === s.op.lane &&
        accepted(x) &&
        str(x.command.id) === expectedJob &&
        x.op.returned !== undefined &&
        x.op.returned < s.op.invoked,
    );
    if (own === undefined) continue;
    return `lane ${s.op.lane}'s claim #${s.op.id} got no job, though the same lane's submit #${own.op.id} of job ${expectedJob} had been acknowledged before it was sent.`;
  }
  return undefined;
}

/** The witness told plainly: the first request no order could place, what it got and what the model gives there. */
function neutral(failure: RaceFailure): string {
  const race = failure.race;
  if (race.kind === 'impl_error')
    return `the implementation failed under competing requests: ${clipText(race.error, 300)}`;
  const stuck = race.witness.stuck[0];
  const op = race.run.history.operations.find((o) => o.id === stuck?.id);
  const placed = race.witness.longestOrder.length;
  if (stuck === undefined || op === undefined) return 'no order of the requests explains the replies.';
  const after = `after the ${placed} ${placed === 1 ? 'request' : 'requests'} the checker could place`;
  const got = stuck.observed === undefined ? 'no reply' : shortReply(stuck.observed);
  const model = shortReply(stuck.expected);
  const d = firstDifference(comparableReply(stuck.expected), comparableReply(stuck.observed));
  // Two replies told alike (two snapshots) differ in a field: name it.
  if (got === model && d !== undefined)
    return `no order of the requests explains the replies: ${after}, #${op.id} (${shortCommand(op.input)}) got ${d.path === '' ? 'a reply' : d.path} ${clipText(showValue(d.impl), 80)} where the model has ${clipText(showValue(d.model), 80)}.`;
  return `no order of the requests explains the replies: ${after}, #${op.id} (${shortCommand(op.input)}) got "${got}" where the model replies "${model}".`;
}

/** What happened, in one sentence, starting with a capital. Pure. */
export function raceSentence(failure: RaceFailure): string {
  const run = failure.race.run;
  const all = (run?.history.operations ?? []).map(sent).filter((s): s is Sent => s !== undefined);
  const deliveries = all.map(deliveryOf).filter((d): d is Delivery => d !== undefined);
  const settled = settledTokens(all);
  const said =
    failure.race.kind === 'impl_error'
      ? undefined
      : (deliveredTwice(deliveries, settled) ??
        staleAck(all, deliveries) ??
        ackUndone(failure, all) ??
        accountTwice(deliveries, settled) ??
        effectTwice(all) ??
        overCapacity(failure, all) ??
        laneOwnSubmit(failure, all));
  const text = said ?? neutral(failure);
  return `${text.charAt(0).toUpperCase()}${text.slice(1)}`;
}
