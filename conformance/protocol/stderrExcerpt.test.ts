/**
 * What a failing process shows of its stderr: the traceback's innermost file and line as well as
 * its last lines, for Python, Node and Go; and a hello that times out suggests flushing stdout.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { findPython, pythonCommand } from '../../examples/python/interpreter.ts';
import { ProcessAdapter } from './processAdapter.ts';
import { ProcessError } from './processError.ts';
import { stderrExcerpt, tracebackLocation } from './stderrExcerpt.ts';

const python = findPython();
const dir = await mkdtemp(join(tmpdir(), 'jobcheck-stderr-'));
afterAll(() => rm(dir, { recursive: true, force: true }));

const CONFIG = { capacity: 1, maxAttempts: 2, leaseTicks: 3, backoffBase: 2, backoffCap: 3 };

const PYTHON_TRACEBACK = [
  'Traceback (most recent call last):',
  '  File "/app/store.py", line 90, in <module>',
  '    main()',
  '  File "/app/store.py", line 80, in main',
  '    reply = handle(message)',
  '  File "/app/store.py", line 60, in handle',
  '    return claim(message)',
  '  File "/app/store.py", line 42, in claim',
  '    job = ready[0]',
  'IndexError: list index out of range',
];

const NODE_STACK = [
  '/app/store.js:42',
  '    const job = ready[0].id;',
  '                         ^',
  '',
  "TypeError: Cannot read properties of undefined (reading 'id')",
  '    at claim (/app/store.js:42:26)',
  '    at handle (/app/store.js:60:12)',
  '    at Interface.<anonymous> (/app/store.js:80:17)',
  '    at Interface.emit (node:events:519:28)',
  '    at [_onLine] [as _onLine] (node:internal/readline/interface:416:12)',
  '    at [_normalWrite] [as _normalWrite] (node:internal/readline/interface:610:22)',
  '    at Socket.ondata (node:internal/readline/interface:243:23)',
  '',
  'Node.js v20.20.2',
];

const GO_PANIC = [
  'panic: runtime error: index out of range [0] with length 0',
  '',
  'goroutine 1 [running]:',
  'main.claim(...)',
  '\t/app/store.go:42',
  'main.handle({0xc000012345, 0x5})',
  '\t/app/store.go:60 +0x1d',
  'main.main()',
  '\t/app/store.go:80 +0x85',
  'exit status 2',
];

describe('stderrExcerpt', () => {
  it("keeps Python's innermost File line, its source line, and the error at the end", () => {
    expect(tracebackLocation(PYTHON_TRACEBACK)).toBe(7);
    expect(stderrExcerpt(PYTHON_TRACEBACK)).toEqual(PYTHON_TRACEBACK.slice(4));
    expect(stderrExcerpt(PYTHON_TRACEBACK).join('\n')).toContain('File "/app/store.py", line 42, in claim');
    expect(stderrExcerpt(PYTHON_TRACEBACK).at(-1)).toBe('IndexError: list index out of range');
  });

  it("keeps Node's first frame in the program's own file, not node:internal, with the error line", () => {
    const excerpt = stderrExcerpt(NODE_STACK);
    expect(excerpt).toContain('    at claim (/app/store.js:42:26)');
    expect(excerpt.at(-1)).toBe('Node.js v20.20.2');
    expect(excerpt.length).toBeLessThanOrEqual(6);
  });

  it("keeps Go's innermost file.go:N frame with the panic's last lines", () => {
    const excerpt = stderrExcerpt(GO_PANIC);
    expect(excerpt).toContain('\t/app/store.go:42');
    expect(excerpt.at(-1)).toBe('exit status 2');
    expect(excerpt.length).toBeLessThanOrEqual(6);
  });

  it('keeps a location far above the last lines, with a gap marked', () => {
    const long = [...PYTHON_TRACEBACK.slice(0, 9), ...Array.from({ length: 8 }, (_, i) => `log ${i}`)];
    expect(stderrExcerpt(long)).toEqual([
      '  File "/app/store.py", line 42, in claim',
      '    job = ready[0]',
      '...',
      'log 5',
      'log 6',
      'log 7',
    ]);
  });

  it('keeps short output whole and long output without a traceback to its last lines', () => {
    expect(stderrExcerpt(['one', '', 'two'])).toEqual(['one', 'two']);
    const noise = Array.from({ length: 20 }, (_, i) => `line ${i}`);
    expect(stderrExcerpt(noise)).toEqual(noise.slice(-6));
  });
});

describe.skipIf(python === undefined)('what a failing Python process shows', () => {
  it("quotes the traceback's file and line in the error of the command that crashed it", async () => {
    const script = join(dir, 'crash.py');
    await writeFile(
      script,
      [
        'import json, sys',
        'def claim(message):',
        '    ready = []',
        '    return ready[0]',
        'def noise():',
        '    for i in range(8):',
        "        sys.stderr.write('log line %d\\n' % i)",
        'for line in sys.stdin:',
        '    m = json.loads(line)',
        "    if m['type'] == 'hello':",
        "        print(json.dumps({'ok': True, 'type': 'hello', 'protocol': 'jobcheck/1', 'implementation': 'crash'}), flush=True)",
        '        noise()',
        '        continue',
        '    claim(m)',
      ].join('\n'),
    );
    const adapter = await ProcessAdapter.start(pythonCommand(python as string, script), CONFIG, {
      replyTimeoutMs: 5000,
    });
    try {
      const error = await adapter.execute({ type: 'claim', worker: 'w', now: 0 }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ProcessError);
      const message = (error as ProcessError).message;
      expect(message).toMatch(
        /stderr: .*crash\.py", line 4, in claim \| +return ready\[0\] \| .*IndexError: list index out of range/,
      );
    } finally {
      await adapter.close();
    }
  });

  it('suggests flushing stdout after each line when hello gets no reply', async () => {
    const hang = `${pythonCommand(python as string, 'conformance/hostile/peers/peer.py')} hang-hello`;
    const error = await ProcessAdapter.start(hang, CONFIG, { startTimeoutMs: 300 }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'timeout' });
    const message = (error as Error).message;
    expect(message).toContain('no reply to hello within 300 ms');
    expect(message).toContain('print(..., flush=True)');
    expect(message).toContain('bufio.Writer.Flush()');
  });
});
