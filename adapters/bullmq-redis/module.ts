/**
 * BullMQ on Redis as a module for `jobcheck check --module adapters/bullmq-redis/module.ts`: the
 * sequential factory (`createAdapter`) and the competing workers' factory
 * (`createConcurrentAdapter`, a lane of separate connections per worker), both on the server
 * JOBCHECK_REDIS_URL names, in wall-clock mode at the default tick. The same exports as
 * profile.ts, which holds them beside the profile target.
 */
export { createAdapter, createConcurrentAdapter } from './profile.ts';
