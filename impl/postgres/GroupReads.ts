/**
 * The reads that travel with a group's messages, so that the core's reads need no round trip of
 * their own (Prefetch.ts answers them): with BEGIN, what the group's commands will ask for
 * (`ahead`); with COMMIT, what the store's rows lack for a likely next group (`behind`, the
 * read-ahead path of ReadAhead.ts). A read that turns out not to be needed costs the server a
 * lookup, never a round trip. Each read names how its rows are kept (`Read.keep`).
 */
import type { Command } from '../../contract/index.ts';
import type { AccountHead } from '../core/index.ts';
import type { Prefetch } from './Prefetch.ts';
import type { Prepared } from './Prepared.ts';
import { HEADS_LIMIT, jobsOf } from './queries.ts';
import type { PreparedKey } from './queries.ts';
import { CARRIED_MAX } from './ReadAhead.ts';
import type { Read } from './ReadAhead.ts';
import { fromBytes, toBytes } from './strings.ts';

/** A row of the `heads` statements: an account's unresolved job. */
interface HeadRow extends AccountHead {
  readonly account: Buffer;
}

/** The reads of one store's groups, over its prepared statements. */
export class GroupReads {
  constructor(
    private readonly p: Prepared<PreparedKey>,
    /** The statement that reads (and locks) the first `limit` claimable jobs. */
    private readonly claimHead: (limit: number) => string,
  ) {}

  /**
   * The reads sent with BEGIN for a group: the jobs due by the group's latest `now` (unless no
   * `now` passes `lastClock`, the clock this store last committed: the clock never goes back);
   * the first claimable jobs, one more than the group has claims; the jobs holding the tokens of
   * its commits, acks and fails, with the first unresolved jobs of the accounts of its acks and
   * fails; the jobs of its submitted ids, with the first unresolved jobs of their accounts. With
   * `known` (a transaction opened on rows read ahead), only the reads those rows cannot answer.
   */
  ahead(commands: readonly Command[], lastClock: number, known?: Prefetch): Read[] {
    const p = this.p;
    const now = Math.max(...commands.map((c) => c.now));
    const submits = commands.flatMap((c) => (c.type === 'submit' ? [c] : []));
    const claims = commands.filter((c) => c.type === 'claim').length;
    const out: Read[] = [];
    if (now > lastClock && known?.knowsDue(now) !== true)
      out.push({ sql: p.exec('due', [now]), keep: (k, rows) => k.setDue(now, jobsOf(rows)) });
    if (claims > 0 && known?.knowsClaimable(claims + 1) !== true) {
      const limit = claims + 1;
      out.push({ sql: this.claimHead(limit), keep: (k, rows) => k.setClaimable(jobsOf(rows), limit) });
    }
    const accounts = [...new Set(submits.map((c) => c.account))];
    // Rows read ahead answer a token whose job is known, and its account's heads when those were read too.
    const unknown = (t: number): boolean => known?.byToken(t) === undefined;
    const headsUnknown = (t: number): boolean => {
      const job = known?.byToken(t);
      if (job === undefined) return true;
      return job !== null && known?.knowsHeads(job.account) !== true;
    };
    const tokens = [...new Set(commands.flatMap((c) => ('token' in c ? [c.token] : [])))].filter(unknown);
    // Only an ack or a fail may resolve its job and ask for its account's next one.
    const resolving = [
      ...new Set(commands.flatMap((c) => (c.type === 'ack' || c.type === 'fail' ? [c.token] : []))),
    ].filter(headsUnknown);
    out.push(...this.tokenReads(tokens, resolving, accounts));
    if (submits.length > 0) {
      const ids = [...new Set(submits.map((c) => c.id))];
      out.push({
        sql: p.exec('byIds', [ids.map(toBytes)]),
        keep: (k, rows) => {
          const found = new Map(jobsOf(rows).map((j) => [j.id, j]));
          for (const id of ids) k.setId(id, found.get(id));
        },
      });
    }
    return out;
  }

  /**
   * The reads that travel with a COMMIT, so that the next group can open on what this one read
   * and wrote (`known`); none unless `carry` (not while backing off, nor for a subclass that
   * changes the lock), nor after a write Prefetch could not follow, nor past CARRIED_MAX. The
   * meta row's version first unless `versionKnown` (the transaction opened on rows read ahead:
   * its guard's row gives it); then only what `known` lacks for a likely next group: more
   * claimable jobs when fewer than the group's `size` plus one are left (eight at least), the jobs
   * due next when the group moved the clock (to `movedTo`), and the first unresolved jobs of the
   * accounts of the jobs holding the tokens the group's writes left (the next ack or fail of
   * each). Those jobs are known already: the group wrote them.
   */
  behind(
    known: Prefetch,
    carry: boolean,
    size: number,
    movedTo: number | undefined,
    versionKnown: boolean,
  ): Read[] | undefined {
    const { followed, tokens } = known.writtenTokens();
    if (!followed || !carry || known.size > CARRIED_MAX) return undefined;
    const p = this.p;
    const out: Read[] = [];
    if (!versionKnown) out.push({ sql: p.exec('metaVersion'), keep: () => undefined });
    if (!known.knowsClaimable(size + 1)) {
      const limit = Math.max(8, size + 1);
      out.push({ sql: p.exec('claimable', [limit]), keep: (k, rows) => k.setClaimable(jobsOf(rows), limit) });
    }
    if (movedTo !== undefined && !known.knowsDue(movedTo + 1)) {
      const limit = Math.max(4, size + 1);
      out.push({ sql: p.exec('dueFirst', [limit]), keep: (k, rows) => k.setDueFirst(jobsOf(rows), limit) });
    }
    for (const t of tokens) known.knowToken(t);
    const heads = tokens.filter((t) => {
      const job = known.byToken(t);
      return job !== undefined && job !== null && !known.knowsHeads(job.account);
    });
    if (heads.length > 0) out.push(...this.tokenReads([], heads, []));
    return out;
  }

  /** The jobs holding `tokens`, and the first unresolved jobs of the accounts of those holding `resolving` and of `accounts`. */
  private tokenReads(tokens: readonly number[], resolving: readonly number[], accounts: readonly string[]): Read[] {
    const p = this.p;
    const out: Read[] = [];
    if (tokens.length > 0) {
      out.push({
        sql: p.exec('byTokens', [tokens]),
        keep: (k, rows) => {
          const found = new Map(jobsOf(rows).map((j) => [j.token, j]));
          for (const t of tokens) k.setToken(t, found.get(t));
        },
      });
    }
    if (resolving.length > 0 || accounts.length > 0) {
      out.push({
        sql:
          resolving.length === 1 && accounts.length === 0
            ? p.exec('headsOfToken', resolving)
            : p.exec('heads', [resolving, accounts.map(toBytes)]),
        keep: (k, rows) => {
          const by = new Map<string, AccountHead[]>(accounts.map((a) => [a, []]));
          for (const r of rows as readonly HeadRow[]) {
            const a = fromBytes(r.account);
            by.set(a, [...(by.get(a) ?? []), { seq: r.seq, status: r.status }]);
          }
          for (const [a, heads] of by) k.setHeads(a, heads, HEADS_LIMIT);
        },
      });
    }
    return out;
  }
}
