import {
  describeBudgetLedgerContract,
  describeConcurrencySlotsContract,
  describeRateLimiterContract,
} from '@a2aplane/a2a-governance/testing';
import {
  describeTaskAdmissionContract,
  describeTaskEventBusContract,
  describeTaskStoreContract,
} from '@a2aplane/a2a-server-express/testing';
import { afterAll, afterEach, beforeAll, describe, it } from 'vitest';
import { createRedisTaskEventBus } from '../src/bus/redis-task-event-bus.js';
import { createRedisBudgetLedger, createRedisConcurrencySlots, createRedisRateLimiter, type RedisBudgetLedger } from '../src/index.js';
import { createRedisTaskStore } from '../src/store/redis-task-store.js';
import { cleanKeys, connectTestRedis, type TestRedisClient, testKeyPrefix } from './redis.js';

const vitest = { describe, it, afterEach };
const clients: TestRedisClient[] = [];
const prefixes: string[] = [];

/** A client per replica, connected on first use (a suite without Redis fails, naming itself). */
async function replicaClient(): Promise<TestRedisClient> {
  const client = await connectTestRedis('a2a-redis contract suites (TaskStore, TaskEventBus, BudgetLedger, RateLimiter, ConcurrencySlots)');
  clients.push(client);
  return client;
}

let storeClient: TestRedisClient;
beforeAll(async () => {
  storeClient = await replicaClient();
});
afterAll(async () => {
  for (const prefix of prefixes) await cleanKeys(storeClient, prefix);
  for (const client of clients) await client.quit();
});

describeTaskStoreContract(
  'Redis task store',
  {
    create(limits) {
      // A prefix per store: capacity is per deployment (prefix), and tests must not see each other's tasks.
      const keyPrefix = testKeyPrefix('contract-store');
      prefixes.push(keyPrefix);
      // The contract checks the store's own capacity with one caller: its share is the whole store here.
      const { maxTasks } = limits;
      return createRedisTaskStore({ client: storeClient, keyPrefix, ttlMs: limits.terminalTtlMs, maxTasks, maxTasksPerOwner: maxTasks });
    },
  },
  vitest,
);

describeTaskAdmissionContract(
  'Redis task store',
  {
    create(limits) {
      const keyPrefix = testKeyPrefix('contract-admission');
      prefixes.push(keyPrefix);
      return createRedisTaskStore({ client: storeClient, keyPrefix, ...limits });
    },
  },
  vitest,
);

describeTaskEventBusContract(
  'Redis Streams bus',
  {
    create() {
      const keyPrefix = testKeyPrefix('contract-bus');
      prefixes.push(keyPrefix);
      // Each connect is another replica: its own client (its own XREAD and pub/sub connections).
      return { connect: async () => createRedisTaskEventBus({ client: await replicaClient(), keyPrefix }) };
    },
  },
  vitest,
);

/** A key prefix of its own per ledger, limiter or slots of this run (removed in afterAll). */
function ownPrefix(suite: string): string {
  const keyPrefix = testKeyPrefix(suite);
  prefixes.push(keyPrefix);
  return keyPrefix;
}

describeBudgetLedgerContract(
  'Redis budget ledger',
  {
    create: (options) => createRedisBudgetLedger({ client: storeClient, keyPrefix: ownPrefix('contract-budget'), pollMs: 20, ...options }),
    dispose: (ledger) => (ledger as RedisBudgetLedger).close(),
  },
  vitest,
);

describeConcurrencySlotsContract(
  'Redis concurrency slots',
  {
    create: () => createRedisConcurrencySlots({ client: storeClient, keyPrefix: ownPrefix('contract-slots') }),
    dispose: (slots) => (slots as ReturnType<typeof createRedisConcurrencySlots>).close(),
  },
  vitest,
);

describeRateLimiterContract(
  'Redis rate limiter',
  { create: (bucket) => createRedisRateLimiter({ client: storeClient, keyPrefix: ownPrefix('contract-rate'), ...bucket }) },
  vitest,
);
