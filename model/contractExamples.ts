/**
 * The worked examples of docs/contract.md as data, so that the model (model/contractDoc.test.ts)
 * and every implementation (conformance/contractExamples.test.ts) are held to the same page. Each
 * ```json example block gives a state (`before`, a snapshot without `format`; `config` defaults to
 * the page's ```json config block), a command, the reply, and in `after` the top-level fields that
 * changed (for `jobs`: only the changed jobs, each with its whole new record).
 */
import { readFileSync } from 'node:fs';
import type { Config, JobRecord, Snapshot } from '../contract/index.ts';
import { SNAPSHOT_FORMAT } from '../contract/index.ts';

const PAGE = readFileSync(new URL('../docs/contract.md', import.meta.url), 'utf8');

/** The page's fenced blocks of one info string (`json example`, `json snapshot`, ...), parsed, with their line numbers. */
export function contractBlocks(info: string): { line: number; value: unknown }[] {
  const out: { line: number; value: unknown }[] = [];
  for (const m of PAGE.matchAll(new RegExp(`^\`\`\`${info}\\n([\\s\\S]*?)^\`\`\`$`, 'gm'))) {
    const line = PAGE.slice(0, m.index).split('\n').length;
    out.push({ line, value: JSON.parse(m[1] ?? '') });
  }
  return out;
}

/** One worked example as written on the page. */
export interface ContractExample {
  readonly config?: Config;
  readonly before: Omit<Snapshot, 'format' | 'config'>;
  readonly command: unknown;
  readonly reply: Record<string, unknown>;
  readonly after: Partial<Omit<Snapshot, 'format' | 'config'>>;
}

/** A worked example resolved: the full snapshot before, the command, the reply and snapshot expected. */
export interface ResolvedExample {
  readonly line: number;
  readonly before: Snapshot;
  readonly command: unknown;
  /** The reply; `message` only when the page shows one (else it is not compared). */
  readonly reply: Record<string, unknown>;
  readonly after: Snapshot;
}

/** The page's default config (its ```json config block). */
export const contractConfig = (): Config => contractBlocks('json config')[0]?.value as Config;

/** Every worked example of the page, resolved to whole snapshots. Reads docs/contract.md. */
export function contractExamples(): ResolvedExample[] {
  const config = contractConfig();
  return contractBlocks('json example').map(({ line, value }) => {
    const e = value as ContractExample;
    const before: Snapshot = { format: SNAPSHOT_FORMAT, config: e.config ?? config, ...e.before };
    const jobs: Record<string, JobRecord> = { ...before.jobs, ...e.after.jobs };
    return { line, before, command: e.command, reply: e.reply, after: { ...before, ...e.after, jobs } };
  });
}
