/**
 * The beanstalkd adapter: a real beanstalkd server driven through the contract's commands, one
 * tube per instance and one connection per worker, its clock moved through libfaketime, and its
 * profile target (version, declarations, tolerances).
 */
export type { BeanstalkdFactoryOptions } from './adapter.ts';
export { BeanstalkdAdapter, beanstalkdFactory, checkConfig, parseAddr } from './adapter.ts';
export { BeanstalkdConcurrentAdapter, beanstalkdConcurrentFactory } from './concurrent.ts';
export type { BeanstalkdAdapterErrorCode } from './BeanstalkdAdapterError.ts';
export { BeanstalkdAdapterError } from './BeanstalkdAdapterError.ts';
export type { BeanstalkdReply } from './BeanstalkdConnection.ts';
export { BeanstalkdConnection, parseStats } from './BeanstalkdConnection.ts';
export { FaketimeClock, faketimeText, parseFaketimeText } from './clock.ts';
export {
  BEANSTALKD_VERSION,
  beanstalkdTarget,
  createAdapter,
  createConcurrentAdapter,
  profileTarget,
} from './profile.ts';
