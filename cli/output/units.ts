/** Numbers as the outputs print them: counts with their word, milliseconds as seconds. */

/** `1 step`, `3 steps`; `? steps` for an unknown count. Pure. */
export const count = (n: number | null | undefined, word: string, plural = `${word}s`): string =>
  `${n ?? '?'} ${n === 1 ? word : plural}`;

/** `1.5 s`. Pure. */
export const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;
