/**
 * The store's hot statements as named prepared statements of each connection (`PREPARE name AS
 * …` once, then `EXECUTE name(<literals>)` in the transactions' messages), so that the server
 * parses, analyses and plans each once per connection instead of once per command (what it
 * saves: docs/durable-bench.md, "Design notes"). They still travel several a message (Tx.ts),
 * their arguments written as literals (literal.ts).
 *
 * - A connection prepares a store's statements in one round trip before its first transaction for
 *   that store (`ensure`); PREPARE is not transactional, so they outlive any rollback.
 * - Statements are named after the store's schema (`jc<its 16 hex digits>_<key>`): the stores of
 *   one schema share them, and those of another never collide with them.
 * - A connection keeps the statements of PER_CONNECTION_MAX schemas at most: preparing another
 *   deallocates those of the schema it prepared longest ago, in the same message.
 * - Statements deallocated behind the store's back (`DEALLOCATE ALL`, `DISCARD ALL`) fail the
 *   transaction that executes one; the store drops that connection, and the next prepares again.
 */
import type { PgPoolClient } from './PgPool.ts';
import { literal } from './literal.ts';

/** Schemas whose statements one connection keeps prepared at most. */
export const PER_CONNECTION_MAX = 8;

/** The schemas prepared on each connection (the driver's client object), the one prepared longest ago first. */
const preparedOn = new WeakMap<PgPoolClient, string[]>();

/** The statements of one store's schema, prepared on the connections it runs on. */
export class Prepared<K extends string> {
  private readonly names: Record<K, string>;
  private readonly prepareSql: string;
  private readonly deallocateSql: string;

  /** `texts`: each statement's SQL with `$n` parameters (typed where the server cannot infer them), by key. */
  constructor(
    /** The schema's name (unquoted): the statements' names carry its hex digits. */
    private readonly schema: string,
    texts: Readonly<Record<K, string>>,
  ) {
    const stem = stemOf(schema);
    const keys = Object.keys(texts) as K[];
    this.names = Object.fromEntries(keys.map((k) => [k, `${stem}${k}`])) as Record<K, string>;
    this.prepareSql = keys.map((k) => `PREPARE ${this.names[k]} AS ${texts[k]}`).join(';\n');
    this.deallocateSql = keys.map((k) => `DEALLOCATE ${this.names[k]}`).join(';\n');
  }

  /** The statement that executes `key` with `params` (values literal.ts can write). Pure. */
  exec(key: K, params: readonly unknown[] = []): string {
    const name = this.names[key];
    if (params.length === 0) return `EXECUTE ${name}`;
    let args = literal(params[0]);
    for (let i = 1; i < params.length; i++) args += `, ${literal(params[i])}`;
    return `EXECUTE ${name}(${args})`;
  }

  /**
   * Prepares the statements on `client` unless they are already: one round trip, the first time
   * a connection runs a transaction of this schema (with the deallocation of the statements of
   * the schema it prepared longest ago, past PER_CONNECTION_MAX). Whether it took a round trip.
   */
  async ensure(client: PgPoolClient): Promise<boolean> {
    const schemas = preparedOn.get(client) ?? [];
    if (schemas.includes(this.schema)) return false;
    const evicted = schemas.length >= PER_CONNECTION_MAX ? schemas[0] : undefined;
    const deallocate = evicted === undefined ? '' : `${Prepared.deallocating(evicted, this)};\n`;
    await client.query(`${deallocate}${this.prepareSql}`);
    preparedOn.set(client, [...schemas.filter((s) => s !== evicted), this.schema]);
    return true;
  }

  /** The deallocation of schema `schema`'s statements (named as `like`'s, whose keys every store shares). */
  private static deallocating(schema: string, like: Prepared<string>): string {
    return like.deallocateSql.replaceAll(stemOf(like.schema), stemOf(schema));
  }
}

/** The start of the names of a schema's statements: `jc`, the schema name's 16 hex digits, `_`. Pure. */
const stemOf = (schema: string): string => `jc${schema.slice(-16)}_`;
