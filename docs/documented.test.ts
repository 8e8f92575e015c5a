/**
 * docs/profiles/documented/ held to the documented modes (model/documented.ts) and their citations:
 * - the citations file is of its schema, and every variant of every mode has exactly one citation;
 *   a missing one, a bad URL or an unknown variant is caught;
 * - a documented agreement (`keeps`) names a rule the mode's stored profile keeps;
 * - no adapter may declare a documented service's variant;
 * - the stored profiles of Service Bus Receive-and-Delete and of its variant are what the rule
 *   checks find on their models today (the others take about 10 s together, too long for the
 *   quick part: `npm run profiles:documented` rewrites them);
 * - every page is what the stored data and the citations render to, marked documented, not measured;
 * - the matrix gives the documented modes a section of their own whose every cell says documented.
 */
import { readFileSync, writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { DOCUMENTED_MODES, DOCUMENTED_SERVICES, documentedMode } from '../model/documented.ts';
import type { Profile } from '../conformance/profile/index.ts';
import { ProfileError, checkedModelOf } from '../conformance/profile/index.ts';
import {
  CitationsError,
  citationGaps,
  documentedMatrix,
  modeVerdict,
  profileMode,
  readCitations,
  readStoredProfile,
  renderDocumentedPages,
} from './tools/documentedProfiles.ts';

const DIR = fileURLToPath(new URL('profiles/documented', import.meta.url));
const CITATIONS = join(DIR, 'citations.json');
const scratch = mkdtempSync(join(tmpdir(), 'jobcheck-documented-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const stored = (id: string): Profile => {
  const p = readStoredProfile(join(DIR, 'data'), id);
  if (p === undefined) return expect.fail(`docs/profiles/documented/data: no profile of ${id}`);
  return p;
};
/** A profile's rules and what the mode does to each, without the stories' wording. */
const outcome = (p: Profile): string[] =>
  p.rules.map((r) => `${r.rule}: ${r.status}${r.departure ? ` at step ${r.departure.divergence.step}` : ''}`);
/** The citations file with `change` applied, written to a scratch file; returns its path. */
function edited(change: (c: Record<string, unknown[]>) => void): string {
  const value = JSON.parse(readFileSync(CITATIONS, 'utf8')) as Record<string, unknown[]>;
  change(value);
  const file = join(scratch, `citations-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(file, JSON.stringify(value));
  return file;
}

describe('the citations of the documented modes', () => {
  const citations = readCitations(CITATIONS);

  it('give every variant of every mode exactly one citation', () => {
    expect(citationGaps(citations)).toEqual([]);
    const cited = citations.variants.map((c) => `${c.mode} ${c.variant}`);
    expect(cited.sort()).toEqual(DOCUMENTED_MODES.flatMap((m) => m.variants.map((v) => `${m.id} ${v}`)).sort());
  });

  it('catch a variant left without its citation, or cited twice', () => {
    const gaps = citationGaps(
      readCitations(
        edited((c) => {
          c['variants'] = (c['variants'] ?? []).filter(
            (v) => (v as { variant: string }).variant !== 'delete-on-receive',
          );
        }),
      ),
    );
    expect(gaps).toEqual(['servicebus-receive-and-delete: variant delete-on-receive has 0 citations, not 1']);
    const twice = readCitations(edited((c) => c['variants']?.push(c['variants'][0])));
    expect(citationGaps(twice)).toEqual(['sqs-standard: variant no-account-order has 2 citations, not 1']);
  });

  it('refuse a file off its schema with a coded error naming the field', () => {
    const bad = edited((c) => {
      (c['variants']?.[0] as { url: string }).url = 'not a url';
    });
    expect(() => readCitations(bad)).toThrow(CitationsError);
    try {
      readCitations(bad);
    } catch (e) {
      expect((e as CitationsError).code).toBe('invalid_citations');
      expect((e as Error).message).toContain('variants.0.url');
    }
    const unknown = edited((c) => {
      (c['variants']?.[0] as { variant: string }).variant = 'made-up';
    });
    expect(() => readCitations(unknown)).toThrow(/variants\.0\.variant/);
  });

  it('say a mode keeps a rule only where its profile keeps it', () => {
    for (const k of citations.keeps)
      expect(
        modeVerdict(stored(k.mode).rules.find((r) => r.rule === k.rule) ?? expect.fail(k.rule)),
        `${k.mode} ${k.rule}`,
      ).toBe('keeps');
  });
});

describe('the documented profiles', () => {
  it("state what a service keeps or loses in variants an adapter's declaration may not name", () => {
    const declare = (rule: 'lease-from-claim' | 'oldest-ready-head-first', variant: string) => () =>
      checkedModelOf({ declarations: { [rule]: { kind: 'variant', variant, why: 'documented' } } });
    expect(declare('lease-from-claim', 'delete-on-receive')).toThrow(ProfileError);
    expect(declare('lease-from-claim', 'delete-on-receive')).toThrow(/delete-on-receive states a documented service/);
    expect(declare('oldest-ready-head-first', 'duplicate-within-visibility')).toThrow(/documented service/);
    expect(() =>
      checkedModelOf({
        declarations: { 'account-head-only': { kind: 'variant', variant: 'no-account-order', why: 'x' } },
      }),
    ).not.toThrow();
  });

  it('of Receive-and-Delete is what the rule checks find on their models today', async () => {
    for (const id of ['servicebus-receive-and-delete']) {
      const mode = documentedMode(id) ?? expect.fail(id);
      expect(outcome(await profileMode(mode)), id).toEqual(outcome(stored(id)));
    }
    // The mode is that variant alone: its variant's profile is the same model's.
    expect(outcome(stored('delete-on-receive'))).toEqual(outcome(stored('servicebus-receive-and-delete')));
  });

  it('say that Receive-and-Delete loses the lease a claim holds, and that Peek-Lock keeps its expiry', () => {
    const rd = stored('servicebus-receive-and-delete').rules;
    const pl = stored('servicebus-peek-lock').rules;
    const verdict = (rules: Profile['rules'], rule: string): string =>
      modeVerdict(rules.find((r) => r.rule === rule) ?? expect.fail(rule));
    expect(verdict(rd, 'lease-from-claim')).toBe('loses');
    expect(verdict(pl, 'lease-from-claim')).toBe('keeps');
    expect(verdict(pl, 'expiry-with-attempts-left-requeues')).toBe('keeps');
  });

  it('are rendered into pages that are what the stored data gives, each marked documented, not measured', () => {
    const pages = renderDocumentedPages(DIR);
    expect([...pages.keys()].sort()).toEqual(DOCUMENTED_SERVICES.map((s) => `${s.id}.md`).sort());
    for (const [file, text] of pages) {
      expect(
        readFileSync(join(DIR, file), 'utf8'),
        `docs/profiles/documented/${file} is stale: npm run profiles:documented -- --render-only`,
      ).toBe(text);
      expect(text).toContain(': documented, not measured');
      expect(text).not.toContain('No citation');
      expect(text).not.toContain('No stored profile');
    }
  });

  it('have a section of the matrix whose every cell says documented', () => {
    const profiles = new Map(DOCUMENTED_MODES.map((m) => [m.id, stored(m.id)]));
    const section = documentedMatrix(profiles);
    expect(section[0]).toBe('## Documented, not measured');
    const cells = section
      .filter((l) => l.startsWith('| `'))
      .flatMap((l) => l.split(' | ').slice(1))
      .map((c) => c.replace(/ \|$/, ''));
    expect(cells.length).toBe(profiles.size * section.filter((l) => l.startsWith('| `')).length);
    for (const c of cells) expect(c).toMatch(/documented: (keeps|loses|not established)/);
    expect(cells.some((c) => c.includes('loses'))).toBe(true);
  });
});
