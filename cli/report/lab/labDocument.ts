/**
 * The lab's page for this copy of jobcheck: the demo's fixture stories (validated by the fixture
 * schema as they are read), the plain lifecycle diagram laid out by Graphviz, the model bundle,
 * and the version. Everything the page needs is put into it here, so it opens from `file://`.
 * Its rule links point at the contract shipped with this jobcheck (cli/report/shippedDocs.ts): a
 * file URL for a page written to disk, `/contract.md` for a page served (the server serves that
 * one file beside it), nothing when the docs are not found.
 */
import { emptyCoverage } from '../../../conformance/coverage/coverage.ts';
import { lifecycleSvg } from '../../../conformance/coverage/lifecycleDiagram.ts';
import { listStories } from '../../demo/story.ts';
import { shippedContract } from '../shippedDocs.ts';
import { JOBCHECK_VERSION } from '../version.ts';
import { documentedStories } from './documentedStories.ts';
import { labBundle } from './labBundle.ts';
import type { LabBundleSource } from './labBundle.ts';
import { labPage } from './labPage.ts';
import { labSection } from './labSection.ts';
import type { LabStory } from './labSection.ts';

/** Where a served lab's rule links point: the server answers this path with the shipped contract. */
export const SERVED_CONTRACT_PATH = '/contract.md';

/**
 * The stories the lab offers: the demo's fixture stories, as page data, then the documented
 * modes' stories (documentedStories.ts), each run on its mode's model. Reads the fixture files.
 */
export function labStories(): LabStory[] {
  const fixtures = listStories().map(
    (s): LabStory => ({
      name: s.name,
      title: s.title,
      story: s.story,
      config: { ...s.config },
      focus: s.focus,
      steps: s.steps,
      final: s.final,
    }),
  );
  return [...fixtures, ...documentedStories()];
}

/** The page and facts about it. */
export interface LabDocument {
  readonly html: string;
  readonly bundleBytes: number;
  readonly bundleSource: LabBundleSource;
  readonly stories: readonly string[];
}

/**
 * The whole lab page, starting with `initial` (a story name; default the first), its rule links
 * made for a page `served` over HTTP or written to disk. Reads the fixtures, and finds or builds
 * the bundle (labBundle.ts; LabBundleError when it cannot).
 */
export async function labDocument(initial?: string, served = false): Promise<LabDocument> {
  const stories = labStories();
  const contract = shippedContract();
  const [bundle, diagramSvg] = await Promise.all([labBundle(), lifecycleSvg(emptyCoverage(), { plain: true })]);
  const section = labSection({
    stories,
    diagramSvg,
    contractUrl: contract === undefined ? '' : served ? SERVED_CONTRACT_PATH : contract.url,
    ...(contract === undefined ? {} : { contractLabel: `docs/contract.md of jobcheck ${contract.version}` }),
    ...(initial !== undefined ? { initial } : {}),
  });
  return {
    html: labPage({ section, bundle: bundle.code, version: JOBCHECK_VERSION }),
    bundleBytes: Buffer.byteLength(bundle.code),
    bundleSource: bundle.source,
    stories: stories.map((s) => s.name),
  };
}
