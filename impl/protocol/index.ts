/** The implementation's end of the jobcheck/1 and jobcheck/2 protocols: serving any store over JSON lines. */
export type {
  DurableStorage,
  HelloReply,
  HelloReplyV2,
  ProtocolRefusal,
  ProtocolReply,
  ReplyEnvelopeOut,
  RestoreReply,
  ServedStore,
  Session,
  SnapshotReply,
  StoreMaker,
} from './server.ts';
export { answerLine, serveLines } from './server.ts';
export { memoryStoreMaker } from './memoryStore.ts';
export type { SqliteMakerOptions } from './sqliteStore.ts';
export { sqliteStoreMaker } from './sqliteStore.ts';
export { MAX_SERVE_CONNECTIONS, postgresStoreMaker } from './postgresStore.ts';
