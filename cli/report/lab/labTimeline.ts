/**
 * The life of one job as separate commits, read from a played story: each delivery (claim), each
 * effect (a commit: applied, reused, or refused), each acknowledgement, each lease that ran out,
 * and the interruption wherever a delivery's effect was committed and that delivery was never
 * acknowledged. The lab draws it (effect and acknowledgement as two steps, the interruption between
 * them marked) and the worksheet's report prints it. Only the model's replies and moves are read,
 * never the story's text. Pure; runs in the page and in Node.
 */

/** One played step as the timeline reads it. */
export interface TimelineStep {
  readonly step: number;
  /** The command played (absent for a restart). */
  readonly do?: Readonly<Record<string, unknown>> | undefined;
  readonly reply?: Readonly<Record<string, unknown>> | undefined;
  readonly moves: readonly { readonly job: string; readonly from: string; readonly to: string }[];
}

/** What a box of the timeline is. */
export type TimelineKind = 'delivery' | 'effect' | 'ack' | 'refused' | 'expiry' | 'interruption';

/** One box of the timeline. */
export interface TimelineEntry {
  readonly step: number;
  readonly kind: TimelineKind;
  readonly text: string;
}

/** The timeline of `job`, and the steps after which an interruption fell. */
export interface Timeline {
  readonly entries: readonly TimelineEntry[];
  /** Steps (1-based) after which a delivery that committed its effect stopped without acknowledging. */
  readonly interrupted: readonly number[];
}

const str = (v: unknown): string => (typeof v === 'string' ? v : JSON.stringify(v));

/** The timeline of `job` in `steps`. Pure. */
export function timelineOf(steps: readonly TimelineStep[], job: string): Timeline {
  const entries: TimelineEntry[] = [];
  /** The focus job's deliveries by token: the worker, the step of its last accepted commit, whether it was acknowledged. */
  const deliveries = new Map<number, { worker: string; committedAt?: number; acked: boolean }>();
  for (const s of steps) {
    for (const m of s.moves)
      if (m.job === job && m.from === 'running' && (m.to === 'ready' || m.to === 'dead') && s.do?.['type'] !== 'fail')
        entries.push({ step: s.step, kind: 'expiry', text: `the lease ran out: ${m.from} → ${m.to}` });
    const c = s.do;
    const r = s.reply;
    if (c === undefined || r === undefined) continue;
    const type = c['type'];
    const rJob = r['job'] as { id?: unknown; token?: unknown } | null | undefined;
    if (type === 'claim' && r['ok'] === true && rJob?.id === job && typeof rJob.token === 'number') {
      deliveries.set(rJob.token, { worker: str(c['worker']), acked: false });
      entries.push({
        step: s.step,
        kind: 'delivery',
        text: `${str(c['worker'])} receives ${job}, token ${rJob.token}`,
      });
      continue;
    }
    const token = c['token'];
    if ((type !== 'commit' && type !== 'ack') || typeof token !== 'number' || !deliveries.has(token)) continue;
    const d = deliveries.get(token) as { worker: string; committedAt?: number; acked: boolean };
    const who = `${str(c['worker'])}, token ${token}`;
    if (r['ok'] !== true) {
      entries.push({ step: s.step, kind: 'refused', text: `${type} by ${who} refused: ${str(r['code'])}` });
      continue;
    }
    if (type === 'commit') {
      d.committedAt = s.step;
      entries.push({
        step: s.step,
        kind: 'effect',
        text: `effect by ${who}: ${r['applied'] === true ? 'applied, recorded' : 'found recorded, reused'}; balance ${str(r['balance'])}`,
      });
    } else {
      d.acked = true;
      entries.push({ step: s.step, kind: 'ack', text: `acknowledgement by ${who}: the delivery is settled` });
    }
  }
  const interrupted = [...deliveries.values()]
    .filter((d) => d.committedAt !== undefined && !d.acked)
    .map((d) => d.committedAt as number)
    .sort((a, b) => a - b);
  const out = [...entries];
  for (const at of [...interrupted].reverse()) {
    const i = out.findIndex((e) => e.step > at);
    const mark: TimelineEntry = {
      step: at,
      kind: 'interruption',
      text: 'interruption: the worker stops after its effect, before its acknowledgement',
    };
    if (i === -1) out.push(mark);
    else out.splice(i, 0, mark);
  }
  return { entries: out, interrupted };
}
