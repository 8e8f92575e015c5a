/** How a thrown value is told in a divergence. */
import { thrownText } from '../../contract/index.ts';

/** A thrown value in one line: a coded error by its code and message, another by its name and message (contract's thrownText). Pure. */
export const errorText = (e: unknown): string => thrownText(e);
