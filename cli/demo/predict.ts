/**
 * The prediction game of `jobcheck demo --predict`: before each step the reader guesses the focus
 * job's status and token and the focus account's balance; the step is then shown with the answer
 * and a running score. Predicting first is the point: a wrong guess shows exactly which rule of
 * the lifecycle the reader had not yet internalised.
 */
import type { JobStatus } from '../../contract/index.ts';
import { RULES } from '../../contract/rules.ts';
import type { RuleId } from '../../contract/rules.ts';
import type { FocusView } from './trace.ts';

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

/** Points for one prediction (one per field right, out of 3) and a line saying which were right. Pure. */
export function scorePrediction(
  guess: Prediction,
  actual: FocusView,
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
      return `${name} right`;
    }
    return `${name} wrong (you said ${show(g)}, it is ${show(a)})`;
  });
  return { points, verdict: parts.join(', ') };
}

/**
 * The answer to a wrong guess: the contract rules that decided the step, each with its sentence
 * from docs/contract.md (bold marks dropped), one line each; a note when no rule decided it. Pure.
 */
export function ruleLines(rules: readonly RuleId[]): string[] {
  const decided = RULES.filter((r) => rules.includes(r.id));
  if (decided.length === 0) return ['  rule     no contract rule decided this step: nothing was due to change'];
  return decided.map((r) => `  rule     ${r.id}: ${r.sentence.replace(/\*\*/g, '')} (docs/contract.md#rule-${r.id})`);
}
