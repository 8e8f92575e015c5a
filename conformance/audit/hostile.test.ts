import { describe, expect, it } from 'vitest';
import { auditHistory, readHistory } from './index.ts';
import type { AuditResult } from './index.ts';

const H = '{"type":"header","format":"jobcheck-history/1"}';
const S = '{"type":"op","id":"s","op":"submit","invokedAt":0,"returnedAt":1,"outcome":"ok","job":"j"}';
const C =
  '{"type":"op","id":"c","op":"claim","invokedAt":2,"returnedAt":3,"outcome":"ok","job":"j","token":"t","leaseUntil":9}';
const A = '{"type":"op","id":"a","op":"ack","invokedAt":4,"returnedAt":5,"outcome":"ok","job":"j","token":"t"}';
const END = (n: number) => `{"type":"end","lines":${n}}`;

const audit = (text: string | Uint8Array): Promise<AuditResult> => auditHistory([readHistory([text], 'h.jsonl')]);
const code = (text: string | Uint8Array) =>
  audit(text).then(
    (r) => `no error: ${r.verdict}`,
    (e: { code?: string; message: string }) => `${e.code}: ${e.message}`,
  );

describe('truncated, reordered, duplicated and hostile history files', () => {
  it('passes the whole file, and calls it INCONCLUSIVE without its end line (truncated)', async () => {
    expect((await audit([H, S, C, A, END(4)].join('\n'))).verdict).toBe('pass');
    const cut = await audit([H, S, C, A].join('\n'));
    expect(cut.verdict).toBe('inconclusive');
    expect(cut.findings).toContainEqual(expect.objectContaining({ kind: 'gap', gap: 'truncated' }));
  });

  it('refuses a file cut in the middle of a line, naming the line', async () => {
    expect(await code([H, S, C.slice(0, 40)].join('\n'))).toMatch(/^not_json: h.jsonl:3: /);
  });

  it('refuses lines lost or repeated before the end line, a repeated operation and a return before its invoke', async () => {
    expect(await code([H, S, A, END(4)].join('\n'))).toMatch(/^end_count: h.jsonl:4: .*counts 4/);
    expect(await code([H, S, C, C, A, END(5)].join('\n'))).toMatch(/^duplicate_id: h.jsonl:4: id "c"/);
    const ret = '{"type":"return","id":"x","at":3,"outcome":"ok"}';
    const inv = '{"type":"invoke","id":"x","op":"ack","at":2,"job":"j","token":"t"}';
    expect(await code([H, S, ret, inv, END(4)].join('\n'))).toMatch(/^return_without_invoke: h.jsonl:3:/);
  });

  it('names a line that comes after its job was checked (reordered beyond the window)', async () => {
    const late = '{"type":"op","id":"l","op":"ack","invokedAt":6,"returnedAt":7,"outcome":"ok","job":"j","token":"t"}';
    const far =
      '{"type":"op","id":"f","op":"submit","invokedAt":9000000,"returnedAt":9000001,"outcome":"ok","job":"k"}';
    const r = await audit([H, S, C, far, late, END(5)].join('\n'));
    expect(r.verdict).toBe('inconclusive');
    expect(r.findings).toContainEqual(expect.objectContaining({ gap: 'late_line', subject: 'job j' }));
  });

  it('refuses hostile lines with a typed error, never a crash: no header, unknown fields, huge and binary lines', async () => {
    expect(await code('')).toMatch(/^no_header:/);
    expect(await code([S, END(1)].join('\n'))).toMatch(/^no_header: h.jsonl:1:/);
    expect(await code([H, S.replace('"job":"j"', '"job":"j","__proto__":1')].join('\n'))).toMatch(
      /^bad_line: h.jsonl:2:/,
    );
    expect(await code([H, S.replace('"outcome":"ok"', '"outcome":"OK\\u001b[31m"')].join('\n'))).toMatch(
      /^bad_line: h.jsonl:2: outcome must be ok/,
    );
    expect(await code([H, `{"type":"op","id":"${'x'.repeat(70_000)}"}`].join('\n'))).toMatch(
      /^line_too_long: h.jsonl:2:/,
    );
    expect(await code(new Uint8Array([0xff, 0xfe, 0x00, 0x0a]))).toMatch(/^not_json: h.jsonl:1:/);
    expect(await code([H, '[1,2]', END(2)].join('\n'))).toMatch(/^bad_line: h.jsonl:2:/);
    expect(await code([H, S, END(2), A].join('\n'))).toMatch(/^after_end: h.jsonl:4:/);
  });
});
