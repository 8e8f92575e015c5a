/**
 * What the command core asks of a durable store: one request per read or write, each answered
 * by the store's driver with its own statements. The requests name plain values (a decoded
 * `Job`, an account string); how they become SQL, which locks they take and which guards their
 * writes carry is the store's.
 */
import type { Counters, Job } from '../durable/index.ts';

/** The delivery a write of commit, ack or fail is made under (PostgreSQL puts it in the WHERE clause). */
export interface Guard {
  readonly token: number;
  readonly worker: string;
}

/** An account's earliest unresolved job. */
export interface AccountHead {
  readonly seq: number;
  readonly status: Job['status'];
}

/** Every request, by its `op`. */
export type StorageRequest =
  | { readonly op: 'due'; readonly now: number }
  | { readonly op: 'byId'; readonly id: string }
  | { readonly op: 'byToken'; readonly token: number }
  | { readonly op: 'claimHead' }
  | { readonly op: 'accountHead'; readonly account: string }
  | { readonly op: 'effect'; readonly account: string; readonly key: string }
  | { readonly op: 'balance'; readonly account: string }
  | { readonly op: 'countRunning' }
  | { readonly op: 'insertJob'; readonly job: Job }
  | { readonly op: 'saveJob'; readonly job: Job; readonly guard: Guard | undefined }
  | { readonly op: 'makeClaimable'; readonly seq: number }
  | {
      readonly op: 'recordEffect';
      readonly job: Job;
      readonly guard: Guard;
      readonly balance: number;
      readonly replaces: boolean;
    }
  | { readonly op: 'setCounters'; readonly counters: Counters };

/** What each request is answered with. */
export interface StorageAnswers {
  due: readonly Job[];
  byId: Job | undefined;
  byToken: Job | undefined;
  claimHead: Job | undefined;
  accountHead: AccountHead | undefined;
  /** The ledger's amount for (account, key), or undefined. */
  effect: number | undefined;
  /** The account's balance, or undefined when it has none. */
  balance: number | undefined;
  countRunning: number;
  insertJob: undefined;
  saveJob: undefined;
  makeClaimable: undefined;
  recordEffect: undefined;
  setCounters: undefined;
}

/** The answer type of one request. */
export type AnswerOf<R extends StorageRequest> = StorageAnswers[R['op']];

/** A run of the core: yields requests, is resumed with their answers, returns the reply. */
export type CoreRun<T> = Generator<StorageRequest, T, unknown>;
