/**
 * The lab's page for this copy of jobcheck: the demo's fixture stories (validated by the fixture
 * schema as they are read), the plain lifecycle diagram laid out by Graphviz, the model bundle,
 * and the version. Everything the page needs is put into it here, so it opens from `file://`.
 */
import { emptyCoverage } from '../../../conformance/coverage/coverage.ts';
import { lifecycleSvg } from '../../../conformance/coverage/lifecycleDiagram.ts';
import { listStories } from '../../demo/story.ts';
import { JOBCHECK_VERSION } from '../version.ts';
import { labBundle } from './labBundle.ts';
import type { LabBundleSource } from './labBundle.ts';
import { labPage } from './labPage.ts';
import { labSection } from './labSection.ts';
import type { LabStory } from './labSection.ts';

/** Where rule links point: the contract page of the project's repository. */
export const CONTRACT_URL = 'https://github.com/jobcheck/jobcheck/blob/main/docs/contract.md';

/** The stories the lab offers: the demo's fixture stories, as page data. Reads the fixture files. */
export function labStories(): LabStory[] {
  return listStories().map((s) => ({
    name: s.name,
    title: s.title,
    story: s.story,
    config: { ...s.config },
    focus: s.focus,
    steps: s.steps,
    final: s.final,
  }));
}

/** The page and facts about it. */
export interface LabDocument {
  readonly html: string;
  readonly bundleBytes: number;
  readonly bundleSource: LabBundleSource;
  readonly stories: readonly string[];
}

/**
 * The whole lab page, starting with `initial` (a story name; default the first). Reads the
 * fixtures, and finds or builds the bundle (labBundle.ts; LabBundleError when it cannot).
 */
export async function labDocument(initial?: string): Promise<LabDocument> {
  const stories = labStories();
  const [bundle, diagramSvg] = await Promise.all([labBundle(), lifecycleSvg(emptyCoverage(), { plain: true })]);
  const section = labSection({
    stories,
    diagramSvg,
    contractUrl: CONTRACT_URL,
    ...(initial !== undefined ? { initial } : {}),
  });
  return {
    html: labPage({ section, bundle: bundle.code, version: JOBCHECK_VERSION }),
    bundleBytes: Buffer.byteLength(bundle.code),
    bundleSource: bundle.source,
    stories: stories.map((s) => s.name),
  };
}
