/**
 * The command core the durable stores share: steps 1b to 3 of a command as a generator of
 * storage requests (command.ts), and its two drivers, synchronous (SQLite) and asynchronous
 * (PostgreSQL). The memory store does not use it: it calls impl/decisions directly, with no
 * generator on its hot path.
 */
export type { CoreContext } from './command.ts';
export { advanceClock, delivery, resolve, runCommand, writeCounters } from './command.ts';
export { ask } from './ask.ts';
export { runAsync } from './runAsync.ts';
export { runSync } from './runSync.ts';
export type { AccountHead, AnswerOf, CoreRun, Guard, StorageAnswers, StorageRequest } from './StorageRequest.ts';
