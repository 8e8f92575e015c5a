/**
 * The one-statement path of a claim or an ack (PostgresStore.ts): a procedure in the store's schema
 * that takes the meta row's lock, makes the command's decisions and writes, all on the server, then
 * commits and waits for the durability barrier. The lock is held for the server's work alone, never
 * across a round trip to a client, nor across a WAL flush, so stores in many processes queue on it briefly.
 *
 * - The order is the locked path's: the function's first statement takes the meta row `FOR
 *   UPDATE`, and each later one (READ COMMITTED) reads a snapshot taken after the lock was granted,
 *   so it sees every transaction that held the lock before it and none after: its token and clock
 *   are the counters that lock guards, as on the locked path (one total order, one clock).
 * - It decides only what needs no step 2 and no rejection: a `now` below the clock, a job due by
 *   a `now` that moves the clock, an exhausted token counter, a token nobody holds for that worker,
 *   or a session not at READ COMMITTED raise `jobcheck_slow`. That rolls the statement back
 *   (nothing written) and the store runs the command on its locked path, through the core.
 * - Durable before the reply: the procedure commits asynchronously (the lock goes when the commit
 *   record is in the WAL buffers), then its barrier, a transaction that writes WAL and commits as
 *   the server commits, flushes the WAL past that record before CALL answers (PostgresStore.ts).
 * - Every write is the core's for that command (impl/core/command.ts: claim, ack, resolve), and it
 *   writes the meta row, as every writer since layout /3 does (schema.ts).
 */
import type { Command, Reply } from '../../contract/index.ts';
import { TIME_MAX, claimReply } from '../decisions/index.ts';
import { literal } from './literal.ts';
import { fromBytes, toBytes } from './strings.ts';

/** The message of a function that left the command to the locked path. */
const SLOW = 'jobcheck_slow';

/** Whether `error` is a function's `jobcheck_slow`: nothing was written. Pure. */
export function isSlow(error: unknown): boolean {
  return error instanceof Error && (error as { code?: unknown }).code === 'P0001' && error.message === SLOW;
}

/** What every fast function checks first, with the meta row `m` locked: the session, the clock, step 2. */
const opening = (s: string): string => `
  IF current_setting('transaction_isolation') <> 'read committed' THEN RAISE EXCEPTION '${SLOW}'; END IF;
  SELECT * INTO m FROM ${s}.meta WHERE id = 1 FOR UPDATE;
  IF p_now < m.clock THEN RAISE EXCEPTION '${SLOW}'; END IF;
  IF p_now > m.clock AND EXISTS (SELECT 1 FROM ${s}.jobs WHERE due <= p_now) THEN RAISE EXCEPTION '${SLOW}'; END IF;`;

/** The functions of the fast path in schema `s` (quoted): `fast_claim(worker, now)` and `fast_ack(worker, token, now)`. */
export function fastPathSql(s: string): string {
  return `
CREATE FUNCTION ${s}.fast_claim(p_worker bytea, p_now bigint) RETURNS SETOF ${s}.jobs LANGUAGE plpgsql AS $f$
DECLARE
  m ${s}.meta%ROWTYPE;
  j ${s}.jobs%ROWTYPE;
  lease bigint;
BEGIN${opening(s)}
  IF m.next_token >= ${TIME_MAX} THEN RAISE EXCEPTION '${SLOW}'; END IF;
  lease := LEAST(p_now + m.lease_ticks, ${TIME_MAX});
  UPDATE ${s}.jobs SET status = 'running', attempts = attempts + 1, token = m.next_token, owner = p_worker,
    lease_until = lease, claimable = NULL, due = LEAST(lease, deadline)
    WHERE seq = (SELECT seq FROM ${s}.jobs WHERE claimable ORDER BY seq LIMIT 1) RETURNING * INTO j;
  IF NOT FOUND THEN
    IF p_now > m.clock THEN UPDATE ${s}.meta SET clock = p_now WHERE id = 1; END IF;
    RETURN;
  END IF;
  UPDATE ${s}.meta SET clock = p_now, next_token = m.next_token + 1 WHERE id = 1;
  RETURN NEXT j;
END $f$;
CREATE FUNCTION ${s}.fast_ack(p_worker bytea, p_token bigint, p_now bigint) RETURNS SETOF ${s}.jobs LANGUAGE plpgsql AS $f$
DECLARE
  m ${s}.meta%ROWTYPE;
  j ${s}.jobs%ROWTYPE;
  h record;
BEGIN${opening(s)}
  UPDATE ${s}.jobs SET status = 'done', token = NULL, owner = NULL, lease_until = NULL, claimable = NULL, due = NULL
    WHERE token = p_token AND owner = p_worker RETURNING * INTO j;
  IF NOT FOUND THEN RAISE EXCEPTION '${SLOW}'; END IF;
  SELECT seq, status INTO h FROM ${s}.jobs WHERE account = j.account AND due IS NOT NULL ORDER BY seq LIMIT 1;
  IF FOUND AND h.status = 'ready' THEN UPDATE ${s}.jobs SET claimable = true WHERE seq = h.seq; END IF;
  UPDATE ${s}.meta SET clock = p_now, unresolved = m.unresolved - 1 WHERE id = 1;
  RETURN NEXT j;
END $f$;
${callSql(s, 'fast_claim_call', 'p_worker bytea, p_now bigint', 'fast_claim(p_worker, p_now)', CLAIM_OUT)}
${callSql(s, 'fast_ack_call', 'p_worker bytea, p_token bigint, p_now bigint', 'fast_ack(p_worker, p_token, p_now)', ACK_OUT)}`;
}

/**
 * The durability barrier's call: a transactional logical message, a WAL record with nothing to
 * redo, so that its transaction has an id and wrote WAL, and its COMMIT flushes (an id alone does not).
 */
export const BARRIER_CALL = "pg_logical_emit_message(true, 'jobcheck', ''::text)";

/** The barrier as the procedures run it. */
export const BARRIER = `PERFORM ${BARRIER_CALL};`;

/** A column of the job a procedure answers with: its OUT parameter's name and type, and the jobs column it copies. */
type OutColumn = readonly [name: string, type: string, column: string];

/** What a claim's reply needs of its job (the delivery and the payload): the claim procedure's OUT parameters. */
const CLAIM_OUT: readonly OutColumn[] = [
  ['id', 'bytea', 'id'],
  ['account', 'bytea', 'account'],
  ['key', 'bytea', 'key'],
  ['amount', 'bigint', 'amount'],
  ['deadline', 'bigint', 'deadline'],
  ['attempts', 'bigint', 'attempts'],
  ['token', 'bigint', 'token'],
  ['"leaseUntil"', 'bigint', 'lease_until'],
];

/** What an ack's reply needs: the job's id. */
const ACK_OUT: readonly OutColumn[] = [['id', 'bytea', 'id']];

/**
 * A procedure `name(params, OUT <outs>)` that runs `call` (a fast function) with synchronous_commit
 * off for its transaction, copies those columns of the job it returned (all NULL for none),
 * commits, and runs the barrier in the transaction CALL commits at its end, as the server commits.
 */
function callSql(s: string, name: string, params: string, call: string, outs: readonly OutColumn[]): string {
  const declared = outs.map(([n, t]) => `OUT ${n} ${t}`).join(', ');
  const copies = outs.map(([n, , c]) => `${n} := j.${c};`).join(' ');
  return `CREATE PROCEDURE ${s}.${name}(${params}, ${declared}) LANGUAGE plpgsql AS $f$
DECLARE
  j ${s}.jobs%ROWTYPE;
BEGIN
  PERFORM set_config('synchronous_commit', 'off', true);
  SELECT * INTO j FROM ${s}.${call};
  IF FOUND THEN ${copies} END IF;
  COMMIT;
  ${BARRIER}
END $f$;`;
}

/** The arguments a CALL gives a procedure's OUT parameters. */
const nulls = (outs: readonly OutColumn[]): string => outs.map(() => 'NULL').join(', ');
const CLAIM_NULLS = nulls(CLAIM_OUT);
const ACK_NULLS = nulls(ACK_OUT);

/** The CALL of a fast procedure of schema `s` (quoted) for `c`, a claim or an ack (its OUT parameters given as NULL). Pure. */
export function fastCallStatement(s: string, c: Command): string {
  if (c.type === 'claim')
    return `CALL ${s}.fast_claim_call(${literal(toBytes(c.worker))}, ${literal(c.now)}, ${CLAIM_NULLS})`;
  if (c.type === 'ack')
    return `CALL ${s}.fast_ack_call(${literal(toBytes(c.worker))}, ${literal(c.token)}, ${literal(c.now)}, ${ACK_NULLS})`;
  throw new Error(`no fast statement for a ${c.type}`);
}

/** The row of a claim's CALL (CLAIM_OUT), a job's columns as node-postgres reads them. */
interface ClaimRow {
  readonly id: Buffer;
  readonly account: Buffer;
  readonly key: Buffer;
  readonly amount: number;
  readonly deadline: number;
  readonly attempts: number;
  readonly token: number | null;
  readonly leaseUntil: number | null;
}

/** The rows of a fast procedure's CALL: its one row, or none when it returned no job (every column NULL). Pure. */
export function fastRows(rows: readonly unknown[]): unknown[] {
  const row = rows[0] as { id?: unknown } | undefined;
  return row === undefined || row.id === null ? [] : [row];
}

/** A command the fast path may run: its statement and the reply made from the rows it returns. */
export interface FastCall {
  readonly sql: string;
  readonly now: number;
  readonly reply: (rows: readonly unknown[]) => Reply;
}

/**
 * The fast call of `c` (a claim or an ack), with `statement` making the text of a procedure's CALL
 * (the store's, or a broken variant's), or undefined for any other command. Pure.
 */
export function fastCallOf(c: Command, statement: (c: Command) => string): FastCall | undefined {
  if (c.type === 'claim')
    return {
      sql: statement(c),
      now: c.now,
      reply: (rows) => {
        const row = rows[0] as ClaimRow | undefined;
        if (row === undefined) return claimReply(null);
        const id = fromBytes(row.id);
        const { token, leaseUntil } = row;
        if (token === null || leaseUntil === null) throw new Error(`fast_claim returned job ${id} with no delivery`);
        const payload = {
          account: fromBytes(row.account),
          key: fromBytes(row.key),
          amount: row.amount,
          deadline: row.deadline,
        };
        return claimReply({ id, token, attempt: row.attempts, leaseUntil, payload });
      },
    };
  if (c.type === 'ack')
    return {
      sql: statement(c),
      now: c.now,
      reply: (rows) => {
        const row = rows[0] as { readonly id: Buffer } | undefined;
        if (row === undefined) throw new Error(`fast_ack returned no job for token ${c.token}`);
        return { ok: true, type: 'ack', id: fromBytes(row.id) };
      },
    };
  return undefined;
}
