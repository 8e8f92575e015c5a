/**
 * One JUnit document from the JUnit files of the shards of one check (cli/junit.ts writes each).
 * The suites of the same name are joined; the one case every shard has, `random campaign`, is
 * named after its shard (`random campaign (shard 2/3)`), so that names stay unique and the same
 * from run to run; the counts of each suite and of the whole are counted again from the cases.
 *
 * The files are read as jobcheck writes them (one element a line, attribute values escaped), not
 * as any JUnit XML: this is the other half of cli/junit.ts, not an XML parser. A file that does
 * not look like one is refused (parseJunit throws). Reading is linear in the file's length, which
 * is bounded (MAX_JUNIT_BYTES): each search moves forward, and an element left open ends the
 * search instead of being looked for again from every later start.
 */
import { xmlText } from '../conformance/outside/outsideText.ts';

/** Largest JUnit file read (`jobcheck merge --junit`, `jobcheck github --junit`); a check's is a few hundred KiB. */
export const MAX_JUNIT_BYTES = 16 * 1024 * 1024;

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

/** An element found by `elements`: where it starts and ends in the text, its start tag's attributes and its body. */
interface Element {
  readonly start: number;
  readonly end: number;
  /** The start tag's text between the name and `>` (a trailing `/` of an empty element included). */
  readonly head: string;
  readonly body: string;
}

/**
 * The `<tag ...>...</tag>` and `<tag .../>` elements of `text` in order, not nested in one another,
 * from `from` on; throws Error for an element left open (whose end the old reader looked for again
 * from every later start). Linear in the text's length. Pure.
 */
function* elements(text: string, tag: string, from = 0): Generator<Element> {
  const open = `<${tag}`;
  const close = `</${tag}>`;
  for (let at = text.indexOf(open, from); at >= 0; at = text.indexOf(open, at)) {
    const next = text[at + open.length];
    // `<testsuite` is also the start of `<testsuites`: only a space, `>` or `/` ends the name.
    if (next !== '>' && next !== '/' && next !== ' ' && next !== '\n' && next !== '\t' && next !== '\r') {
      at += open.length;
      continue;
    }
    const headEnd = text.indexOf('>', at);
    if (headEnd < 0) throw new Error(`a <${tag}> element is not closed`);
    const head = text.slice(at + open.length, headEnd);
    if (head.endsWith('/')) {
      yield { start: at, end: headEnd + 1, head, body: '' };
      at = headEnd + 1;
      continue;
    }
    const closeAt = text.indexOf(close, headEnd);
    if (closeAt < 0) throw new Error(`a <${tag}> element is not closed`);
    yield { start: at, end: closeAt + close.length, head, body: text.slice(headEnd + 1, closeAt) };
    at = closeAt + close.length;
  }
}

/** Reads a JUnit file written by `jobcheck check --junit`; throws Error saying what is wrong. Linear; pure. */
export function parseJunit(xml: string): JunitFile {
  if (xml.length > MAX_JUNIT_BYTES) throw new Error(`longer than the limit of ${MAX_JUNIT_BYTES} bytes`);
  const head = elements(xml, 'testsuites').next().value;
  if (head === undefined) throw new Error('not a JUnit file of jobcheck check (no <testsuites> element)');
  const suites = [...elements(head.body, 'testsuite')].map((suite) => ({
    name: attr(suite.head, 'name') ?? '',
    properties: [...elements(suite.body, 'property')].flatMap((p) => {
      const m = /^ name="([^"]*)" value="([^"]*)"\/$/.exec(p.head);
      return m === null ? [] : [[m[1] ?? '', m[2] ?? ''] as const];
    }),
    cases: [...elements(suite.body, 'testcase')].map((c) => suite.body.slice(c.start, c.end)),
  }));
  // Each case's failure is read now, so that one left open is refused here, not where it is used.
  for (const suite of suites) for (const c of suite.cases) caseFailure(c);
  return { name: attr(`${head.head} `, 'name') ?? 'jobcheck', suites };
}

/**
 * The failure or error a case written by jobcheck holds, if any: the element, its message, its
 * type and its text (all as written). Throws Error for one left open. Linear; pure.
 */
export function caseFailure(
  testcase: string,
):
  | { readonly tag: 'failure' | 'error'; readonly message: string; readonly type: string; readonly text: string }
  | undefined {
  for (const tag of ['failure', 'error'] as const) {
    for (const e of elements(testcase, tag)) {
      const m = /^ message="([^"]*)" type="([^"]*)"$/.exec(e.head);
      if (m !== null) return { tag, message: m[1] ?? '', type: m[2] ?? '', text: e.body };
    }
  }
  return undefined;
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
  c.replace(/\sname="([^"]*)"/, (_, name: string) => ` name="${name} (${xmlText(label)})"`);

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
  const bySuite = new Map<
    string,
    { cases: string[]; properties: Array<readonly [string, string]>; propertyKeys: Set<string> }
  >();
  const seen = new Map<string, number>();
  // Per suite name, the parts that have it, and per property of it, the parts whose suite has that
  // property: a property is the same in every part when both counts are equal. Sets and maps, so
  // that the merge is linear in the properties, however many a file holds.
  const key = (...words: readonly string[]): string => JSON.stringify(words);
  const holders = new Map<string, number>();
  const holding = new Map<string, number>();
  for (const { file } of parts) {
    const first = new Map<string, JunitSuite>();
    for (const s of file.suites) {
      if (!first.has(s.name)) first.set(s.name, s);
      for (const c of s.cases) {
        const k = key(s.name, attr(c, 'name') ?? '');
        seen.set(k, (seen.get(k) ?? 0) + 1);
      }
    }
    for (const [name, s] of first) {
      holders.set(name, (holders.get(name) ?? 0) + 1);
      for (const k of new Set(s.properties.map(([p, v]) => key(name, p, v)))) holding.set(k, (holding.get(k) ?? 0) + 1);
    }
  }
  for (const { label, file } of parts) {
    for (const s of file.suites) {
      let suite = bySuite.get(s.name);
      if (suite === undefined) {
        suite = { cases: [], properties: [], propertyKeys: new Set() };
        bySuite.set(s.name, suite);
        order.push(s.name);
      }
      for (const c of s.cases) {
        const shared = (seen.get(key(s.name, attr(c, 'name') ?? '')) ?? 0) > 1;
        suite.cases.push(shared ? labelled(c, label) : c);
      }
      for (const [k, v] of s.properties) {
        const same = holding.get(key(s.name, k, v)) === holders.get(s.name);
        const property = same ? ([k, v] as const) : ([`${k} (${xmlText(label)})`, v] as const);
        const id = key(...property);
        if (!suite.propertyKeys.has(id)) {
          suite.propertyKeys.add(id);
          suite.properties.push(property);
        }
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
