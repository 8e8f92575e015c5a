/**
 * The core's one question to its store: `yield* ask(request)` yields a storage request and is
 * resumed with its answer, typed by the request's `op` (StorageRequest.ts's `StorageAnswers`).
 * The drivers (runSync.ts, runAsync.ts) resume the run with the store's answer to exactly the
 * request yielded, which each store gives as `StorageAnswers` says; that is what the one cast
 * below relies on.
 */
import type { AnswerOf, CoreRun, StorageRequest } from './StorageRequest.ts';

/** Asks for `request` and returns the store's answer to it. */
export function* ask<R extends StorageRequest>(request: R): CoreRun<AnswerOf<R>> {
  return (yield request) as AnswerOf<R>;
}
