/**
 * Every limit the harness puts on an implementation behind the protocol, in one place, so that
 * docs/protocol.md can state them and a test can hold the page to them. The implementation under
 * test is not trusted: each limit turns a misbehaviour (a flood, a stall, a deep value) into a
 * typed error in bounded time and memory.
 */

/** Longest reply line, in bytes, newline excluded (1 MiB). A longer one is a `protocol_error`. */
export const MAX_REPLY_LINE_BYTES = 1024 * 1024;
/** Deepest nesting of arrays and objects in a reply (a canonical snapshot reply needs 6). */
export const MAX_REPLY_DEPTH = 64;
/** Lines of stderr kept for error messages (the last ones). */
export const STDERR_LINES_KEPT = 20;
/** Bytes kept of each stderr line; the rest of a longer line is counted, not kept. */
export const STDERR_LINE_BYTES_KEPT = 1000;
/** Characters of any value of the implementation shown in a message or story. */
export const EXCERPT_CHARS = 200;

/** Default longest wait for one reply, in ms (defined beside the Adapter, where every method can take it). */
export { DEFAULT_REPLY_TIMEOUT_MS } from '../adapter.ts';
/** Longest `--timeout` accepted, in ms (one hour); `hello` gets twice the reply timeout. */
export const MAX_REPLY_TIMEOUT_MS = 3_600_000;
/**
 * After stdin is closed, how long a process may take to exit before its process group gets
 * SIGTERM, and again before SIGKILL. A correct implementation exits at once, so this is paid
 * only by one that ignores the end of its input.
 */
export const END_GRACE_MS = 1_000;
/**
 * Once the process the harness started has exited and its group has been killed, how long the
 * harness waits for the pipes to close before it stops reading them (a process that left the
 * group could hold them for ever).
 */
export const PIPE_DRAIN_MS = 200;
