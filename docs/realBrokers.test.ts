/**
 * Chapter 11's "Side by side" held to the stored profiles (docs/profiles/data/*.json): each row
 * that a profile can answer is read cell by cell (the words a cell opens with, or names, say what
 * the broker does), and what the cell says must be what the broker's stored profile found. A result
 * the profile did not establish (flaky, not reached, budget exhausted) contradicts no cell. Every
 * row is either held to the data or named here as one no profile answers, and a held row's label
 * links the rules it is held to. A failure names the row, the broker, the cell and the data.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { RuleId } from '../contract/rules.ts';
import { describeResult } from '../conformance/profile/index.ts';
import type { Profile, RuleResult } from '../conformance/profile/index.ts';
import { COLUMN_DATA, pageOf, readStored } from './tools/profilePages.ts';

const CHAPTER = '11-real-brokers.md';
const chapter = readFileSync(new URL(CHAPTER, import.meta.url), 'utf8');
const DATA_DIR = fileURLToPath(new URL('profiles/data', import.meta.url));

/** What a broker does, as a profile can find it; a result it did not establish is `undefined`. */
type Found = 'conforms' | 'variant' | 'departs' | 'unsupported';

/** What the data says for one cell: what it found (undefined: nothing either way), in words for the message. */
interface Observed {
  readonly found: Found | undefined;
  readonly told: string;
}

/** A row's words read as what the broker does: the first reading whose pattern the cell matches. */
interface Reading {
  readonly words: RegExp;
  readonly says: readonly Found[];
}

/** One claim of a row, held to one thing of a broker's profile. */
interface Check {
  /** The rules this claim is held to, which the row's label must link. */
  readonly rules: readonly RuleId[];
  readonly observe: (p: Profile) => Observed;
  readonly readings: readonly Reading[];
}

const plain = (text: string): string => text.replace(/\*\*/g, '');
const FOUND: Readonly<Record<RuleResult['status'], Found | undefined>> = {
  conforms: 'conforms',
  variant: 'variant',
  departs: 'departs',
  unsupported: 'unsupported',
  flaky: undefined,
  not_reached: undefined,
  budget_exhausted: undefined,
  unknown: undefined,
};

/** The command at a departure's first differing step (`commit`, `ack`, ...), read from its story. Pure. */
function commandAt(r: RuleResult): string | undefined {
  const d = r.departure;
  if (d === undefined) return undefined;
  return new RegExp(`^\\s+${d.divergence.step}\\. ([a-z]+)`, 'm').exec(d.story)?.[1];
}

/** A rule's result; with `at`, a departure counts only at that command (another establishes nothing here). */
function rule(id: RuleId, at?: string): (p: Profile) => Observed {
  return (p) => {
    const r = p.rules.find((x) => x.rule === id);
    if (r === undefined) return { found: undefined, told: `\`${id}\` absent` };
    const told = `\`${id}\` ${plain(describeResult(r))}`;
    if (at !== undefined && r.status === 'departs' && commandAt(r) !== at)
      return { found: undefined, told: `${told}, at a ${commandAt(r)}, not a ${at}` };
    return { found: FOUND[r.status], told };
  };
}

/** The fixed stale-acknowledgement scenario of competing workers (its section on each page). */
function staleAck(p: Profile): Observed {
  const verdict = p.concurrent?.staleAck?.verdict;
  const told = `the stale acknowledgement: ${verdict ?? 'not run'}`;
  if (verdict === 'kept') return { found: 'conforms', told };
  return { found: verdict === 'departs' ? 'departs' : undefined, told };
}

/** An ack after the lease ended is accepted when a rule of the lease's end departs at an ack. */
const LEASE_END: readonly RuleId[] = ['lease-equality-expires', 'expiry-with-attempts-left-requeues'];
function ackAfterLease(p: Profile): Observed {
  const results = LEASE_END.map((id) => p.rules.find((r) => r.rule === id));
  const atAck = results.find((r) => r?.status === 'departs' && commandAt(r) === 'ack');
  if (atAck !== undefined) return { found: 'departs', told: `\`${atAck.rule}\` departs at an ack` };
  const checked = results.every((r) => r?.status === 'conforms' || r?.status === 'departs');
  const told = results.map((r) => (r === undefined ? '' : `\`${r.rule}\` ${plain(describeResult(r))}`)).join(', ');
  return { found: checked ? 'conforms' : undefined, told: `no ack departs (${told})` };
}

const ANY = /./;
/**
 * The rows a profile answers, by the row's name (its label without the rule links), each with
 * its claims. The readings are this test's reading of the chapter's words, first match wins.
 */
const HELD: Readonly<Record<string, readonly Check[]>> = {
  'repeated submit recognised': [
    {
      rules: ['duplicate-submit-accepted'],
      observe: rule('duplicate-submit-accepted'),
      readings: [
        { words: /^no\b/, says: ['departs'] },
        { words: ANY, says: ['conforms'] },
      ],
    },
    {
      rules: ['changed-payload-conflicts'],
      observe: rule('changed-payload-conflicts'),
      readings: [
        { words: /^no\b|by id only/, says: ['departs'] },
        { words: ANY, says: ['conforms'] },
      ],
    },
  ],
  capacity: [
    {
      rules: ['capacity-counts-running'],
      observe: rule('capacity-counts-running'),
      readings: [
        { words: /^none\b/, says: ['unsupported'] },
        { words: /over the limit|holds its place/, says: ['departs'] },
        { words: ANY, says: ['conforms'] },
      ],
    },
  ],
  'repeated effect recognised': [
    {
      rules: ['effect-idempotent'],
      observe: rule('effect-idempotent'),
      readings: [{ words: /the worker's ledger/, says: ['conforms'] }],
    },
  ],
  "old holder's ack after a redelivery": [
    {
      rules: [],
      observe: staleAck,
      readings: [
        { words: /^refused\b/, says: ['conforms'] },
        { words: /^(acks\b|\*\*accepted\*\*)/, says: ['departs'] },
      ],
    },
  ],
  'ack after the lease, nobody else holding': [
    {
      rules: LEASE_END,
      observe: ackAfterLease,
      readings: [
        { words: /^accepted\b/, says: ['departs'] },
        { words: /^refused\b/, says: ['conforms'] },
      ],
    },
  ],
  "worker's write after its delivery ended": [
    {
      rules: ['stale-token-refused'],
      observe: rule('stale-token-refused', 'commit'),
      readings: [
        { words: /^applied\b/, says: ['departs'] },
        { words: /^refused\b/, says: ['conforms'] },
      ],
    },
  ],
  'last attempt times out': [
    {
      rules: ['last-attempt-expiry-is-dead'],
      observe: rule('last-attempt-expiry-is-dead'),
      readings: [
        { words: /delivered again|forever|still removes|not told apart/, says: ['departs'] },
        { words: /dead-lettered|delivered no more/, says: ['conforms'] },
      ],
    },
  ],
  'bounded retry policy': [
    {
      rules: ['attempts-exhausted-dead'],
      observe: rule('attempts-exhausted-dead'),
      readings: [{ words: ANY, says: ['conforms'] }],
    },
    {
      rules: ['backoff-capped'],
      observe: rule('backoff-capped'),
      readings: [
        { words: /no delay/, says: ['variant'] },
        { words: /without a cap/, says: ['variant'] },
        { words: ANY, says: ['conforms'] },
      ],
    },
  ],
  'failure text kept': [
    {
      rules: ['last-error-kept'],
      observe: rule('last-error-kept'),
      readings: [
        { words: /^yes\b/, says: ['conforms'] },
        { words: /^no\b/, says: ['departs', 'unsupported'] },
      ],
    },
  ],
};

/** The rows no profile answers: how a broker works, not what it does to a rule. */
const DESCRIBED = [
  'delivery mode',
  'evidence of a delivery',
  'repeated delivery counted as',
  'acknowledgement operation',
  'expiry behaviour',
  'owner of repeatedly failing work',
  'a human decides',
];

/** The cells of a Markdown table row (`| a | b |`), trimmed. Pure. */
const cells = (line: string): string[] =>
  line
    .slice(1, -1)
    .split(/(?<!\\)\|/)
    .map((c) => c.trim());

/** The first table under a heading of the chapter, as rows of cells (the header first). */
function tableUnder(heading: string | undefined): string[][] {
  const start = heading === undefined ? 0 : chapter.indexOf(`\n## ${heading}\n`);
  expect(start, `${CHAPTER}: no section "${heading}"`).toBeGreaterThanOrEqual(0);
  const lines = chapter.slice(start).split('\n');
  const first = lines.findIndex((l) => l.startsWith('| '));
  const table: string[][] = [];
  for (const line of lines.slice(first)) {
    if (!line.startsWith('|')) break;
    if (!/^\|[\s|:-]+\|$/.test(line)) table.push(cells(line));
  }
  return table;
}

/** A row label's name (without its rule links) and the rules it links. Pure. */
function label(text: string): { readonly name: string; readonly rules: RuleId[] } {
  const rules = [...text.matchAll(/\[`([a-z-]+)`\]\(contract\.md#rule-([a-z-]+)\)/g)].map((m) => m[1] as RuleId);
  return { name: text.replace(/\s*\(\[`.*$/, ''), rules };
}

/** Each broker column of the side by side with its stored profile, found through the chapter's first table's page link. */
function brokers(
  header: readonly string[],
): { readonly broker: string; readonly data: string; readonly profile: Profile }[] {
  const pages = new Map(
    tableUnder(undefined)
      .slice(1)
      .map((row) => [row[0] ?? '', /\(profiles\/([a-z0-9-]+\.md)\)/.exec(row.join(' '))?.[1]] as const),
  );
  const stored = COLUMN_DATA.flatMap((data) => {
    const profile = readStored(DATA_DIR, data, (line) => expect.fail(line));
    return profile === undefined ? [] : [{ data, profile }];
  });
  return header.slice(1).map((broker) => {
    const page = pages.get(broker);
    const found = stored.find((s) => pageOf(s.profile) === page);
    if (found === undefined)
      return expect.fail(`${CHAPTER}: the broker "${broker}" has no stored profile (page ${page})`);
    return { broker, ...found };
  });
}

describe(`docs/${CHAPTER}: side by side`, () => {
  const [header, ...rows] = tableUnder('Side by side');

  it('holds every row to the profiles, or names it as one no profile answers', () => {
    const names = rows.map((r) => label(r[0] ?? '').name);
    expect(names.filter((n) => HELD[n] === undefined && !DESCRIBED.includes(n))).toEqual([]);
    expect(Object.keys(HELD).filter((n) => !names.includes(n))).toEqual([]);
  });

  it('links, in each held row, the rules it is held to', () => {
    for (const row of rows) {
      const { name, rules } = label(row[0] ?? '');
      const checks = HELD[name];
      if (checks === undefined) expect(rules, name).toEqual([]);
      else expect(rules, name).toEqual(checks.flatMap((c) => c.rules));
    }
  });

  it("says in every held cell what the broker's stored profile found", () => {
    const columns = brokers(header ?? []);
    const disagreements: string[] = [];
    let compared = 0;
    for (const row of rows) {
      const { name } = label(row[0] ?? '');
      for (const check of HELD[name] ?? []) {
        columns.forEach(({ broker, data, profile }, i) => {
          const cell = row[i + 1] ?? '';
          const observed = check.observe(profile);
          const reading = check.readings.find((r) => r.words.test(cell));
          const where = `row "${name}", ${broker}: the chapter's cell "${cell}"`;
          const stored = `docs/profiles/data/${data}.json has ${observed.told}`;
          if (reading === undefined) disagreements.push(`${where} is not read by this test; ${stored}`);
          else if (observed.found !== undefined) {
            compared += 1;
            if (!reading.says.includes(observed.found))
              disagreements.push(`${where} says ${reading.says.join(' or ')}; ${stored}`);
          }
        });
      }
    }
    expect(disagreements).toEqual([]);
    // Most cells are held to an established result: a test that compares nothing would pass anything.
    expect(compared).toBeGreaterThan(20);
  });
});
