/** How a thrown value is told in a divergence. */

/** `Name: message` for an Error, the value as a string otherwise. Pure. */
export const errorText = (e: unknown): string => (e instanceof Error ? `${e.name}: ${e.message}` : String(e));
