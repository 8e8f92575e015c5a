/**
 * The worked examples of docs/contract.md, run against the model. Each ```json example block
 * gives a state (`before`, a snapshot without `format`; `config` defaults to the page's
 * ```json config block), a command, the reply, and in `after` the top-level fields that changed
 * (for `jobs`: only the changed jobs, each with its whole new record). A reply's `message` is
 * compared only when the page shows one.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { Config, JobRecord, Snapshot } from '../contract/index.ts';
import { JobcheckError, SNAPSHOT_FORMAT } from '../contract/index.ts';
import { fromSnapshot, step, toSnapshot } from './step.ts';

const PAGE = readFileSync(new URL('../docs/contract.md', import.meta.url), 'utf8');

/** The page's fenced blocks of one info string, parsed, with their line numbers. */
function blocks(info: string): { line: number; value: unknown }[] {
  const out: { line: number; value: unknown }[] = [];
  for (const m of PAGE.matchAll(new RegExp(`^\`\`\`${info}\\n([\\s\\S]*?)^\`\`\`$`, 'gm'))) {
    const line = PAGE.slice(0, m.index).split('\n').length;
    out.push({ line, value: JSON.parse(m[1] ?? '') });
  }
  return out;
}

interface Example {
  readonly config?: Config;
  readonly before: Omit<Snapshot, 'format' | 'config'>;
  readonly command: unknown;
  readonly reply: Record<string, unknown>;
  readonly after: Partial<Omit<Snapshot, 'format' | 'config'>>;
}

const [pageConfig] = blocks('json config');
const examples = blocks('json example').map(({ line, value }) => ({ line, example: value as Example }));

describe('docs/contract.md', () => {
  it('states a default config and at least one example per command and rejection code', () => {
    expect(pageConfig).toBeDefined();
    const commands = new Set(examples.map((e) => (e.example.command as { type: string }).type));
    expect([...commands].sort()).toEqual(['ack', 'claim', 'commit', 'fail', 'submit', 'tick']);
    const codes = new Set(examples.map((e) => e.example.reply['code']).filter((c) => c !== undefined));
    expect([...codes].sort()).toEqual(['capacity_exceeded', 'clock_regressed', 'conflict', 'invalid_argument', 'not_owner', 'out_of_range', 'stale_token']);
  });

  it.each(examples)('worked example at line $line holds in the model', ({ example }) => {
    const config = example.config ?? (pageConfig?.value as Config);
    const before: Snapshot = { format: SNAPSHOT_FORMAT, config, ...example.before };
    const result = step(fromSnapshot(before), example.command);
    const reply = { ...result.reply } as Record<string, unknown>;
    if (!('message' in example.reply)) delete reply['message'];
    expect(reply).toEqual(example.reply);
    const jobs: Record<string, JobRecord> = { ...before.jobs, ...example.after.jobs };
    expect(toSnapshot(result.state)).toEqual({ ...before, ...example.after, jobs });
  });

  it.each(blocks('json snapshot'))('snapshot at line $line is valid and canonical', ({ value }) => {
    expect(toSnapshot(fromSnapshot(value))).toEqual(value);
  });

  it.each(blocks('json restore-example'))('refused snapshot at line $line fails as stated', ({ value }) => {
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
