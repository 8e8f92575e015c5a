/**
 * Chapter 12 against the stored fault results: every table of the chapter whose header opens with
 * `queue | configuration` has a row for each queue and configuration the campaign ran (the "Under
 * faults" sections of docs/profiles/data/*.json), and each of its cells says what the data says:
 * a fault's verdict under the fault's name (or `verdict` in the kill table), the durability
 * figures as `lost of acknowledged`, "(no final snapshot)" where the run has none. A rerun of
 * `npm run profiles:faults` that changes a result fails here until the chapter reads it.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { FaultResult, Profile } from '../conformance/profile/index.ts';
import { COLUMN_DATA, pageOf, readStored } from './tools/profilePages.ts';

const DATA_DIR = fileURLToPath(new URL('profiles/data', import.meta.url));
const chapter = readFileSync(new URL('12-queues-under-faults.md', import.meta.url), 'utf8');

const profiles = COLUMN_DATA.map((data) => readStored(DATA_DIR, data, (line) => expect.fail(line))).filter(
  (p): p is Profile => p !== undefined,
);
/** The stored profile whose page a chapter link names (`profiles/pg-boss.md#kill`). */
const profileOf = (link: string): Profile | undefined => profiles.find((p) => link.startsWith(`profiles/${pageOf(p)}`));

/** The chapter's tables whose header opens with `queue | configuration`, as rows of named cells. */
function tables(): { header: string[]; rows: Map<string, string>[] }[] {
  const found: { header: string[]; rows: Map<string, string>[] }[] = [];
  const cells = (line: string): string[] =>
    line
      .replace(/^\|\s*|\s*\|$/g, '')
      .split(/\s+\|\s+/)
      .map((c) => c.trim());
  const lines = chapter.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const header = cells(lines[i] ?? '');
    if (header[0] !== 'queue' || header[1] !== 'configuration') continue;
    const rows: Map<string, string>[] = [];
    for (let j = i + 2; (lines[j] ?? '').startsWith('|'); j++) {
      const row = cells(lines[j] as string);
      rows.push(new Map(header.map((h, k) => [h, row[k] ?? ''])));
    }
    found.push({ header, rows });
  }
  return found;
}

const ratio = (lost: number | undefined, of: number | undefined): string =>
  lost === undefined || of === undefined ? '(no final snapshot)' : `${lost} of ${of}`;

/** What a cell under `column` must say of `result`. */
function expected(column: string, result: FaultResult): string | undefined {
  const f = result.figures;
  if (column === 'verdict' || column === result.fault) return result.verdict;
  if (column === 'acknowledged submits lost') return ratio(f?.submitsLost, f?.acknowledgedSubmits);
  if (column === 'committed effects lost') return ratio(f?.effectsLost, f?.committedEffects);
  return undefined;
}

describe('chapter 12, Queues under faults', () => {
  const found = tables();

  it('has its tables, a kill table with the durability figures among them', () => {
    expect(found.length).toBeGreaterThanOrEqual(2);
    expect(found.some((t) => t.header.includes('acknowledged submits lost'))).toBe(true);
  });

  it('says in every cell what the stored results say', () => {
    for (const { header, rows } of found) {
      const faults = header.slice(2).some((h) => h === 'verdict') ? ['kill'] : header.slice(2);
      for (const row of rows) {
        const link = /\]\(([^)]+)\)/.exec(row.get('queue') ?? '')?.[1] ?? '';
        const profile = profileOf(link);
        expect(profile, `no stored profile for the chapter's link ${link}`).toBeDefined();
        const configuration = (row.get('configuration') ?? '').replace(/`/g, '').split(' ')[0];
        for (const column of header.slice(2)) {
          const fault = faults.includes(column) ? column : 'kill';
          const result = profile?.faults?.results.find((r) => r.fault === fault && r.configuration === configuration);
          expect(result, `${link} ${configuration}: no ${fault} result`).toBeDefined();
          const want = expected(column, result as FaultResult);
          if (want !== undefined) expect(row.get(column), `${link} ${configuration} ${column}`).toBe(want);
        }
      }
    }
  });

  it('has a row for every queue and configuration the campaign ran, in every table', () => {
    for (const { header, rows } of found) {
      const faults = header.includes('verdict') ? ['kill'] : header.slice(2);
      const listed = new Set(
        rows.map((r) => {
          const link = /\]\(([^)]+)\)/.exec(r.get('queue') ?? '')?.[1] ?? '';
          return `${profileOf(link)?.queue} ${(r.get('configuration') ?? '').replace(/`/g, '').split(' ')[0]}`;
        }),
      );
      const ran = profiles.flatMap((p) =>
        (p.faults?.results ?? []).filter((r) => faults.includes(r.fault)).map((r) => `${p.queue} ${r.configuration}`),
      );
      expect(
        [...new Set(ran)].filter((k) => !listed.has(k)),
        header.join(' | '),
      ).toEqual([]);
    }
  });
});
