/**
 * What the recorders' tests share: a scratch folder for history files, every line of a written
 * file validated by the contract's zod schema, an in-process audit (conformance/audit/, as
 * `jobcheck audit` runs it) and the command itself as a process. Imported by tests only.
 */
import { spawnSync } from 'node:child_process';
import { createReadStream, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { HistoryLine } from '../contract/history.ts';
import { historyLineSchema } from '../contract/history.ts';
import type { AuditResult } from '../conformance/audit/index.ts';
import { auditHistory, readHistory } from '../conformance/audit/index.ts';

const root = fileURLToPath(new URL('..', import.meta.url));

/** A scratch folder, and its removal. */
export function scratch(): {
  readonly dir: string;
  readonly file: (name: string) => string;
  readonly remove: () => void;
} {
  const dir = mkdtempSync(join(tmpdir(), 'jobcheck-recorder-'));
  return { dir, file: (name) => join(dir, name), remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Every line of a history file, each parsed by the contract's schema (throws on the first that is not). */
export function historyLines(path: string): HistoryLine[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l, i) => {
      const parsed = historyLineSchema.safeParse(JSON.parse(l));
      if (!parsed.success) throw new Error(`${path}:${i + 1}: ${parsed.error.message}`);
      return parsed.data;
    });
}

/** The files audited in process, as `jobcheck audit` audits them. */
export function audit(paths: readonly string[]): Promise<AuditResult> {
  return auditHistory(paths.map((p) => readHistory(createReadStream(p), p)));
}

/** `jobcheck audit <paths>` as a process: its exit status and output. */
export function auditCommand(paths: readonly string[], report: string): { status: number | null; stdout: string } {
  const r = spawnSync(process.execPath, ['bin/jobcheck.js', 'audit', ...paths, '--report', report], {
    cwd: root,
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { status: r.status, stdout: `${r.stdout}${r.stderr}` };
}

/** A copy of a history without the lines `drop` picks, its end line recounted. */
export function withoutLines(path: string, to: string, drop: (l: HistoryLine) => boolean): number {
  const kept = historyLines(path).filter((l) => l.type !== 'end' && !drop(l));
  const dropped = historyLines(path).length - 1 - kept.length;
  writeFileSync(to, [...kept, { type: 'end', lines: kept.length }].map((l) => `${JSON.stringify(l)}\n`).join(''));
  return dropped;
}
