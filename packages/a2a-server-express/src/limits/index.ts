export { createTokenBucketRateLimiter } from './token-bucket.js';
export type { RateLimiter, TokenBucketRateLimiterOptions } from './token-bucket.js';
