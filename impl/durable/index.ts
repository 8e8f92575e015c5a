/**
 * What the two durable stores (impl/sqlite, impl/postgres) share about their rows: the values one
 * command works on (`Counters`, `Job`), a row's decoding and encoding (`RowCodec`), the meta row's
 * config check, a restore's rows, the canonical snapshot of the rows read back and a resume's
 * check of them. The canonical job record (`jobRecord`) serves the memory store as well, and the
 * ledger's part of a snapshot (`ledgerOf`) the queues' adapters.
 */
export type { Counters, Job } from './rows.ts';
export type {
  BalanceRow,
  DerivedColumns,
  EffectRow,
  JobRow,
  MetaRow,
  RestoreValues,
  StoredStoreProblem,
} from './RowCodec.ts';
export { RowCodec, configOfMeta } from './RowCodec.ts';
export type { RecordFields } from './jobRecord.ts';
export { jobRecord } from './jobRecord.ts';
export { EMPTY_COUNTERS, ledgerOf, metaValues } from './snapshotRows.ts';
