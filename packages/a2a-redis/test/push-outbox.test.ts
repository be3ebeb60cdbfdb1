import { createPushSender } from '@a2aplane/a2a-server-express';
import { pushOutboxKillScenario } from '@a2aplane/test-utils';
import { describePushOutboxContract } from '@a2aplane/a2a-server-express/testing';
import { afterAll, afterEach, beforeAll, describe, it } from 'vitest';
import { createRedisPushOutbox } from '../src/index.js';
import { cleanKeys, connectTestRedis, REDIS_URL, type TestRedisClient, testKeyPrefix } from './redis.js';

const vitest = { describe, it, afterEach };
let client: TestRedisClient;
const prefixes: string[] = [];
const prefix = (suite: string): string => {
  const keyPrefix = testKeyPrefix(suite);
  prefixes.push(keyPrefix);
  return keyPrefix;
};
beforeAll(async () => {
  client = await connectTestRedis('a2a-redis push outbox');
});
afterAll(async () => {
  for (const keyPrefix of prefixes) await cleanKeys(client, keyPrefix);
  await client.quit();
});

describePushOutboxContract(
  'Redis push outbox',
  { create: () => createRedisPushOutbox({ client, keyPrefix: prefix('outbox-contract') }) },
  vitest,
);

describe('push outbox on Redis: a dead replica loses no delivery (issue 31 item 3)', () => {
  it('a replica child process SIGKILLed with 100 pending deliveries: another replica delivers 100 of 100, with their keys', async () => {
    const keyPrefix = prefix('outbox-kill');
    await pushOutboxKillScenario({
      label: 'Redis',
      fixture: new URL('./fixtures/push-replica.ts', import.meta.url),
      env: { REDIS_URL, OUTBOX_PREFIX: keyPrefix },
      leaseMs: 600,
      startSurvivor: (onEvent) =>
        createPushSender({
          outbox: createRedisPushOutbox({ client, keyPrefix }),
          outboxLeaseMs: 600,
          ssrf: { allowLoopback: true, allowHttp: true },
          onEvent,
        }),
      remaining: () => client.hLen(`${keyPrefix}{push-outbox}:entries`),
      deliverWithinMs: 20_000,
    });
  }, 60_000);
});
