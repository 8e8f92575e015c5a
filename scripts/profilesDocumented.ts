/**
 * `npm run profiles:documented`: the documented services' profiles (docs/tools/documentedProfiles.ts).
 * Each mode of model/documented.ts, and each variant the modes use on its own, is run through the
 * rule checks as if it were a queue, with a fixed seed, its profile stored in
 * docs/profiles/documented/data/ (<mode>.json, variant-<name>.json); then every page of
 * docs/profiles/documented/ is written from the stored data and the citations. Pure computation on
 * the model: no broker, no network, the same pages every run.
 *
 * Run: npm run profiles:documented   (`--only <mode>` one mode; `--render-only` profiles nothing)
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DOCUMENTED_MODES } from '../model/documented.ts';
import {
  DOCUMENTED_DIR,
  DOCUMENTED_VARIANTS,
  dataFile,
  profileMode,
  profileVariant,
  renderDocumentedPages,
} from '../docs/tools/documentedProfiles.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const dir = join(root, 'docs', 'profiles', DOCUMENTED_DIR);
const arg = (name: string): string | undefined => {
  const i = process.argv.indexOf(`--${name}`);
  return i < 0 ? undefined : process.argv[i + 1];
};
const only = arg('only');
const ids: readonly string[] = [...DOCUMENTED_MODES.map((m) => m.id), ...DOCUMENTED_VARIANTS];
if (only !== undefined && !ids.includes(only)) {
  console.error(`--only ${JSON.stringify(only)} is not a documented mode or variant (${ids.join(', ')})`);
  process.exit(2);
}
mkdirSync(join(dir, 'data'), { recursive: true });
for (const id of process.argv.includes('--render-only') ? [] : ids) {
  if (only !== undefined && id !== only) continue;
  const mode = DOCUMENTED_MODES.find((m) => m.id === id);
  const variant = DOCUMENTED_VARIANTS.find((n) => n === id);
  const profile =
    mode !== undefined ? await profileMode(mode) : variant !== undefined ? await profileVariant(variant) : undefined;
  if (profile === undefined) continue;
  writeFileSync(join(dir, 'data', dataFile(id)), `${JSON.stringify(profile, null, 2)}\n`);
  console.log(`${id}: loses ${profile.rules.filter((r) => r.status === 'departs').length} rules`);
}
for (const [file, text] of renderDocumentedPages(dir)) {
  writeFileSync(join(dir, file), text);
  console.log(`docs/profiles/${DOCUMENTED_DIR}/${file} written`);
}
