/**
 * The story of a restore the implementation got wrong, told like every other story: numbered
 * steps, the model's answer and the implementation's, the first field that differs, and the
 * snapshot sent, so that a person can repeat the request by hand.
 */
import { describeConfig } from '../lockstep/story.ts';
import { describeDifference, showValue } from '../lockstep/compare.ts';
import { outsideText } from '../outside/outsideText.ts';
import { BASE_CONFIG, BASE_SNAPSHOT, REFUSAL_WORDS } from './invalidSnapshots.ts';
import type { ModelRefusal } from './invalidSnapshots.ts';
import type { RestoreCaseOutcome, RestoreSeen, RestoreSetupFailure } from './restorePhase.ts';

/** Where section 10 of the contract is, as stories cite it. */
export const RESTORE_SECTION = 'docs/contract.md#10-restore-and-restart';

/** The base snapshot in a few words. Pure. */
function baseInWords(): string {
  const jobs = Object.entries(BASE_SNAPSHOT.jobs)
    .map(([id, job]) => `${id} ${job.status}`)
    .join(', ');
  const balances = Object.entries(BASE_SNAPSHOT.balances)
    .map(([account, n]) => `${account} ${n}`)
    .join(', ');
  return `clock ${BASE_SNAPSHOT.clock}; jobs ${jobs}; balance ${balances}`;
}

/** An answer as a reply line: `{"ok":false,"code":"invalid_snapshot"}  -- message`, the implementation's words escaped. Pure. */
function answerLine(seen: RestoreSeen): string {
  switch (seen.answer) {
    case 'accepted':
      return '{"ok":true,"type":"restore"}';
    case 'refused':
      return `${showValue({ ok: false, code: seen.code })}  -- ${outsideText(seen.message)}`;
    case 'unsupported':
      return `cannot be offered a snapshot: ${outsideText(seen.why)}`;
    case 'failed':
      return `the implementation failed: ${outsideText(seen.error)}`;
  }
}

const refusalLine = (r: ModelRefusal): string => `${showValue({ ok: false, code: r.code })}  -- ${r.message}`;

/** The story of one invalid snapshot the implementation did not refuse as the model does. Pure. */
export function renderRestoreStory(outcome: RestoreCaseOutcome, adapterName: string): string {
  const { snapshot, seen, changed } = outcome;
  const adapter = outsideText(adapterName);
  const what =
    seen.answer === 'accepted'
      ? 'took a snapshot the contract refuses'
      : seen.answer === 'failed'
        ? 'failed on a snapshot the contract refuses'
        : changed !== undefined
          ? 'refused a snapshot but changed its store'
          : 'refused a snapshot with another code';
  const lines = [
    `${adapter} ${what} (restore phase, ${snapshot.kind}: ${REFUSAL_WORDS[snapshot.kind]}).`,
    `config: ${describeConfig(BASE_CONFIG)}`,
    '',
    `  1. restore a valid snapshot (${baseInWords()})`,
    '       model: {"ok":true,"type":"restore"}',
    '       impl:  same',
    `  2. restore ${snapshot.replaces ? `${snapshot.change} (no snapshot at all)` : `the snapshot of step 1 with ${snapshot.change}`}`,
    `       model: ${refusalLine(snapshot.expected)}`,
    `       impl:  ${answerLine(seen)}`,
  ];
  if (seen.answer === 'accepted')
    lines.push('       >> the implementation took it: a snapshot no store could have written must be refused');
  else if (seen.answer === 'refused' && seen.code !== snapshot.expected.code)
    lines.push(
      `       >> reply differs at reply.code: model ${showValue(snapshot.expected.code)}, impl ${showValue(seen.code)}`,
    );
  if (changed !== undefined) {
    const d = changed.difference;
    lines.push(
      '  3. snapshot: a refused restore leaves the store as it was',
      `       >> snapshot differs at ${d.path === '' ? '(value)' : d.path}: before ${showValue(d.model)}, after ${showValue(d.impl)}`,
    );
  }
  lines.push(
    '',
    `the request of step 2: {"type":"restore","snapshot":${clip(snapshot.text)}}`,
    `section 10 of the contract lists what a restore refuses (${RESTORE_SECTION}); every check offers the same snapshots, in the same order.`,
  );
  return lines.join('\n');
}

/** The story of a valid snapshot the implementation did not restore as it is. Pure. */
export function renderRestoreSetupStory(setup: RestoreSetupFailure, adapterName: string): string {
  const adapter = outsideText(adapterName);
  const lines = [
    `${adapter} did not restore a valid snapshot as it is (restore phase: nothing else was offered).`,
    `config: ${describeConfig(BASE_CONFIG)}`,
    '',
    `  1. restore a valid snapshot (${baseInWords()})`,
    '       model: {"ok":true,"type":"restore"}',
    `       impl:  ${setup.changed === undefined ? answerLine(setup.seen) : 'same'}`,
  ];
  if (setup.changed !== undefined)
    lines.push(
      '  2. snapshot: it must equal the snapshot restored (rule snapshot-restore-round-trip)',
      `       >> snapshot differs at ${describeDifference(setup.changed.difference)}`,
    );
  lines.push('', `the request of step 1: {"type":"restore","snapshot":${clip(JSON.stringify(BASE_SNAPSHOT))}}`);
  return lines.join('\n');
}

/** A snapshot's text, cut where it is long. Pure. */
const clip = (text: string): string => (text.length <= 2000 ? text : `${text.slice(0, 1997)}...`);
