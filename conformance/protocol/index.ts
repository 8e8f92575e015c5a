/**
 * The harness's end of the jobcheck/1 protocol and its concurrent revision jobcheck/2:
 * implementations in any language, run as contained processes and checked through the same
 * Adapter interface as in-process ones (ConcurrentAdapter for jobcheck/2).
 */
export type { SplitLine } from './lineSplitter.ts';
export { LineSplitter, decodeLenientUtf8, decodeStrictUtf8 } from './lineSplitter.ts';
export {
  DEFAULT_REPLY_TIMEOUT_MS,
  END_GRACE_MS,
  EXCERPT_CHARS,
  MAX_REPLY_DEPTH,
  MAX_REPLY_LINE_BYTES,
  MAX_REPLY_TIMEOUT_MS,
  PIPE_DRAIN_MS,
  STDERR_LINES_KEPT,
  STDERR_LINE_BYTES_KEPT,
} from './limits.ts';
// The concurrent adapter's interface and its indefinite outcome, for users of this index alone.
export type { ConcurrentAdapter, ConcurrentFactory } from '../concurrent/adapter.ts';
export { IndefiniteOutcome } from '../concurrent/adapter.ts';
export type { ConcurrentProcessAdapterOptions, ConcurrentProcessFactory } from './concurrentProcessAdapter.ts';
export { ConcurrentProcessAdapter, concurrentProcessFactory } from './concurrentProcessAdapter.ts';
export type { PeerEnding, PeerListener, PeerOptions } from './peer.ts';
export { Peer, killAllPeers, livingPeers } from './peer.ts';
export type { PoolOptions } from './pool.ts';
export { ProcessPool } from './pool.ts';
export type { ProcessAdapterFactory, ProcessAdapterOptions, RestartCounts } from './processAdapter.ts';
export { ProcessAdapter, encodeCommand, processAdapterFactory } from './processAdapter.ts';
export type { ProcessErrorCode, ProcessErrorDetails, ProtocolViolation } from './processError.ts';
export { ProcessError, isProcessError } from './processError.ts';
export type { LineResult } from './replies.ts';
export { checkReply, checkShape, parseJsonLine, snapshotOf } from './replies.ts';
// Not exported: rounds.ts, a brute-force round-by-round check for the tests of both ends of
// jobcheck/2 (the concurrent checker is conformance/concurrent/'s), and the fake peers (*.mjs).
