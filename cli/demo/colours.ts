/**
 * The colours of the demo's terminal output when there are none: the demo's renderers take a
 * `Colors` (cli/output/colour.ts) and default to these, so the docs and tests that quote a trace
 * get plain text, and only `jobcheck demo` on a terminal (or with FORCE_COLOR) gets colour.
 */
import pc from 'picocolors';
import type { Colors } from '../output/colour.ts';

/** Functions that return their text unchanged: no colour. */
export const plainColors: Colors = pc.createColors(false);
