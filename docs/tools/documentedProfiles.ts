/**
 * The documented services' profiles (model/documented.ts): each mode's model, the contract with
 * the mode's variants in place, run through the rule checks of `runProfile` as if it were a queue
 * (a departure there is a rule the mode loses), stored as data in docs/profiles/documented/data/,
 * and a page per service, marked "documented, not measured", written from that data and from the
 * citations (docs/profiles/documented/citations.json, schema-checked here on every read).
 *
 * Invariants: nothing on a page is hand-written per rule: what a mode keeps and loses is read off
 * its stored profile; every variant of every mode has exactly one citation; a citation of a rule
 * the contract keeps names a rule the mode's profile keeps. scripts/profilesDocumented.ts writes
 * the data and pages; docs/documented.test.ts holds both to the models and the citations.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { CodedError } from '../../contract/CodedError.ts';
import type { Config, Reply, Snapshot } from '../../contract/index.ts';
import { RULE_IDS, ruleOf } from '../../contract/rules.ts';
import type { RuleId } from '../../contract/rules.ts';
import type { Adapter, AdapterFactory, RestoreAnswer } from '../../conformance/adapter.ts';
import { profileSchema, runProfile } from '../../conformance/profile/index.ts';
import type { Departure, Profile, RuleResult } from '../../conformance/profile/index.ts';
import { offerTo } from '../../conformance/stores/offerRestore.ts';
import { DOCUMENTED_MODES, DOCUMENTED_SERVICES, documentedModel, modeVariants } from '../../model/documented.ts';
import type { DocumentedMode, DocumentedService } from '../../model/documented.ts';
import { toSnapshot } from '../../model/step.ts';
import type { Model, ModelState } from '../../model/step.ts';
import { DEDUPLICATION_WINDOW, VARIANT_NAMES, modelVariant } from '../../model/variants.ts';
import type { VariantName } from '../../model/variants.ts';
import { slug } from './slug.ts';
import { DOCUMENTED_RECORDS, renderRecord } from './sourceRecords.ts';

/** The folder of the documented pages, their data and citations, under docs/profiles/. */
export const DOCUMENTED_DIR = 'documented';
/** Seed and runs a rule of the stored profiles (as the measured pages: scripts/profiles.ts). */
export const DOCUMENTED_SEED = 1;
export const DOCUMENTED_RUNS = 10;

const url = z.string().url().startsWith('https://');
const line = z.string().min(1).max(400);
const modeId = z.enum(DOCUMENTED_MODES.map((m) => m.id) as [string, ...string[]]);
const serviceId = z.enum(DOCUMENTED_SERVICES.map((s) => s.id) as [string, ...string[]]);
const ruleId = z.enum(RULE_IDS as unknown as [RuleId, ...RuleId[]]);
const source = { url, title: line, says: line, checked: z.string().min(1).max(1000) };

/** The schema of citations.json. */
export const citationsSchema = z
  .object({
    format: z.literal('jobcheck.documented-citations/1'),
    /** One a variant of a mode: the vendor's page that documents the behaviour the variant states. */
    variants: z.array(
      z
        .object({
          mode: modeId,
          variant: z.string().refine((v) => modelVariant(v) !== undefined, { message: 'not a variant of the model' }),
          ...source,
        })
        .strict(),
    ),
    /** Pages that document a mode keeping a rule as the contract states it. */
    keeps: z.array(z.object({ mode: modeId, rule: ruleId, ...source }).strict()),
    /** Documented behaviours the model cannot state, with the reason. */
    notModelled: z.array(z.object({ service: serviceId, behaviour: line, url, says: line, why: line }).strict()),
    /** Pages looked for and not found in the stored copies of the vendors' documentation. */
    notFound: z.array(z.object({ service: serviceId, behaviour: line, searched: line }).strict()),
  })
  .strict();
/** The citations file, as checked. */
export type Citations = z.infer<typeof citationsSchema>;

/** The citations file is absent, not JSON, or not of the schema; the message names the file and the first problem. */
export class CitationsError extends CodedError<'invalid_citations'> {
  override name = 'CitationsError' as const;
  constructor(message: string, options?: { cause?: unknown }) {
    super('invalid_citations', message, options);
  }
}

/** Reads and checks `file` (the citations); throws CitationsError naming what is wrong. */
export function readCitations(file: string): Citations {
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(file, 'utf8'));
  } catch (cause) {
    throw new CitationsError(`${file}: not readable as JSON (${(cause as Error).message})`, { cause });
  }
  const parsed = citationsSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new CitationsError(`${file}: ${issue?.path.join('.') ?? ''}: ${issue?.message ?? 'invalid'}`);
  }
  return parsed.data;
}

/** Every (mode, variant) that has no citation, or more than one, in a sentence each; empty when each has one. Pure. */
export function citationGaps(citations: Citations): string[] {
  const gaps: string[] = [];
  for (const mode of DOCUMENTED_MODES)
    for (const variant of mode.variants) {
      const n = citations.variants.filter((c) => c.mode === mode.id && c.variant === variant).length;
      if (n !== 1) gaps.push(`${mode.id}: variant ${variant} has ${n} citations, not 1`);
    }
  for (const c of citations.variants)
    if (!DOCUMENTED_MODES.some((m) => m.id === c.mode && m.variants.some((v) => v === c.variant)))
      gaps.push(`${c.mode}: a citation of ${c.variant}, which the mode does not have`);
  return gaps;
}

/** A model behind the adapter interface, its state held here (conformance/stores/model.ts, for any model). */
class DocumentedAdapter implements Adapter {
  private state: ModelState;
  constructor(
    readonly name: string,
    private readonly model: Model,
    config: Config,
  ) {
    this.state = model.initialState(config);
  }
  execute(command: unknown): Promise<Reply> {
    const r = this.model.step(this.state, command);
    this.state = r.state;
    return Promise.resolve(r.reply);
  }
  snapshot(): Promise<Snapshot> {
    return Promise.resolve(toSnapshot(this.state));
  }
  restart(): Promise<void> {
    this.state = this.model.fromSnapshot(JSON.parse(JSON.stringify(toSnapshot(this.state))));
    return Promise.resolve();
  }
  offerRestore(text: string): Promise<RestoreAnswer> {
    return offerTo(text, (value) => {
      this.state = this.model.fromSnapshot(value);
    });
  }
  close(): Promise<void> {
    return Promise.resolve();
  }
}

/** Fresh instances of `model`, as a profile's target, under `name`. Pure. */
export function modelFactory(name: string, model: Model): AdapterFactory {
  return (config) => Promise.resolve(new DocumentedAdapter(name, model, config));
}

/** The service a mode belongs to. Pure. */
const serviceOf = (mode: DocumentedMode): DocumentedService => {
  const s = DOCUMENTED_SERVICES.find((x) => x.modes.includes(mode));
  if (s === undefined) throw new RangeError(`mode ${mode.id} belongs to no service`);
  return s;
};

/** A model's profile: checked rule by rule against the contract (no declarations), seed DOCUMENTED_SEED. */
function profileModel(queue: string, name: string, model: Model, runs: number, only: string): Promise<Profile> {
  return runProfile(
    { queue, version: 'documented', factory: modelFactory(name, model), declarations: {} },
    {
      runs,
      seed: DOCUMENTED_SEED,
      replayCommand: (rule) => `npx tsx scripts/profilesDocumented.ts --only ${only}  (rule ${rule})`,
    },
  );
}

/** A mode's profile: its model (the contract with all its variants) checked rule by rule against the contract. */
export function profileMode(mode: DocumentedMode, runs = DOCUMENTED_RUNS): Promise<Profile> {
  const model = documentedModel(mode.id);
  if (model === undefined) throw new RangeError(`no documented mode ${mode.id}`);
  return profileModel(`${serviceOf(mode).name}, ${mode.name}`, `documented ${mode.id}`, model, runs, mode.id);
}

/**
 * One variant's profile: the contract with that variant alone. A mode's profile files each
 * divergence under the rule it meets first, so a variant whose departures fall under a rule another
 * of the mode's variants already departs on shows only here.
 */
export function profileVariant(name: VariantName, runs = DOCUMENTED_RUNS): Promise<Profile> {
  const v = modelVariant(name);
  if (v === undefined) throw new RangeError(`no model variant ${name}`);
  return profileModel(`the contract with ${name}`, `variant ${name}`, v.model, runs, name);
}

/** The variants the documented modes use, each once: in VARIANT_NAMES order, then any deduplication window. */
export const DOCUMENTED_VARIANTS: readonly VariantName[] = [
  ...VARIANT_NAMES.filter((n) => DOCUMENTED_MODES.some((m) => m.variants.includes(n))),
  ...new Set(DOCUMENTED_MODES.flatMap((m) => m.variants).filter((n) => n.startsWith(`${DEDUPLICATION_WINDOW}:`))),
];

/** The data file (under data/) of a mode's profile or of a variant's (a window's colon made a dash). Pure. */
export const dataFile = (id: string): string =>
  DOCUMENTED_MODES.some((m) => m.id === id) ? `${id}.json` : `variant-${id.replace(/:/g, '-')}.json`;

/** The stored profile of a mode or variant (docs/profiles/documented/data/), or undefined when absent or of another format. */
export function readStoredProfile(dataDir: string, id: string): Profile | undefined {
  const file = join(dataDir, dataFile(id));
  if (!existsSync(file)) return undefined;
  const parsed = profileSchema.safeParse(JSON.parse(readFileSync(file, 'utf8')));
  return parsed.success ? (parsed.data as Profile) : undefined;
}

/** What a mode does to one rule, in the pages' words. Pure. */
export function modeVerdict(r: RuleResult): 'keeps' | 'loses' | 'not established' {
  if (r.status === 'conforms') return 'keeps';
  if (r.status === 'departs') return 'loses';
  return 'not established';
}

const code = (s: string): string => `\`${s}\``;
const ruleLink = (rule: RuleId): string => `[${code(rule)}](../../contract.md#rule-${rule})`;

/** The page file of a service, under docs/profiles/documented/. Pure. */
export const servicePage = (service: DocumentedService): string => `${service.id}.md`;
/** The anchor of a mode's section on its service's page. Pure. */
export const modeAnchor = (mode: DocumentedMode): string => slug(mode.name);

/** A departure's story, folded under `summary` in a list item. Pure. */
const storyBlock = (summary: string, d: Departure): string[] => [
  '',
  `  <details><summary>${summary.replace(/`([^`]*)`/g, '<code>$1</code>')}</summary>`,
  '',
  '  ```text',
  ...d.story.split('\n').map((l) => (l === '' ? '' : `  ${l}`)),
  '  ```',
  '',
  '  </details>',
  '',
];

/** One mode's section: its variants with their citations, then what its profile keeps and loses. Pure. */
function modeSection(
  mode: DocumentedMode,
  profile: Profile | undefined,
  alone: ReadonlyMap<string, Profile>,
  citations: Citations,
): string[] {
  const lines = [`## ${mode.name}`, '', `Setting: ${mode.setting}.`, ''];
  const record = DOCUMENTED_RECORDS[mode.id];
  if (record !== undefined && profile !== undefined)
    lines.push(renderRecord(record, profile, { heading: '###', linkDepartures: false }), '');
  const variants = modeVariants(mode);
  if (variants.length === 0)
    lines.push('No documented behaviour of this mode calls for a variant: its model is the contract itself.', '');
  else {
    lines.push('The variants of the model this mode is, each with the page that documents it:', '');
    for (const v of variants) {
      const c = citations.variants.find((x) => x.mode === mode.id && x.variant === v.name);
      lines.push(
        `- ${code(v.name)} (in place of ${ruleLink(v.rule)}): ${v.description}`,
        c === undefined
          ? '  - No citation: this variant is not documented here.'
          : `  - [${c.title}](${c.url}): ${c.says} (Checked against ${c.checked}.)`,
      );
      const own = alone.get(v.name)?.rules.filter((r) => r.status === 'departs');
      if (own !== undefined)
        lines.push(
          `  - On its own (the contract with this variant alone), it loses ${own.length === 0 ? 'no rule' : own.map((r) => ruleLink(r.rule)).join(', ')}.`,
          ...own.flatMap((r) =>
            r.departure === undefined ? [] : storyBlock(`its story on ${code(r.rule)}`, r.departure),
          ),
        );
    }
    lines.push('');
  }
  if (profile === undefined) return [...lines, 'No stored profile: run `npm run profiles:documented`.', ''];
  const by = (v: ReturnType<typeof modeVerdict>): RuleResult[] => profile.rules.filter((r) => modeVerdict(r) === v);
  const loses = by('loses');
  lines.push(
    `### What it loses and keeps`,
    '',
    `The mode's model checked rule by rule against the contract (\`runProfile\`, seed ${profile.seed}, ${profile.runs} runs a rule): a departure is a rule the documented behaviour loses. A rule kept is one the documented variants leave as the contract states it; where the documentation says nothing, that is the model's assumption, not a claim about the service.`,
    '',
  );
  lines.push(loses.length === 0 ? '**Loses**: no rule.' : `**Loses** (${loses.length}):`, '');
  for (const r of loses) {
    const d = r.departure;
    lines.push(`- ${ruleLink(r.rule)}: ${r.title}.`);
    if (d !== undefined)
      lines.push(
        ...storyBlock(
          `the shortest story, ${d.steps} steps (step ${d.divergence.step}: the contract says ${code(d.divergence.model)}, this mode ${code(d.divergence.impl)} at ${code(d.divergence.field)})`,
          d,
        ),
      );
  }
  const keeps = by('keeps');
  lines.push('', `**Keeps** (${keeps.length}): ${keeps.map((r) => code(r.rule)).join(', ')}.`, '');
  const open = by('not established');
  if (open.length > 0)
    lines.push(
      `**Not established** (${open.length}), the checks having found no run that reaches the rule without departing before it: ${open.map((r) => `${code(r.rule)} (${r.status.replace(/_/g, ' ')})`).join(', ')}.`,
      '',
    );
  const agreed = citations.keeps.filter((k) => k.mode === mode.id);
  if (agreed.length > 0) {
    lines.push('Documented where the mode keeps the contract:', '');
    for (const k of agreed) lines.push(`- ${ruleLink(k.rule)}: [${k.title}](${k.url}): ${k.says}`);
    lines.push('');
  }
  return lines;
}

/** A service's page, from the stored profiles of its modes and the citations. Pure. */
export function renderServicePage(
  service: DocumentedService,
  profiles: ReadonlyMap<string, Profile>,
  citations: Citations,
): string {
  // Mode profiles are stored under the mode's id, variants' under the variant's name.
  const lines = [
    `# ${service.name}: documented, not measured`,
    '',
    `> **Documented, not measured.** ${service.name} cannot run beside jobcheck, and nothing on this page was seen of it. Each mode below is the contract's model with the variants (model/variants.ts) that the vendor's documentation calls for, each variant with the page that says so, checked against a stored copy of that page. What a mode loses and keeps is what jobcheck's rule checks find when they run that model as if it were a queue (\`npm run profiles:documented\`, scripts/profilesDocumented.ts). \`npx --no-install jobcheck lab\` steps through each mode's stories.`,
    '',
    `Modes: ${service.modes.map((m) => `[${m.name}](#${modeAnchor(m)})`).join(', ')}.`,
    '',
  ];
  for (const mode of service.modes) lines.push(...modeSection(mode, profiles.get(mode.id), profiles, citations));
  const notModelled = citations.notModelled.filter((n) => n.service === service.id);
  const notFound = citations.notFound.filter((n) => n.service === service.id);
  if (notModelled.length > 0 || notFound.length > 0) lines.push('## Documented, not modelled', '');
  for (const n of notModelled) lines.push(`- ${n.behaviour} [The page](${n.url}): ${n.says} Not modelled: ${n.why}.`);
  for (const n of notFound) lines.push(`- Not found: ${n.behaviour} (${n.searched}).`);
  return `${lines.join('\n').replace(/\n{3,}/g, '\n\n')}\n`;
}

/** Every documented page (file name under docs/profiles/documented/ → text), from the stored data. Reads files. */
export function renderDocumentedPages(documentedDir: string): Map<string, string> {
  const citations = readCitations(join(documentedDir, 'citations.json'));
  const dataDir = join(documentedDir, 'data');
  const pages = new Map<string, string>();
  for (const service of DOCUMENTED_SERVICES) {
    const profiles = new Map<string, Profile>();
    for (const id of [...service.modes.map((m) => m.id), ...DOCUMENTED_VARIANTS]) {
      const p = readStoredProfile(dataDir, id);
      if (p !== undefined) profiles.set(id, p);
    }
    pages.set(servicePage(service), renderServicePage(service, profiles, citations));
  }
  return pages;
}

/** The matrix's section of the documented modes: a row a rule, a column a mode, each cell what the mode does to it. Pure. */
export function documentedMatrix(profiles: ReadonlyMap<string, Profile>): string[] {
  const modes = DOCUMENTED_MODES.filter((m) => profiles.has(m.id));
  if (modes.length === 0) return [];
  const page = (m: DocumentedMode): string => `${DOCUMENTED_DIR}/${servicePage(serviceOf(m))}#${modeAnchor(m)}`;
  const lines = [
    '## Documented, not measured',
    '',
    "Services that cannot run here, each mode the contract's model with the variants its vendor's documentation calls for (each variant cited on its page). Every cell says **documented**: what the rule checks find on that model, never a measured verdict.",
    '',
    `| rule | ${modes.map((m) => `[${serviceOf(m).name}, ${m.name}](${page(m)})`).join(' | ')} |`,
    `| --- | ${modes.map(() => '---').join(' | ')} |`,
  ];
  for (const rule of RULE_IDS) {
    const cells = modes.map((m) => {
      const r = profiles.get(m.id)?.rules.find((x) => x.rule === rule);
      return r === undefined
        ? ''
        : modeVerdict(r) === 'loses'
          ? '**documented: loses**'
          : `documented: ${modeVerdict(r)}`;
    });
    // The rule cell is not a link in the measured tables' form: those rows are the measured matrix's own.
    lines.push(
      `| ${code(rule)}: [${ruleOf(rule).title.replace(/\|/g, '\\|')}](../contract.md#rule-${rule}) | ${cells.join(' | ')} |`,
    );
  }
  return lines;
}
