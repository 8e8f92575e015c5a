/**
 * One JUnit document from the JUnit files of the shards of one check (cli/junit.ts writes each).
 * The suites of the same name are joined; the one case every shard has, `random campaign`, is
 * named after its shard (`random campaign (shard 2/3)`), so that names stay unique and the same
 * from run to run; the counts of each suite and of the whole are counted again from the cases.
 *
 * The files are read as jobcheck writes them (one element a line, attribute values escaped), not
 * as any JUnit XML: this is the other half of cli/junit.ts, not an XML parser. A file that does
 * not look like one is refused (parseJunit throws).
 */
import { xmlEscape } from './junit.ts';

/** One suite of a JUnit file: its name, its properties and its cases as written. */
export interface JunitSuite {
  readonly name: string;
  readonly properties: ReadonlyArray<readonly [string, string]>;
  /** Each `<testcase ...>` element, as written (attribute values escaped). */
  readonly cases: readonly string[];
}

/** A JUnit file of one check: the `<testsuites>` name and its suites. */
export interface JunitFile {
  readonly name: string;
  readonly suites: readonly JunitSuite[];
}

const attr = (element: string, name: string): string | undefined =>
  new RegExp(`\\s${name}="([^"]*)"`).exec(element)?.[1];

/** Reads a JUnit file written by `jobcheck check --junit`; throws Error saying what is wrong. Pure. */
export function parseJunit(xml: string): JunitFile {
  const head = /<testsuites\b[^>]*>/.exec(xml)?.[0];
  if (head === undefined || !xml.includes('</testsuites>'))
    throw new Error('not a JUnit file of jobcheck check (no <testsuites> element)');
  const suites = [...xml.matchAll(/<testsuite\b([^>]*)>([\s\S]*?)<\/testsuite>/g)].map((m) => {
    const body = m[2] ?? '';
    return {
      name: attr(m[1] ?? '', 'name') ?? '',
      properties: [...body.matchAll(/<property name="([^"]*)" value="([^"]*)"\/>/g)].map(
        (p) => [p[1] ?? '', p[2] ?? ''] as const,
      ),
      cases: [...body.matchAll(/<testcase\b[^>]*?(?:\/>|>[\s\S]*?<\/testcase>)/g)].map((c) => c[0]),
    };
  });
  return { name: attr(head, 'name') ?? 'jobcheck', suites };
}

/** The shard a file's campaign suite names (`2/3`), or undefined for a whole check. Pure. */
export function junitShard(file: JunitFile): string | undefined {
  return file.suites.find((s) => s.name === 'jobcheck.campaign')?.properties.find(([k]) => k === 'shard')?.[1];
}

const has = (c: string, tag: string): boolean => c.includes(`<${tag} `) || c.includes(`<${tag}/>`);
const seconds = (c: string): number => Number(attr(c, 'time') ?? 0) || 0;

function counts(cases: readonly string[]): string {
  const n = (tag: string): number => cases.filter((c) => has(c, tag)).length;
  const time = cases.reduce((t, c) => t + seconds(c), 0);
  return `tests="${cases.length}" failures="${n('failure')}" errors="${n('error')}" skipped="${n('skipped')}" time="${time.toFixed(3)}"`;
}

/** A case with ` (label)` added to its name. Pure. */
const labelled = (c: string, label: string): string =>
  c.replace(/\sname="([^"]*)"/, (_, name: string) => ` name="${name} (${xmlEscape(label)})"`);

/**
 * Joins the JUnit files of the parts of one check, each with its label (`shard 2/3`), into one
 * document, timestamped `timestamp` (an ISO time without milliseconds). Cases that more than one
 * part has (the campaign's) carry their part's label; a suite's properties that differ between
 * parts carry it too. Pure.
 */
export function mergeJunit(
  parts: ReadonlyArray<{ readonly label: string; readonly file: JunitFile }>,
  timestamp: string,
): string {
  const order: string[] = [];
  const bySuite = new Map<string, { cases: string[]; properties: Array<readonly [string, string]> }>();
  const seen = new Map<string, number>();
  for (const { file } of parts)
    for (const s of file.suites)
      for (const c of s.cases) {
        const key = `${s.name}\n${attr(c, 'name') ?? ''}`;
        seen.set(key, (seen.get(key) ?? 0) + 1);
      }
  for (const { label, file } of parts) {
    for (const s of file.suites) {
      let suite = bySuite.get(s.name);
      if (suite === undefined) {
        suite = { cases: [], properties: [] };
        bySuite.set(s.name, suite);
        order.push(s.name);
      }
      for (const c of s.cases) {
        const shared = (seen.get(`${s.name}\n${attr(c, 'name') ?? ''}`) ?? 0) > 1;
        suite.cases.push(shared ? labelled(c, label) : c);
      }
      for (const [k, v] of s.properties) {
        const same = parts.every(({ file: f }) => {
          const other = f.suites.find((x) => x.name === s.name);
          return other === undefined || other.properties.some(([k2, v2]) => k2 === k && v2 === v);
        });
        const property = same ? ([k, v] as const) : ([`${k} (${xmlEscape(label)})`, v] as const);
        if (!suite.properties.some(([k2, v2]) => k2 === property[0] && v2 === property[1]))
          suite.properties.push(property);
      }
    }
  }
  const all = order.flatMap((name) => bySuite.get(name)?.cases ?? []);
  const name = parts[0]?.file.name ?? 'jobcheck';
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="${name}" ${counts(all)} timestamp="${timestamp}">`,
    ...order.flatMap((suiteName) => {
      const s = bySuite.get(suiteName) ?? { cases: [], properties: [] };
      return [
        `  <testsuite name="${suiteName}" ${counts(s.cases)} timestamp="${timestamp}">`,
        ...(s.properties.length === 0
          ? []
          : [
              '    <properties>',
              ...s.properties.map(([k, v]) => `      <property name="${k}" value="${v}"/>`),
              '    </properties>',
            ]),
        ...s.cases.map((c) => `    ${c}`),
        '  </testsuite>',
      ];
    }),
    '</testsuites>',
    '',
  ].join('\n');
}
