/**
 * The worked examples of docs/contract.md, run against the model (model/contractExamples.ts reads
 * them). A reply's `message` is compared only when the page shows one.
 */
import { describe, expect, it } from 'vitest';
import { JobcheckError } from '../contract/index.ts';
import { contractBlocks, contractExamples } from './contractExamples.ts';
import { fromSnapshot, step, toSnapshot } from './step.ts';

const examples = contractExamples();

describe('docs/contract.md', () => {
  it('states a default config and at least one example per command and rejection code', () => {
    expect(contractBlocks('json config')[0]).toBeDefined();
    const commands = new Set(examples.map((e) => (e.command as { type: string }).type));
    expect([...commands].sort()).toEqual(['ack', 'claim', 'commit', 'fail', 'submit', 'tick']);
    const codes = new Set(examples.map((e) => e.reply['code']).filter((c) => c !== undefined));
    expect([...codes].sort()).toEqual([
      'capacity_exceeded',
      'clock_regressed',
      'conflict',
      'invalid_argument',
      'not_owner',
      'out_of_range',
      'stale_token',
    ]);
  });

  it.each(examples)('worked example at line $line holds in the model', (example) => {
    const result = step(fromSnapshot(example.before), example.command);
    const reply = { ...result.reply } as Record<string, unknown>;
    if (!('message' in example.reply)) delete reply['message'];
    expect(reply).toEqual(example.reply);
    expect(toSnapshot(result.state)).toEqual(example.after);
  });

  it.each(contractBlocks('json snapshot'))('snapshot at line $line is valid and canonical', ({ value }) => {
    expect(toSnapshot(fromSnapshot(value))).toEqual(value);
  });

  it.each(contractBlocks('json restore-example'))('refused snapshot at line $line fails as stated', ({ value }) => {
    const { snapshot, error } = value as { snapshot: unknown; error: { code: string; path: string } };
    let thrown: unknown;
    try {
      fromSnapshot(snapshot);
    } catch (e) {
      thrown = e;
    }
    expect(thrown).toBeInstanceOf(JobcheckError);
    expect(thrown).toMatchObject(error);
  });
});
