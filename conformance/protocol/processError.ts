/**
 * The typed error of the process adapter. Everything that can go wrong with an implementation
 * behind a process boundary (it does not start, answers garbage, answers nothing, dies) becomes a
 * ProcessError with a stable code and the offending line, never an unhandled exception. Its
 * message quotes at most an excerpt of anything the implementation wrote.
 */
// describe.ts itself, not the contract's index: the index loads zod, and cli/main.ts loads this file
// (through peer.ts) before any command, `jobcheck --help` included.
import { CodedError } from '../../contract/CodedError.ts';
import { clipText } from '../../contract/describe.ts';
import { outsideText } from '../outside/outsideText.ts';
import { EXCERPT_CHARS } from './limits.ts';
import { stderrExcerpt } from './stderrExcerpt.ts';

/** Stable codes of process-boundary failures. */
export type ProcessErrorCode =
  /** The command could not be started, or ended before it answered `hello`. */
  | 'spawn_failed'
  /** The process answered `hello` with a refusal or with something that is not a hello reply. */
  | 'handshake_failed'
  /** A reply that is not JSON, has the wrong shape, or a line nobody asked for. */
  | 'protocol_error'
  /** No reply within the timeout; the process has been killed. */
  | 'timeout'
  /** The process ended while the harness was waiting for a reply. */
  | 'process_exited'
  /** At a restart, the process did not exit within the grace period once its stdin was closed. */
  | 'exit_timeout'
  /** A fresh process refused a snapshot that the previous process had produced. */
  | 'restore_rejected'
  /** The harness was handed a command that cannot be written as one JSON line of the protocol. */
  | 'unencodable_command'
  /** The check's time limit ran out while a reply was awaited (not a fault of the implementation). */
  | 'time_limit'
  /** The adapter was used after close(). */
  | 'closed';

/**
 * Which rule of jobcheck/2's reply envelopes a `protocol_error` broke (docs/protocol.md, section 9),
 * when it is one of those: stable names for tests and reports.
 */
export type ProtocolViolation =
  /** A line that is not JSON, nested too deep, or not a reply envelope of the right shape. */
  | 'malformed_line'
  /** A reply envelope without an id, or a bare reply while requests were in flight: it cannot be matched. */
  | 'missing_id'
  /** A reply envelope whose id the harness never sent. */
  | 'unknown_id'
  /** A second reply envelope for an id already answered. */
  | 'duplicate_id'
  /** A well-formed envelope whose reply is not a command reply of the contract. */
  | 'bad_reply'
  /** A line written when no request was in flight. */
  | 'unasked_line';

/** What a ProcessError carries besides its code. */
export interface ProcessErrorDetails {
  /** The shell command of the implementation. */
  readonly command: string;
  /** The line the harness sent that went wrong, if any. */
  readonly sent?: string;
  /** Its number among the lines sent to this process (1 = the hello). */
  readonly lineNumber?: number;
  /** The line the implementation answered with, if any. */
  readonly received?: string;
  /** The last lines the implementation wrote on stderr (the message quotes an excerpt of them, stderrExcerpt.ts). */
  readonly stderr?: readonly string[];
  readonly exitCode?: number | null;
  readonly signal?: string | null;
  readonly cause?: unknown;
  /** For a `protocol_error` of jobcheck/2's envelopes: which rule was broken. */
  readonly violation?: ProtocolViolation;
  /** For a jobcheck/2 request: its id. */
  readonly requestId?: number;
}

// An excerpt of the implementation's output is escaped (outsideText): a message is one line that prints as itself.
const clip = (s: string): string => outsideText(clipText(s, EXCERPT_CHARS));

/** A failure at the process boundary: stable `code`, the line sent, the line received, stderr's tail. */
export class ProcessError extends CodedError<ProcessErrorCode> {
  override name = 'ProcessError' as const;
  readonly details: ProcessErrorDetails;

  constructor(code: ProcessErrorCode, problem: string, details: ProcessErrorDetails) {
    // The problem may quote the implementation (a refusal's message): escaped too, so that the message stays one line.
    const parts = [`${code}: ${outsideText(problem)}`];
    if (details.sent !== undefined) parts.push(`sent line ${details.lineNumber ?? '?'}: ${clip(details.sent)}`);
    if (details.received !== undefined) parts.push(`received: ${clip(details.received)}`);
    // The last lines of stderr, with a traceback's innermost location when it is further up (stderrExcerpt.ts).
    const excerpt = stderrExcerpt(details.stderr ?? []);
    if (excerpt.length > 0) parts.push(`stderr: ${excerpt.map(clip).join(' | ')}`);
    super(code, parts.join('; '), details.cause === undefined ? undefined : { cause: details.cause });
    this.details = details;
  }
}

/**
 * What a hello timeout suggests: the commonest first bug of an implementation is a reply written
 * into a buffer that is never flushed (Python and Go buffer stdout when it is a pipe), so the
 * process runs, has answered, and the harness has read nothing.
 */
export const HELLO_FLUSH_HINT =
  'a program that runs but seems silent often leaves its replies in a buffer: flush stdout after each line ' +
  "(Python: print(..., flush=True) or sys.stdout.flush(); Go: bufio.Writer.Flush(); Node's process.stdout.write needs nothing)";

/**
 * What a reply that timed out suggests: the protocol asks for stdout to be flushed after every
 * reply, and a program that writes its reply without flushing it looks, from here, exactly like
 * one that never answered.
 */
export const REPLY_FLUSH_HINT =
  'the protocol asks for stdout to be flushed after every reply, and a program that forgets to flush times out like this ' +
  '(Python: print(..., flush=True) or sys.stdout.flush(); Go: bufio.Writer.Flush())';

/**
 * The error of a hello that got no reply in time: `error`'s code (`timeout`) and details, its
 * message saying how long was waited and suggesting a flush (HELLO_FLUSH_HINT). Any other error is
 * returned unchanged. Pure.
 */
export function helloTimeoutError(error: ProcessError, waitedMs: number): ProcessError {
  if (error.code !== 'timeout') return error;
  return new ProcessError(
    'timeout',
    `no reply to hello within ${waitedMs} ms; the process group was killed; ${HELLO_FLUSH_HINT}`,
    error.details,
  );
}

/** True for a ProcessError (also across module copies, by name and code). */
export function isProcessError(error: unknown): error is ProcessError {
  return error instanceof ProcessError || (error instanceof Error && error.name === 'ProcessError' && 'code' in error);
}
