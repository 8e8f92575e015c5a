/**
 * A peer that answers hello and then never replies, as one that forgets to flush does: its story,
 * in the text output (a fixture's and a lockstep run's) and on the page, gives the whole cause in
 * one line, with the protocol's flush rule, never a value clipped mid-sentence or the harness's
 * class names. Each peer waits out a reply timeout of 200 ms.
 */
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import type { FixtureFailure } from '../../../conformance/check/failure.ts';
import { renderFixtureStory } from '../../../conformance/check/failureStory.ts';
import { runLockstep } from '../../../conformance/lockstep/index.ts';
import { renderStory } from '../../../conformance/lockstep/story.ts';
import { ProcessAdapter, processAdapterFactory } from '../../../conformance/protocol/processAdapter.ts';
import { loadFixture, runFixture } from '../../../model/fixtures.ts';
import { storyData } from './storyData.ts';

const FAKE = fileURLToPath(new URL('../../../conformance/hostile/peers/fakePeer.mjs', import.meta.url));
const SILENT = `'${process.execPath}' '${FAKE}' silent`;
const TIMEOUT_MS = 200;

/** The cause as the whole story must give it: the timeout, the kill, the flush rule, the line sent. */
const CAUSE =
  /timeout: no reply within 200 ms; the process group was killed; the protocol asks for stdout to be flushed after every reply, and a program that forgets to flush times out like this \(Python: print\(\.\.\., flush=True\) or sys\.stdout\.flush\(\); Go: bufio\.Writer\.Flush\(\)\); sent line \d+: \{"type":"submit",.*"now":0\}$/;

const opened: ProcessAdapter[] = [];
afterAll(() => Promise.all(opened.map((a) => a.close())));

/** The ack-before-commit fixture replayed against the silent peer, as the check's fixture phase does. */
async function fixtureFailure(): Promise<FixtureFailure> {
  const fixture = loadFixture('ack-before-commit');
  const adapter = await ProcessAdapter.start(SILENT, fixture.config, { replyTimeoutMs: TIMEOUT_MS });
  opened.push(adapter);
  const result = await runFixture(fixture, {
    execute: (command) => adapter.execute(command),
    snapshot: () => adapter.snapshot(),
    restart: () => adapter.restart(),
    restoreFrom: () => adapter.restart(),
  });
  if (result.ok) throw new Error('the silent peer followed the fixture');
  return {
    kind: 'fixture',
    source: 'fixture',
    name: fixture.name,
    steps: 1,
    fixture: { fixture, result, durationMs: 0 },
  };
}

describe('the story of a peer that times out', () => {
  it("tells a fixture's timeout in one line: the whole cause with the flush rule, in the text and on the page", async () => {
    const failure = await fixtureFailure();
    const story = renderFixtureStory(failure.fixture);
    const last = story.split('\n').at(-1) ?? '';
    expect(last).toMatch(/^ {7}>> the implementation failed: /);
    expect(last).toMatch(CAUSE);
    expect(story).not.toMatch(/ProcessError|the driver threw|"no error"|\.\.\."?$/m);
    const page = storyData(failure);
    expect(page.verdict.headline).toMatch(
      /^Step 1 \(submit\): the implementation failed: timeout: no reply within 200 ms; /,
    );
    expect(page.verdict.headline.slice(0, -1)).toMatch(CAUSE);
    expect(page.verdict.headline).not.toContain('ProcessError');
  });

  it("tells a lockstep run's timeout with the same cause, the flush rule included", async () => {
    const config = loadFixture('ack-before-commit').config;
    const factory = processAdapterFactory(SILENT, { replyTimeoutMs: TIMEOUT_MS });
    const submit = {
      type: 'submit',
      id: 'b',
      account: 'alice',
      key: 'b:add-5',
      amount: 5,
      deadline: 50,
      now: 0,
    } as const;
    const run = await runLockstep(config, [{ do: submit }], factory).finally(() => factory.close());
    expect(run.divergence?.kind).toBe('impl_error');
    const impl = renderStory(run)
      .split('\n')
      .find((l) => l.trimStart().startsWith('impl:'));
    expect(impl).toMatch(/^ {7}impl: {2}execute threw timeout: no reply within 200 ms; /);
    expect(impl).toMatch(CAUSE);
  });
});
