/**
 * The asynchronous driver of the command core: awaits each answer, for a store whose statements
 * are asynchronous (node-postgres, inside its transaction). A request that fails ends the run
 * there, and its error comes out of here (the store rolls its transaction back).
 */
import type { CoreRun, StorageRequest } from './StorageRequest.ts';

/** Runs `run` to its end, answering every request with `answer`; resolves to what the run returns. */
export async function runAsync<T>(run: CoreRun<T>, answer: (request: StorageRequest) => Promise<unknown>): Promise<T> {
  let step = run.next();
  while (step.done !== true) step = run.next(await answer(step.value));
  return step.value;
}
