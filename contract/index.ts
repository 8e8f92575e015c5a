/** Public names of the neutral wire-format module shared by model/ and impl/. */
export type {
  AckCommand,
  AckResult,
  ClaimCommand,
  ClaimResult,
  Command,
  CommandType,
  CommitCommand,
  CommitResult,
  Config,
  DeadReason,
  Delivery,
  EffectRecord,
  FailCommand,
  FailResult,
  FailureKind,
  DeadJobRecord,
  DoneJobRecord,
  JobRecord,
  ReadyJobRecord,
  RunningJobRecord,
  WaitingJobRecord,
  JobStatus,
  Payload,
  Rejection,
  RejectionCode,
  Reply,
  Snapshot,
  SubmitCommand,
  SubmitResult,
  Success,
  TickCommand,
  TickResult,
} from './types.ts';
export { REJECTION_CODES, SNAPSHOT_FORMAT } from './types.ts';
export { CodedError, codeOf, hasCode, isCodedError, messageOf, thrownText } from './CodedError.ts';
export { countFields, fieldNames, hasOwnKey, putOwn } from './keys.ts';
export type { FieldNames } from './keys.ts';
export type { JobcheckErrorCode } from './errors.ts';
export { JobcheckError, isJobcheckError } from './errors.ts';
export type { ParsedCommand } from './schema.ts';
export { CLIPPED, clipText, describeValue, jsonDepth, jsonExcerpt } from './describe.ts';
export {
  configSchema,
  describeIssue,
  ownValue,
  parseCommand,
  parseCommandBySchema,
  parseConfig,
  parseSnapshot,
  snapshotSchema,
} from './schema.ts';
export type { Rule, RuleId } from './rules.ts';
export { RULES, RULE_IDS, ruleOf } from './rules.ts';
export type { Consequence, ConsequenceId } from './consequences.ts';
export { CONSEQUENCES, CONSEQUENCE_IDS, consequenceOf } from './consequences.ts';
