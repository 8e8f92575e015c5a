/**
 * Builds the lab's browser bundle with vite (a devDependency): browserEntry.ts and everything it
 * imports (the model, xstate, zod) as one minified IIFE that defines the global `JobcheckLab`.
 * `npm run build` runs this file as a script to put the bundle in dist/ (scripts/build.mjs), so an
 * installed package, which has no vite, can still write the page; in a checkout labBundle.ts calls
 * it on demand. Run as `tsx cli/report/lab/buildLabBundle.ts <out-file>`.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The global name the bundle defines. */
export const LAB_GLOBAL = 'JobcheckLab';

/** The entry file of the bundle. */
export const LAB_ENTRY = fileURLToPath(new URL('./browserEntry.ts', import.meta.url));

/**
 * The bundle's code, built in memory. Throws when vite cannot be loaded (an installed package has
 * none) or the build fails; labBundle.ts turns that into its typed error.
 */
export async function buildLabBundle(): Promise<string> {
  const vite = await import('vite');
  const built = await vite.build({
    configFile: false,
    logLevel: 'silent',
    root: dirname(LAB_ENTRY),
    // xstate and zod read process.env.NODE_ENV; a page has no `process`.
    define: { 'process.env.NODE_ENV': JSON.stringify('production') },
    build: {
      write: false,
      minify: true,
      target: 'es2020',
      reportCompressedSize: false,
      // The model reads xstate's `and`/`not` guards by their function names (compileMachine.ts,
      // lifecycle.ts): minifying must keep names.
      rolldownOptions: { output: { keepNames: true } },
      lib: { entry: LAB_ENTRY, formats: ['iife'], name: LAB_GLOBAL, fileName: () => 'lab-model.js' },
    },
  });
  const outputs = Array.isArray(built) ? built : [built];
  for (const out of outputs)
    if ('output' in out) for (const chunk of out.output) if (chunk.type === 'chunk' && chunk.isEntry) return chunk.code;
  throw new Error('vite built no entry chunk for the lab bundle');
}

// Run as a script (npm run build): write the bundle to the file named.
if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const out = process.argv[2];
  if (out === undefined) {
    process.stderr.write('usage: tsx cli/report/lab/buildLabBundle.ts <out-file>\n');
    process.exit(2);
  }
  const code = await buildLabBundle();
  mkdirSync(dirname(resolve(out)), { recursive: true });
  writeFileSync(out, code);
  process.stdout.write(`lab bundle: ${out} (${code.length} bytes)\n`);
}
