import { beforeAll, describe, expect, it } from 'vitest';
import type { RaceFailure } from '../../../conformance/check/failure.ts';
import type { Operation } from '../../../conformance/concurrent/history.ts';
import type { PageSection } from '../section.ts';
import { exampleRaceFailure } from './raceExample.ts';
import { RACE_EXPORTS, raceSection } from './raceSection.ts';
import { OVERLAP_KINDS, OVERLAP_KIND_TEXT } from '../../../conformance/concurrent/overlap.ts';
import { htmlText } from '../../../conformance/outside/outsideText.ts';

let failure: RaceFailure;
let section: PageSection;

beforeAll(async () => {
  failure = await exampleRaceFailure();
  section = raceSection(failure);
}, 60_000);

const operations = (): readonly Operation<unknown, unknown>[] => failure.race.run?.history.operations ?? [];

/** Every bar: its id, its classes and its label's text. */
function bars(html: string): { id: number; classes: string[]; label: string }[] {
  return [
    ...html.matchAll(
      /<button type="button" class="rreq ([^"]*)" id="race-req-(\d+)"[^>]*>(?:<span[^>]*>[^<]*<\/span>)<span class="rlabel">(.*?)<\/span><\/button>/g,
    ),
  ].map((m) => ({
    id: Number(m[2]),
    classes: (m[1] as string).split(' '),
    label: (m[3] as string).replace(/<[^>]*>/g, ''),
  }));
}

describe('raceSection', () => {
  it('draws one bar per request, labelled with its id and its reply, or "no reply"', () => {
    const drawn = bars(section.html);
    expect(drawn.map((b) => b.id).sort((a, b) => a - b)).toEqual(
      operations()
        .map((o) => o.id)
        .sort((a, b) => a - b),
    );
    for (const b of drawn) {
      const op = operations().find((o) => o.id === b.id) as Operation<unknown, unknown>;
      expect(b.label).toContain(`#${b.id} `);
      expect(b.label).toContain(' → ');
      if (op.returned === undefined) expect(b.label).toMatch(/→ no reply$/);
    }
  });

  it("marks the checker's witness: the longest prefix, and the stuck requests with a ✕", () => {
    const witness = failure.race.witness;
    if (witness === null) throw new Error('the example has no witness');
    const drawn = bars(section.html);
    const withClass = (c: string): number[] =>
      drawn
        .filter((b) => b.classes.includes(c))
        .map((b) => b.id)
        .sort((a, b) => a - b);
    expect(withClass('prefix')).toEqual([...witness.longestOrder].sort((a, b) => a - b));
    expect(withClass('stuck')).toEqual(witness.stuck.map((s) => s.id).sort((a, b) => a - b));
    for (const b of drawn.filter((x) => x.classes.includes('stuck'))) expect(b.label.startsWith('✕ ')).toBe(true);
  });

  it('writes a details panel per request, the first stuck one shown, with the model state before and after it', () => {
    const panels = [...section.html.matchAll(/<article class="rdetail" id="race-detail-(\d+)"[^>]*?( hidden)?>/g)];
    expect(panels).toHaveLength(operations().length);
    const shown = panels.filter((m) => m[2] === undefined).map((m) => Number(m[1]));
    const firstStuck = failure.race.witness?.stuck[0]?.id;
    expect(shown).toEqual([firstStuck]);
    expect(section.html).toContain(`Model state before #${firstStuck}`);
    expect(section.html).toContain(`After #${firstStuck} `);
  });

  it("counts the lanes' requests as the failure does, the final snapshot named apart, and says what they were shrunk from", () => {
    const summary = /<p class="rsummary">(.*?)<\/p>/.exec(section.html)?.[1] ?? '';
    const run = failure.race.run;
    expect(operations()).toHaveLength(failure.steps + 1);
    expect(summary).toMatch(
      new RegExp(
        `^${failure.race.scenario.workers} worker lanes sent ${failure.steps} requests \\(shrunk from ${failure.concurrent.firstFailureRequests} requests\\) in ${run?.rounds.length} rounds`,
      ),
    );
    expect(summary).toContain(`then jobcheck read the store's snapshot (#${run?.snapshotId})`);
    expect(summary).not.toContain(`${operations().length} requests`);
  });

  it('says what the campaign tried before the failure: its histories and the overlapping pairs of each kind', () => {
    const tried = /<p class="rtried">(.*?)<\/p>/.exec(section.html)?.[1] ?? '';
    const c = failure.concurrent;
    expect(c.overlap.pairs).toBeGreaterThan(0);
    expect(tried).toContain(`ran ${c.runs} scenario`);
    expect(tried).toContain(`${c.histories} histor`);
    expect(tried).toContain(`with ${c.overlap.pairs} overlapping pair`);
    for (const kind of OVERLAP_KINDS)
      expect(tried).toContain(htmlText(`${OVERLAP_KIND_TEXT[kind]}: ${c.overlap.kinds[kind]}`));
  });

  it('has a legend entry for every colour its bars use', () => {
    const used = new Set(bars(section.html).flatMap((b) => b.classes));
    for (const place of ['prefix', 'stuck', 'after', 'noreply'])
      if (used.has(place)) expect(section.html).toContain(`data-legend="${place}"`);
    expect(section.html).toContain('data-legend="selected"');
  });

  it('links the Porcupine and Jepsen exports by their file names and says how to open them', () => {
    expect(section.html).toContain(`href="${RACE_EXPORTS.porcupine}"`);
    expect(section.html).toContain(`href="${RACE_EXPORTS.jepsen}"`);
    expect(RACE_EXPORTS).toEqual({ porcupine: 'history.porcupine.json', jepsen: 'history.jepsen.edn' });
    expect(section.html).toMatch(/porcupine\.CheckOperationsVerbose/);
  });

  it('scopes every style rule under #race, and its script parses without imports', () => {
    const selectors = section.css
      .replace(/\{[^{}]*\}/g, '\n')
      .split('\n')
      .map((s) => s.trim())
      .filter((s) => s !== '');
    expect(selectors.length).toBeGreaterThan(20);
    for (const list of selectors) for (const s of list.split(',')) expect(s.trim()).toMatch(/^#race(\s|\.|$|\[|>)/);
    expect(() => new Function(section.script)).not.toThrow();
    expect(section.script).not.toMatch(/\bimport\b|\brequire\(/);
  });

  it("escapes what the implementation sent: a reply that tries to close the page's script stays text", () => {
    const run = failure.race.run;
    if (run === null) throw new Error('the example has no run');
    const hostile = '</script><img src=x onerror=alert(1)>';
    const ops = run.history.operations.map((o) =>
      o.returned === undefined ? o : { ...o, output: { ok: false, code: hostile, message: hostile } },
    );
    const bad = raceSection({
      ...failure,
      race: { ...failure.race, run: { ...run, history: { operations: ops } } },
    } as RaceFailure);
    expect(bad.html).not.toContain('<img');
    expect(bad.html.match(/<\/script>/g)).toHaveLength(1);
  });

  it('still draws the lanes, unmarked, when the implementation failed and the checker never ran', () => {
    const failed = raceSection({
      ...failure,
      race: { ...failure.race, kind: 'impl_error', witness: null, error: 'lane 1 closed its connection' },
    } as RaceFailure);
    expect(failed.title).toBe('Competing workers: the implementation failed');
    const drawn = bars(failed.html);
    expect(drawn).toHaveLength(operations().length);
    for (const b of drawn) expect(b.classes).toContain('unchecked');
    expect(failed.html).toContain('lane 1 closed its connection');
  });
});

describe('raceSection with faults', () => {
  it("shades each fault of the run's nemesis over the lanes it hit, named, and leaves the bars as they were", () => {
    const run = failure.race.run;
    if (run === null) throw new Error('the example has a run');
    const lanes = [...new Set(operations().map((o) => o.lane))].sort((a, b) => a - b);
    const last = Math.max(...operations().flatMap((o) => [o.invoked, o.returned ?? o.invoked]));
    const hold = { kind: 'partition', target: { kind: 'worker', lane: lanes[0] as number }, mode: 'hold' } as const;
    const pause = { kind: 'pause', target: { kind: 'broker' } } as const;
    const withFaults: RaceFailure = {
      ...failure,
      race: {
        ...failure.race,
        run: {
          ...run,
          history: {
            ...run.history,
            nemesis: [
              { phase: 'start', at: 1, fault: hold },
              { phase: 'end', at: 3, fault: hold, note: 'held 9 bytes' },
              { phase: 'start', at: last, fault: pause },
            ],
          },
        },
      },
    };
    const html = raceSection(withFaults).html;
    const shades = [...html.matchAll(/<div class="rrow rlane" data-lane="(\d+)"[\s\S]*?<\/div><\/div>/g)].map(
      (row) => ({
        lane: Number(row[1]),
        faults: [
          ...(row[0] ?? '').matchAll(/<span class="rfault" [^>]*title="([^"]*)"><span class="rfaultlabel">([^<]*)</g),
        ].map((m) => [m[2], m[1]]),
      }),
    );
    expect(shades.map((s) => s.lane)).toEqual(lanes);
    expect(shades[0]?.faults).toEqual([
      [
        `partition (hold) of worker lane ${lanes[0]}`,
        `partition (hold) of worker lane ${lanes[0]}: from t=1 to t=3; held 9 bytes`,
      ],
      ['pause of the broker', `pause of the broker: from t=${last}, never healed in this run`],
    ]);
    for (const s of shades.slice(1)) expect(s.faults.map((f) => f[0])).toEqual(['pause of the broker']);
    expect(bars(html).map((b) => b.id)).toEqual(bars(section.html).map((b) => b.id));
  });
});
