export { createTokenBucketRateLimiter } from './token-bucket.js';
export type { TokenBucketRateLimiterOptions } from './token-bucket.js';
