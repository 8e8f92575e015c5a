/**
 * Whether an adapter answers from its own memory: a text only the worker had (a `fail`'s error
 * text, docs/declarations.md) is looked for in everything reachable from the adapter object, and
 * each copy found is overwritten with another text. A snapshot taken afterwards that shows the
 * other text was answered from the adapter's memory, not read from the broker: the broker never
 * saw the other text. Copies the adapter holds but does not answer from (a client library's own
 * buffers) leave the snapshot as it was.
 *
 * Invariants: only own data properties are read (no getter runs), functions, typed arrays and
 * weak collections are not entered, every object is visited once, and the walk stops at
 * MAX_VISITED objects, saying so; a copy that cannot be overwritten (a frozen object) is reported
 * as such. What sits behind a closure or a `#private` field is out of its reach.
 */
import { z } from 'zod';

/** Most objects the walk visits before it gives up (a client's object graph is large, not endless). */
export const MAX_VISITED = 1_000_000;

/** Where the walk found the text, and whether it could overwrite it there. */
export interface Copy {
  /** A path from the adapter object, e.g. `jobs[Map].get(1).lastError`. */
  readonly path: string;
  readonly overwritten: boolean;
}

/** What one walk found and did. */
export interface Rewrite {
  readonly copies: readonly Copy[];
  readonly visited: number;
  /** True when the walk stopped at MAX_VISITED before it saw everything. */
  readonly cut: boolean;
}

const skipped = (v: object): boolean =>
  typeof v === 'function' ||
  ArrayBuffer.isView(v) ||
  v instanceof ArrayBuffer ||
  v instanceof WeakMap ||
  v instanceof WeakSet ||
  v instanceof WeakRef ||
  v instanceof Promise;

/**
 * Replaces every occurrence of `text` by `replacement` in the strings reachable from `root`
 * (property values, array items, Map keys and values, Set items). Not pure: it changes `root`.
 */
export function rewriteText(root: object, text: string, replacement: string): Rewrite {
  const copies: Copy[] = [];
  const seen = new Set<object>([root]);
  const stack: { value: object; path: string }[] = [{ value: root, path: '(adapter)' }];
  const swap = (s: string): string => s.split(text).join(replacement);
  const visit = (child: unknown, path: string): void => {
    if (typeof child !== 'object' || child === null || seen.has(child) || skipped(child)) return;
    seen.add(child);
    stack.push({ value: child, path });
  };
  while (stack.length > 0 && seen.size <= MAX_VISITED) {
    const top = stack.pop();
    if (top === undefined) break;
    const { value, path } = top;
    if (value instanceof Map) {
      for (const [k, v] of [...value]) {
        const at = `${path}.get(${typeof k === 'string' ? JSON.stringify(k) : String(k)})`;
        if (typeof k === 'string' && k.includes(text)) {
          value.delete(k);
          value.set(swap(k), v);
          copies.push({ path: `${path}.keys()`, overwritten: true });
        }
        if (typeof v === 'string' && v.includes(text)) {
          value.set(typeof k === 'string' ? swap(k) : k, swap(v));
          copies.push({ path: at, overwritten: true });
        } else visit(v, at);
      }
      continue;
    }
    if (value instanceof Set) {
      for (const v of [...value]) {
        if (typeof v === 'string' && v.includes(text)) {
          value.delete(v);
          value.add(swap(v));
          copies.push({ path: `${path}.values()`, overwritten: true });
        } else visit(v, `${path}.values()`);
      }
      continue;
    }
    for (const key of Reflect.ownKeys(value)) {
      const d = Object.getOwnPropertyDescriptor(value, key);
      if (d === undefined || !('value' in d)) continue;
      const at = `${path}.${String(key)}`;
      if (typeof d.value === 'string' && d.value.includes(text)) {
        const overwritten = d.writable === true && Reflect.set(value, key, swap(d.value));
        copies.push({ path: at, overwritten });
      } else visit(d.value, at);
    }
  }
  return { copies, visited: seen.size, cut: stack.length > 0 };
}

/** A failure text unique to one run: what a worker told the adapter, and nobody else. */
export const failureText = (n: number): string =>
  `failed-${n}-${Math.random().toString(36).slice(2, 10)}-${Date.now().toString(36)}`;

/**
 * The commands of the check: two jobs of two accounts, each claimed and failed (one transiently,
 * one permanently, each with its own text), then the first claimed again at tick 2 and failed
 * transiently on its last attempt (maxAttempts 2). Tokens are read off the claim replies.
 */
export const MEMORY_CONFIG = { capacity: 4, maxAttempts: 2, leaseTicks: 4, backoffBase: 1, backoffCap: 1 } as const;

/** What the check saw: the texts of the snapshot before and after the rewrite, and the walk. */
export interface MemoryCheck {
  readonly texts: readonly string[];
  /** lastError of each job in the snapshot taken before the rewrite. */
  readonly before: Readonly<Record<string, string | undefined>>;
  /** lastError of each job in the snapshot taken after it. */
  readonly after: Readonly<Record<string, string | undefined>>;
  readonly rewrites: readonly Rewrite[];
  /** Jobs whose lastError after the rewrite is a text the broker never saw: answered from memory. */
  readonly fromMemory: readonly string[];
}

/** The adapter interface the check drives (an Adapter of conformance/adapter.ts). */
interface Driven {
  execute(command: unknown): Promise<unknown>;
  snapshot(): Promise<unknown>;
}

/** An adapter's answers as the check reads them: what comes from outside is parsed, never cast. */
const accepted = z.object({ ok: z.literal(true) }).passthrough();
const claimed = z.object({ job: z.object({ id: z.string(), token: z.number() }).nullable() });
const snapshotJobs = z.object({ jobs: z.record(z.string(), z.object({ lastError: z.string().optional() })) });

const lastErrors = (snapshot: unknown): Record<string, string | undefined> =>
  Object.fromEntries(Object.entries(snapshotJobs.parse(snapshot).jobs).map(([id, j]) => [id, j.lastError]));

/**
 * Runs the check's commands on a fresh `adapter` (of MEMORY_CONFIG), rewrites each failure text
 * in everything reachable from it, and compares the snapshots before and after. Throws when a
 * command is refused (the scenario did not run as written). Not pure: it drives the adapter.
 */
export async function checkOwnMemory(adapter: Driven): Promise<MemoryCheck> {
  const texts = [failureText(1), failureText(2), failureText(3)];
  const run = async (type: string, fields: Record<string, unknown>): Promise<Record<string, unknown>> => {
    const command = { type, ...fields };
    const reply = await adapter.execute(command);
    const ok = accepted.safeParse(reply);
    if (!ok.success) throw new Error(`${JSON.stringify(command)} was refused: ${JSON.stringify(reply)}`);
    return ok.data;
  };
  const claim = async (worker: string, now: number): Promise<{ id: string; token: number }> => {
    const { job } = claimed.parse(await run('claim', { worker, now }));
    if (job === null) throw new Error(`the claim of ${worker} at ${now} found no job`);
    return job;
  };
  const submit = (id: string, account: string) =>
    run('submit', { id, account, key: `${id}:k`, amount: 1, deadline: 100, now: 0 });
  const fail = (worker: string, token: number, kind: string, error: string | undefined, now: number) =>
    run('fail', { worker, token, kind, error, now });
  await submit('a', 'x');
  await submit('b', 'y');
  const first = await claim('w1', 0);
  await fail('w1', first.token, 'transient', texts[0], 0);
  const second = await claim('w2', 0);
  await fail('w2', second.token, 'permanent', texts[1], 0);
  const again = await claim('w1', 2);
  await fail('w1', again.token, 'transient', texts[2], 2);
  const before = lastErrors(await adapter.snapshot());
  const replacements = texts.map((t) => `rewritten-${t}`);
  const rewrites = texts.map((t) => rewriteText(adapter, t, `rewritten-${t}`));
  const after = lastErrors(await adapter.snapshot());
  const fromMemory = Object.entries(after)
    .filter(([, text]) => text !== undefined && replacements.some((r) => text.includes(r)))
    .map(([id]) => id);
  return { texts, before, after, rewrites, fromMemory };
}
