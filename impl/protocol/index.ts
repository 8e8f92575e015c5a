/** The implementation's end of the jobcheck/1 protocol: serving any store over JSON lines. */
export type { ProtocolReply, ServedStore, Session, StoreMaker } from './server.ts';
export { answerLine, serveLines } from './server.ts';
export { memoryStoreMaker } from './memoryStore.ts';
export type { SqliteMakerOptions } from './sqliteStore.ts';
export { sqliteStoreMaker } from './sqliteStore.ts';
export { postgresStoreMaker } from './postgresStore.ts';
