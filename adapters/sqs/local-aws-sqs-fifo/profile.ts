/**
 * SQS as local-aws-sqs emulates it, on a fifo queue: the profile target of its page and matrix column
 * (`npm run profiles -- --only "<queue>"`), and the module of `jobcheck profile --module`. The
 * translation is one for every target (../adapter.ts, ../README.md); the emulator's process is
 * started on first use and stopped when the target closes.
 */
import type { ProfileTarget } from '../../../conformance/profile/target.ts';
import { sqsTarget } from '../profile.ts';

/** The profile target. */
export const profileTarget: ProfileTarget = sqsTarget('local-aws-sqs', 'fifo');
