/**
 * Offering an in-process store a snapshot that may be invalid (Adapter.offerRestore): the JSON
 * text is parsed as a process would parse it off the wire, and handed to the store's own restore;
 * a JobcheckError it throws is its refusal, anything else goes on as an error of the store.
 */
import { isJobcheckError } from '../../contract/index.ts';
import type { RestoreAnswer } from '../adapter.ts';

/** The store's answer when `restore` (which throws JobcheckError for a snapshot it refuses) is given the value of `text`. */
export async function offerTo(text: string, restore: (value: unknown) => unknown): Promise<RestoreAnswer> {
  const value: unknown = JSON.parse(text);
  try {
    await restore(value);
    return { answer: 'accepted' };
  } catch (error) {
    if (!isJobcheckError(error)) throw error;
    return {
      answer: 'refused',
      code: error.code,
      message: error.message,
      ...(error.path === undefined ? {} : { path: error.path }),
    };
  }
}
