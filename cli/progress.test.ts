/**
 * The progress line: a bar with the elapsed time while the total is known, a counter while
 * shrinking and exploring, nothing at all when stderr is no terminal.
 */
import { describe, expect, it } from 'vitest';
import { elapsedText, progressLine, progressText } from './progress.ts';

/** A stream that says it is a terminal and keeps what is written to it. */
function fakeTerminal(): NodeJS.WritableStream & { text: string } {
  const stream = {
    text: '',
    isTTY: true,
    columns: 120,
    write(s: string): boolean {
      stream.text += s;
      return true;
    },
    cursorTo: () => true,
    clearLine: () => true,
    clearScreenDown: () => true,
    moveCursor: () => true,
    on: () => stream,
    removeListener: () => stream,
  };
  return stream as unknown as NodeJS.WritableStream & { text: string };
}

describe('the progress line', () => {
  it('shows a bar, the count and the elapsed time while the total is known', () => {
    const text = progressText('campaign', 25, 100, 4200);
    expect(text).toMatch(/^random runs +\[.{30}\] 25\/100 {2}4\.2 s$/);
    expect(text.match(/█/g)).toHaveLength(8); // a quarter of 30, rounded
  });

  it('shows a counter, not a bar, while shrinking and exploring', () => {
    expect(progressText('shrink', 37, 37, 61_500)).toBe('shrinking       37 smaller runs tried  1 min 01 s');
    expect(progressText('explore', 1200, 0, 900)).toBe('exploration     1200 states explored  0.9 s');
  });

  it('counts minutes and seconds', () => {
    expect(elapsedText(59_949)).toBe('59.9 s');
    expect(elapsedText(125_000)).toBe('2 min 05 s');
  });

  it('draws on a terminal, with the time since it began, and nothing when disabled', () => {
    let t = 1000;
    const terminal = fakeTerminal();
    const line = progressLine(true, terminal, () => t);
    line.update({ phase: 'campaign', done: 1, total: 4 });
    t = 3500;
    line.update({ phase: 'shrink', done: 3, total: 3 });
    line.stop();
    expect(terminal.text).toContain('random runs     [');
    expect(terminal.text).toContain('shrinking       3 smaller runs tried  2.5 s');
    const silent = fakeTerminal();
    const off = progressLine(false, silent, () => t);
    off.update({ phase: 'campaign', done: 1, total: 4 });
    off.stop();
    expect(silent.text).toBe('');
  });
});
