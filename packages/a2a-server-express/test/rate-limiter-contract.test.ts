import { describeRateLimiterContract } from '@a2aplane/a2a-governance/testing';
import { afterEach, describe, it } from 'vitest';
import { createTokenBucketRateLimiter } from '../src/index.js';

describeRateLimiterContract(
  'token bucket (in memory)',
  { create: (bucket) => createTokenBucketRateLimiter(bucket) },
  { describe, it, afterEach },
);
