/**
 * The failure stories as data: loading the fixture files in `model/fixtures/`, and a generic
 * runner that replays one against any store reached through a small async driver. A mismatch is
 * a result value (step, expected, actual), never an exception, so a harness can report it with
 * its context; `assertFixture` is the thin throwing wrapper for test runners.
 *
 * Fixture files are data only: commands, the replies expected (as deep subsets), partial job
 * records, and the final balances. Their expected values were written from the contract's rules,
 * not recorded from an implementation.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { isDeepStrictEqual } from 'node:util';
import { z } from 'zod';
import type { Config, JobRecord, Reply, Snapshot } from '../contract/index.ts';
import { CodedError, clipText, configSchema, describeValue, parseConfig, thrownText } from '../contract/index.ts';
import { fromSnapshot, initialState, step, toSnapshot } from './step.ts';
import type { ModelState } from './step.ts';

const FIXTURE_DIR = new URL('./fixtures/', import.meta.url);

/** Stable code of a fixture file that cannot be used. */
export type FixtureErrorCode = 'invalid_fixture' | 'unknown_fixture';

/** A fixture file that is missing or malformed; `path` names the bad field (dotted). */
export class FixtureError extends CodedError<FixtureErrorCode> {
  override name = 'FixtureError' as const;
  readonly path: string;
  constructor(code: FixtureErrorCode, path: string, message: string, options?: { cause?: unknown }) {
    super(code, message, options);
    this.path = path;
  }
}

const nonEmpty = z.string().min(1);
const note = { note: z.string().optional() };
const partialJob = z.record(nonEmpty, z.record(z.string(), z.unknown()));

const stepSchema = z.union([
  z.strictObject({
    do: z.record(z.string(), z.unknown()),
    expect: z.record(z.string(), z.unknown()),
    expectJobs: partialJob.optional(),
    ...note,
  }),
  z.strictObject({ restart: z.literal(true), expectJobs: partialJob.optional(), ...note }),
  z.strictObject({ aliasSnapshot: z.literal(true), expectJobs: partialJob.optional(), ...note }),
  z.strictObject({ aliasRestore: z.literal(true), expectJobs: partialJob.optional(), ...note }),
]);

/** Schema of a fixture file. Commands and expectations are kept as plain JSON data. */
export const fixtureSchema = z.strictObject({
  name: z.string().regex(/^[a-z0-9]+(-[a-z0-9]+)*$/, 'must be kebab-case'),
  title: nonEmpty,
  source: z.enum(['000', '003']),
  story: nonEmpty,
  config: configSchema,
  focus: z.strictObject({ job: nonEmpty, account: nonEmpty }),
  steps: z.array(stepSchema).min(1),
  final: z.strictObject({
    balances: z.record(nonEmpty, z.int()),
    jobs: partialJob,
  }),
});

/** A failure story: config, steps with expected replies, and the expected final balances and jobs. */
export type Fixture = Omit<z.infer<typeof fixtureSchema>, 'config'> & { readonly config: Config };
/** One step of a fixture. */
export type FixtureStep = Fixture['steps'][number];

/** Partial job records, keyed by job id, matched as deep subsets of the snapshot's records. */
export type PartialJobs = { readonly [id: string]: Partial<Record<keyof JobRecord, unknown>> };

/**
 * The store a fixture is replayed against. `restart` is a real restart (snapshot through JSON
 * into a fresh store); `restoreFrom` replaces the store by a fresh one restored from the given
 * object as it is (no JSON copy), so that aliasing of the caller's object can be observed.
 */
export interface FixtureDriver {
  execute(command: unknown): Promise<Reply>;
  snapshot(): Promise<Snapshot>;
  restart(): Promise<void>;
  restoreFrom(snapshot: unknown): Promise<void>;
}

/** Where a replay first disagreed with the fixture. */
export interface FixtureMismatch {
  readonly ok: false;
  readonly fixture: string;
  /** 1-based number of the step in `steps`, or `final` for the closing check. */
  readonly step: number | 'final';
  /** What was compared: the reply, the jobs after a step, a snapshot alias check, final balances or jobs, or a thrown error. */
  readonly check: 'reply' | 'jobs' | 'aliasSnapshot' | 'aliasRestore' | 'balances' | 'error';
  readonly expected: unknown;
  readonly actual: unknown;
  readonly message: string;
  /** What the driver threw (check `error`), for callers that tell kinds of failure apart. */
  readonly error?: unknown;
}

/** Most characters of a thrown error's text in a mismatch: a protocol error's is a few hundred. */
const MAX_CAUSE_CHARS = 4000;

/** Outcome of replaying a fixture: a pass with the number of steps, or the first mismatch. */
export type FixtureResult = { readonly ok: true; readonly fixture: string; readonly steps: number } | FixtureMismatch;

/** Names of all fixture files (without `.json`), sorted. Reads the fixture folder. */
export function listFixtures(): string[] {
  return readdirSync(FIXTURE_DIR)
    .filter((f) => f.endsWith('.json'))
    .map((f) => f.slice(0, -'.json'.length))
    .sort();
}

/** Validates an untrusted fixture value; throws FixtureError `invalid_fixture` naming the field. */
export function parseFixture(input: unknown, origin = 'fixture'): Fixture {
  const result = fixtureSchema.safeParse(input);
  if (!result.success) {
    const issue = result.error.issues[0];
    const path = issue === undefined ? '' : issue.path.map(String).join('.');
    throw new FixtureError('invalid_fixture', path, `${origin}: ${path || 'value'}: ${issue?.message ?? 'invalid'}`);
  }
  return result.data;
}

/** Reads and validates one fixture by name; throws FixtureError for a missing or malformed file. */
export function loadFixture(name: string): Fixture {
  if (!listFixtures().includes(name)) {
    throw new FixtureError(
      'unknown_fixture',
      '',
      `no fixture named ${JSON.stringify(name)} (known: ${listFixtures().join(', ')})`,
    );
  }
  const text = readFileSync(new URL(`${name}.json`, FIXTURE_DIR), 'utf8');
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (cause) {
    throw new FixtureError('invalid_fixture', '', `${name}.json is not JSON`, { cause });
  }
  const fixture = parseFixture(data, `${name}.json`);
  if (fixture.name !== name)
    throw new FixtureError('invalid_fixture', 'name', `${name}.json: name must be ${JSON.stringify(name)}`);
  return fixture;
}

/** Every fixture, in name order. */
export function loadFixtures(): Fixture[] {
  return listFixtures().map(loadFixture);
}

/**
 * True when `expected` is a deep subset of `actual`: every key of an expected object is present
 * in the actual one with a matching value; arrays and primitives must be equal. Pure.
 */
export function isSubset(expected: unknown, actual: unknown): boolean {
  if (expected !== null && typeof expected === 'object' && !Array.isArray(expected)) {
    if (actual === null || typeof actual !== 'object' || Array.isArray(actual)) return false;
    return Object.entries(expected).every(
      ([k, v]) => Object.hasOwn(actual, k) && isSubset(v, (actual as Record<string, unknown>)[k]),
    );
  }
  return isDeepStrictEqual(expected, actual);
}

/** Changes every value inside a JSON value in place, at every depth (used to test aliasing). */
export function scribble(value: unknown): void {
  if (value === null || typeof value !== 'object') return;
  const o = value as Record<string, unknown>;
  for (const [k, v] of Object.entries(o)) {
    if (typeof v === 'number') o[k] = v + 1000;
    else if (typeof v === 'string') o[k] = `${v}#`;
    else if (typeof v === 'boolean') o[k] = !v;
    else scribble(v);
  }
  o['scribbled'] = true;
}

const withoutMessage = (reply: Reply): unknown => {
  if (reply.ok) return reply;
  const { message: _ignored, ...rest } = reply;
  return rest;
};

function jobMismatch(expected: PartialJobs, snap: Snapshot): { id: string; actual: unknown } | undefined {
  for (const [id, want] of Object.entries(expected)) {
    const got = snap.jobs[id];
    if (!isSubset(want, got)) return { id, actual: got };
  }
  return undefined;
}

/**
 * Replays a fixture against a driver whose store was created with the fixture's config. Returns
 * the first mismatch as a value; errors thrown by the driver are caught and reported as data.
 * Replies and `expectJobs` are compared as deep subsets (a rejection's `message` is never compared:
 * only its code); the final balances must be equal exactly, the final jobs again as deep subsets.
 */
export async function runFixture(fixture: Fixture, driver: FixtureDriver): Promise<FixtureResult> {
  const name = fixture.name;
  const fail = (
    step: number | 'final',
    check: FixtureMismatch['check'],
    expected: unknown,
    actual: unknown,
    what: string,
  ): FixtureMismatch => ({
    ok: false,
    fixture: name,
    step,
    check,
    expected,
    actual,
    message: `${name}, step ${step}: ${what}: expected ${describeValue(expected)}, got ${describeValue(actual)}`,
  });
  let number = 0;
  let where: number | 'final' = 'final';
  try {
    for (const s of fixture.steps) {
      number += 1;
      where = number;
      if ('do' in s) {
        const reply = await driver.execute(s.do);
        if (!isSubset(s.expect, withoutMessage(reply)))
          return fail(number, 'reply', s.expect, reply, `reply to ${describeValue(s.do)}`);
      } else if ('restart' in s) {
        await driver.restart();
      } else if ('aliasSnapshot' in s) {
        const taken = await driver.snapshot();
        const copy = structuredClone(taken);
        scribble(taken);
        const again = await driver.snapshot();
        if (!isDeepStrictEqual(copy, again))
          return fail(number, 'aliasSnapshot', copy, again, 'changing a taken snapshot changed the store');
      } else {
        const given = structuredClone(await driver.snapshot());
        const copy = structuredClone(given);
        await driver.restoreFrom(given);
        scribble(given);
        const again = await driver.snapshot();
        if (!isDeepStrictEqual(copy, again))
          return fail(number, 'aliasRestore', copy, again, 'changing the object restored from changed the store');
      }
      if (s.expectJobs !== undefined) {
        const bad = jobMismatch(s.expectJobs, await driver.snapshot());
        if (bad !== undefined) return fail(number, 'jobs', s.expectJobs[bad.id], bad.actual, `job ${bad.id}`);
      }
    }
    where = 'final';
    const snap = await driver.snapshot();
    if (!isDeepStrictEqual({ ...snap.balances }, fixture.final.balances)) {
      return fail('final', 'balances', fixture.final.balances, snap.balances, 'final balances');
    }
    const bad = jobMismatch(fixture.final.jobs, snap);
    if (bad !== undefined) return fail('final', 'jobs', fixture.final.jobs[bad.id], bad.actual, `final job ${bad.id}`);
  } catch (error) {
    // What the implementation threw is the whole cause: told in one line, not clipped as a value.
    const cause = clipText(thrownText(error), MAX_CAUSE_CHARS);
    const message = `${name}, step ${where}: the implementation failed: ${cause}`;
    return {
      ok: false,
      fixture: name,
      step: where,
      check: 'error',
      expected: 'no error',
      actual: cause,
      message,
      error,
    };
  }
  return { ok: true, fixture: name, steps: fixture.steps.length };
}

/** Replays a fixture and throws an Error carrying the mismatch message if it does not pass. */
export async function assertFixture(fixture: Fixture, driver: FixtureDriver): Promise<void> {
  const result = await runFixture(fixture, driver);
  if (!result.ok) throw new Error(result.message, { cause: result });
}

/**
 * A driver over the reference model (model/step.ts): an in-memory store value that each command
 * replaces. `restart` goes through `JSON.stringify`/`JSON.parse` and `fromSnapshot`.
 */
export function modelDriver(config: unknown): FixtureDriver & { readonly state: () => ModelState } {
  let state = initialState(parseConfig(config));
  return {
    state: () => state,
    execute: async (command) => {
      const result = step(state, command);
      state = result.state;
      return result.reply;
    },
    snapshot: async () => toSnapshot(state),
    restart: async () => {
      state = fromSnapshot(JSON.parse(JSON.stringify(toSnapshot(state))));
    },
    restoreFrom: async (snapshot) => {
      state = fromSnapshot(snapshot);
    },
  };
}
