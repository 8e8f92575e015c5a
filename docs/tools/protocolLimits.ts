/**
 * The table of the harness's limits in docs/protocol.md, rendered from the constants the code
 * uses, so that the page states what the harness really does.
 */
import { DEFAULT_TIME_LIMIT_MS, MAX_TIME_LIMIT_MS } from '../../cli/checkCommand.ts';
import { MAX_ARTIFACT_BYTES } from '../../conformance/lockstep/artifact.ts';
import { SHOWN_CHARS } from '../../conformance/lockstep/compare.ts';
import {
  DEFAULT_REPLY_TIMEOUT_MS,
  END_GRACE_MS,
  EXCERPT_CHARS,
  MAX_REPLY_DEPTH,
  MAX_REPLY_LINE_BYTES,
  MAX_REPLY_TIMEOUT_MS,
  PIPE_DRAIN_MS,
  STDERR_LINES_KEPT,
  STDERR_LINE_BYTES_KEPT,
} from '../../conformance/protocol/limits.ts';

const ms = (n: number): string =>
  n >= 60_000 && n % 60_000 === 0 ? `${n / 60_000} min` : n >= 1000 && n % 1000 === 0 ? `${n / 1000} s` : `${n} ms`;

/** The Markdown table of every limit, its value and what happens when it is broken. Pure. */
export function protocolLimitsTable(): string {
  const rows: [string, string, string][] = [
    [
      'length of a reply line',
      `${MAX_REPLY_LINE_BYTES} bytes (1 MiB), newline excluded`,
      '`protocol_error` as soon as the line grows past it, before the newline; the process group is killed and nothing more is read',
    ],
    [
      'encoding of a reply line',
      'UTF-8',
      '`protocol_error` naming the first byte that is not (never replaced by U+FFFD)',
    ],
    ['nesting of a reply', `${MAX_REPLY_DEPTH} levels of arrays and objects`, '`protocol_error`'],
    [
      'replies per request',
      'exactly one, and none unasked',
      '`protocol_error` at once for a line written when no request waits; the process group is killed',
    ],
    [
      'time for a reply',
      `${ms(DEFAULT_REPLY_TIMEOUT_MS)} (\`--timeout\`, at most ${ms(MAX_REPLY_TIMEOUT_MS)}); \`hello\` twice that`,
      '`timeout`; the process group is killed',
    ],
    [
      'stderr kept',
      `the last ${STDERR_LINES_KEPT} lines, the first ${STDERR_LINE_BYTES_KEPT} bytes of each`,
      'the rest of a longer line is counted (`... (N bytes in all)`) and dropped as it arrives',
    ],
    [
      'exit after stdin closes',
      ms(END_GRACE_MS),
      `SIGTERM to the process group, SIGKILL ${ms(END_GRACE_MS)} later; at a restart the run fails with \`exit_timeout\``,
    ],
    [
      'pipes after the process exited',
      ms(PIPE_DRAIN_MS),
      'the rest of the group was killed at the exit; after this the harness stops reading pipes that an escaped process may still hold',
    ],
    [
      'what is shown of your output',
      `${EXCERPT_CHARS} characters of a line in an error message, ${SHOWN_CHARS} of a value in a story`,
      'cut, ending in `...`',
    ],
    [
      'the whole check',
      `\`--time-limit\`, ${ms(DEFAULT_TIME_LIMIT_MS)} by default (1 s to ${ms(MAX_TIME_LIMIT_MS)})`,
      'every wait is cut short and the process group killed; the run in progress is dropped, neither pass nor failure; verdict `INCOMPLETE`, exit code 3, with the runs and coverage reached',
    ],
    ['an artifact or coverage file read', `${MAX_ARTIFACT_BYTES / 1024 / 1024} MiB`, 'refused, exit code 2'],
  ];
  return [
    '| limit | value | when it is broken |',
    '| --- | --- | --- |',
    ...rows.map((r) => `| ${r.join(' | ')} |`),
  ].join('\n');
}
