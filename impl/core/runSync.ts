/**
 * The synchronous driver of the command core: answers each request at once, for a store whose
 * statements are synchronous (better-sqlite3, inside its transaction function). No promise is
 * made anywhere on this path.
 */
import type { CoreRun, StorageRequest } from './StorageRequest.ts';

/** Runs `run` to its end, answering every request with `answer`; returns what the run returns. */
export function runSync<T>(run: CoreRun<T>, answer: (request: StorageRequest) => unknown): T {
  let step = run.next();
  while (step.done !== true) step = run.next(answer(step.value));
  return step.value;
}
