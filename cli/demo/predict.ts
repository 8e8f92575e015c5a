/**
 * The prediction game of `jobcheck demo --predict`: before each step the reader guesses the focus
 * job's status and token and the focus account's balance; the step is then shown with the answer
 * and a running score. Predicting first is the point: a wrong guess shows exactly which rule of
 * the lifecycle the reader had not yet internalised.
 */
import type { JobStatus } from '../../contract/index.ts';
import { RULES } from '../../contract/rules.ts';
import type { RuleId } from '../../contract/rules.ts';
import type { Explanation } from '../../model/explain.ts';
import type { Colors } from '../output/colour.ts';
import { plainColors } from './colours.ts';
import type { FocusView, TracedStep } from './trace.ts';

/** A reader's guess for one step. Null status means "not submitted yet"; null token means "no delivery". */
export interface Prediction {
  readonly status: JobStatus | null;
  readonly token: number | null;
  readonly balance: number;
}

const STATUSES: readonly string[] = ['ready', 'waiting', 'running', 'done', 'dead'];

/** The hint shown with every prompt. */
export const PREDICT_HINT = 'status token balance, e.g. "running 2 7" ("-" = none; Enter skips, q quits)';

/**
 * Reads a prediction line such as `running 2 7` or `done - 7`. Returns a message naming the bad
 * part when the line cannot be read. Pure.
 */
export function parsePrediction(line: string): Prediction | { readonly error: string } {
  const parts = line
    .trim()
    .toLowerCase()
    .split(/[\s,]+/)
    .filter((p) => p !== '');
  if (parts.length !== 3) return { error: `expected 3 values (status token balance), got ${parts.length}` };
  const [status = '', token = '', balance = ''] = parts;
  if (status !== '-' && !STATUSES.includes(status)) {
    return { error: `status ${JSON.stringify(status)} is not one of ${STATUSES.join(', ')} or -` };
  }
  if (token !== '-' && !/^\d+$/.test(token)) return { error: `token ${JSON.stringify(token)} is not a number or -` };
  if (!/^-?\d+$/.test(balance)) return { error: `balance ${JSON.stringify(balance)} is not an integer` };
  return {
    status: status === '-' ? null : (status as JobStatus),
    token: token === '-' ? null : Number(token),
    balance: Number(balance),
  };
}

/**
 * Points for one prediction (one per field right, out of 3) and a line saying which were right,
 * right fields green and wrong ones red when `colors` colour. Pure.
 */
export function scorePrediction(
  guess: Prediction,
  actual: FocusView,
  colors: Colors = plainColors,
): { readonly points: number; readonly verdict: string } {
  const show = (v: string | number | null): string => (v === null ? '-' : String(v));
  const fields: Array<[string, string | number | null, string | number | null]> = [
    ['status', guess.status, actual.status],
    ['token', guess.token, actual.token],
    ['balance', guess.balance, actual.balance],
  ];
  let points = 0;
  const parts = fields.map(([name, g, a]) => {
    if (g === a) {
      points++;
      return colors.green(`${name} right`);
    }
    return colors.red(`${name} wrong (you said ${show(g)}, it is ${show(a)})`);
  });
  return { points, verdict: parts.join(', ') };
}

/**
 * The contract rules that decided a step, each with its sentence from docs/contract.md (bold marks
 * dropped), one line each; a note when no rule decided it. Rule ids bold when `colors` colour. Pure.
 */
export function ruleLines(rules: readonly RuleId[], colors: Colors = plainColors): string[] {
  const decided = RULES.filter((r) => rules.includes(r.id));
  if (decided.length === 0) return ['  rule     no contract rule decided this step'];
  return decided.map(
    (r) => `  rule     ${colors.bold(r.id)}: ${r.sentence.replace(/\*\*/g, '')} (docs/contract.md#rule-${r.id})`,
  );
}

/**
 * Why a step came out as it did (model/explain.ts): one `why` line a reason, the guard's values in
 * the sentence ("the lease runs until 5; now is 4"), yellow when `colors` colour. Pure.
 */
export function whyLines(explanations: readonly Explanation[], colors: Colors = plainColors): string[] {
  return explanations.map((e) => `  why      ${colors.yellow(e.sentence)}`);
}

/** The answer to a wrong guess: why the step came out as it did, then the rules that decided it. Pure. */
export function answerLines(step: Pick<TracedStep, 'explanations' | 'rules'>, colors: Colors = plainColors): string[] {
  return [...whyLines(step.explanations, colors), ...ruleLines(step.rules, colors)];
}
