/**
 * The "Under faults" section of a profile page: what the machine's faults are not (word for word
 * from the data), the durability configurations run, then one entry a fault and configuration:
 * its verdict, its reason when unknown, its durability figures, its story and the command that
 * replays it. Pure; every text from outside goes through markdownText or markdownBlock.
 */
import { markdownBlock, markdownCode, markdownText } from '../outside/outsideText.ts';
import type { FaultFigures, FaultResult, FaultsSection } from './result.ts';

/** What each fault does, in a sentence. */
export const FAULT_SENTENCES: Readonly<Record<FaultResult['fault'], string>> = {
  kill: 'SIGKILL of the broker while a submit may be in flight, then a restart on the same data folder and ports; the client reconnects; then two jobs are claimed, committed and acknowledged, and a last claim is sent alone. Every acknowledged submit must still be there, no job acknowledged before the kill handed out again, no effect applied twice.',
  pause:
    "SIGSTOP of the broker while a claimed job's commit and ack are in flight, SIGCONT some ticks later (within the lease); then the next job.",
  'partition-hold':
    'Worker lane 1 claims a job; its connection is cut off by its proxy (hold: bytes kept, delivered on heal); the lease runs out, the cut-off worker acknowledges (the ack is held), worker lane 0 claims the job again; on heal the held ack lands after that claim. The contract refuses it (`stale_token`): the late acknowledgement of the stale holder.',
};

/** The figures in words. Pure. */
export function describeFigures(f: FaultFigures): string {
  return `acknowledged submits lost: ${f.submitsLost} of ${f.acknowledgedSubmits}; committed effects lost: ${f.effectsLost} of ${f.committedEffects}; effects doubled: ${f.effectsDoubled}; jobs handed out again after their acknowledged ack: ${f.acknowledgedRedelivered}; replies the fault swallowed: ${f.indefinite}`;
}

/** A result's verdict in words. Pure. */
export function describeFaultVerdict(r: FaultResult): string {
  switch (r.verdict) {
    case 'holds':
      return 'holds: an order of the model explains the whole history, final snapshot included';
    case 'departs':
      return `departs: no order of the model explains the history${r.replays === undefined ? '' : ` (replayed ${r.replays.runs} times on fresh instances: departed ${r.replays.departed} of ${r.replays.runs})`}`;
    case 'unknown':
      return `unknown: ${markdownText(r.reason ?? 'nothing is known')}`;
  }
}

/** The Markdown lines of the section. Pure. */
export function faultsMarkdown(s: FaultsSection): string[] {
  const lines = ['## Under faults', ''];
  lines.push(
    'Each fault asked one fixed scenario ([conformance/faults/scenarios.ts](../../conformance/faults/scenarios.ts)) on a server of each durability configuration, started for it (`npm run profiles:faults`). Requests whose reply the fault swallowed are indefinite; the history, final snapshot included, is checked for linearizability against the model with the declared variants; a departure counts only if it departs again in at least 2 of 3 replays.',
    '',
    `**What was not tested.** ${markdownText(s.limits)}`,
    '',
    '| configuration | what it is | promise of its documentation |',
    '| --- | --- | --- |',
  );
  for (const c of s.configurations)
    lines.push(`| \`${c.name}\` | ${markdownText(c.description)} | ${markdownText(c.promise)} |`);
  for (const fault of ['kill', 'pause', 'partition-hold'] as const) {
    const results = s.results.filter((r) => r.fault === fault);
    if (results.length === 0) continue;
    lines.push('', `### ${fault}`, '', FAULT_SENTENCES[fault]);
    for (const r of results) {
      lines.push('', `**${r.configuration}**: ${describeFaultVerdict(r)}.`);
      if (r.figures !== undefined) lines.push('', `Figures: ${describeFigures(r.figures)}.`);
      if (r.story !== undefined) lines.push('', markdownBlock(r.story));
      if (r.replay !== undefined) lines.push('', `Replay: ${markdownCode(r.replay)}`);
    }
  }
  return lines;
}
