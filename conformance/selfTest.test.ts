import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { jobStoreFactory } from './stores/jobStore.ts';
import { modelFactory } from './stores/model.ts';
import { readArtifact, replayArtifact, toArtifact, writeArtifact } from './lockstep/artifact.ts';
import { brokenVariant } from './broken/index.ts';
import type { BrokenVariant } from './broken/index.ts';
import { runCampaign } from './random/campaign.ts';
import type { CampaignResult } from './random/campaign.ts';
import { coverageOf } from './coverage/coverage.ts';
import { renderStory } from './lockstep/story.ts';

/**
 * Self-test: the engine must catch each seed bug with a shrunk story a person can read. Seeds are
 * fixed so that a failure here is reproducible; any seed finds these bugs within the run budget.
 */
const found = new Map<string, CampaignResult>();
async function hunt(name: string): Promise<{ variant: BrokenVariant; result: CampaignResult }> {
  const variant = brokenVariant(name);
  if (variant === undefined) throw new Error(`no broken variant ${name}`);
  let result = found.get(name);
  if (result === undefined) {
    result = await runCampaign({ factory: variant.factory, runs: 500, seed: 20261129 });
    found.set(name, result);
  }
  return { variant, result };
}

const dir = await mkdtemp(join(tmpdir(), 'jobcheck-selftest-'));
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('the engine catches the three seed bugs with short stories', () => {
  it.each([
    ['capacity-forgets-running', 'reply', /capacity_exceeded/],
    ['retry-forgets-deadline', 'reply', /no_time_for_retry/],
    ['restart-resets-tokens', 'snapshot', /restart/],
  ] as const)('catches %s with a %s divergence, shrunk to at most 10 steps', async (name, kind, mentions) => {
    const { result } = await hunt(name);
    expect(result.verdict).toBe('diverge');
    const ce = result.counterexample;
    expect(ce?.divergence?.kind).toBe(kind);
    expect(ce?.steps.length).toBeLessThanOrEqual(10);
    const story = renderStory(ce!, { seed: result.seed, path: result.path });
    expect(story).toMatch(mentions);
    expect(story).toMatch(/^ {2}1\. /m);
    expect(story).toMatch(/differs at [A-Za-z]+(\.[\w-]+)*: model .+, impl .+/);
    expect(story).toContain(`seed: ${result.seed}`);
  });

  it('names the first differing snapshot field of the token bug by its path (nextToken: model 2, impl 1 or similar)', async () => {
    const { result } = await hunt('restart-resets-tokens');
    expect(result.counterexample?.divergence?.snapshot?.path).toBe('nextToken');
  });

  it('repeats the shrunk counterexample from its seed and fast-check path alone', async () => {
    const { variant, result } = await hunt('retry-forgets-deadline');
    const again = await runCampaign({ factory: variant.factory, seed: result.seed, path: result.path ?? '', runs: 1 });
    expect(again.verdict).toBe('diverge');
    expect(again.counterexample?.steps.map((s) => s.action)).toEqual(result.counterexample?.steps.map((s) => s.action));
  });

  it('writes a portable artifact that replays the failure against the broken store and passes against the real one', async () => {
    const { variant, result } = await hunt('capacity-forgets-running');
    const file = await writeArtifact(dir, toArtifact(result.counterexample!, { seed: result.seed, path: result.path }));
    const artifact = await readArtifact(file);
    expect(artifact.steps.length).toBe(result.counterexample?.steps.length);
    const broken = await replayArtifact(artifact, variant.factory);
    expect(broken.divergence?.step).toBe(result.counterexample?.divergence?.step);
    const passing = await replayArtifact(artifact, jobStoreFactory());
    expect(passing.divergence).toBeNull();
    // The bug needs a running job, so the replay's coverage includes a claim.
    expect(coverageOf([passing]).items.transitions['ready --CLAIM--> running']).toBeGreaterThanOrEqual(1);
    expect((await replayArtifact(artifact, modelFactory)).divergence).toBeNull();
  });

  it('refuses an artifact file that is not an artifact, naming the field', async () => {
    const { result } = await hunt('capacity-forgets-running');
    const bad = { ...toArtifact(result.counterexample!), config: { capacity: 0 } };
    const file = await writeArtifact(dir, bad as never, 'bad.json');
    await expect(readArtifact(file)).rejects.toThrow(/config\.capacity/);
  });
});
