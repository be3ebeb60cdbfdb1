import { fork } from 'node:child_process';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { createPushSender, type PushDeliveryEvent } from '@a2aplane/a2a-server-express';
import { describePushOutboxContract } from '@a2aplane/a2a-server-express/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
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

/** A receiver on 127.0.0.1:0 that holds every request open while `holding`, else answers 200; it records answered keys. */
async function startReceiver() {
  const held: ServerResponse[] = [];
  const heldKeys: string[] = [];
  const delivered = new Map<string, number>();
  const state = { holding: true, requests: 0 };
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      state.requests++;
      if (state.holding) {
        heldKeys.push(String(req.headers['idempotency-key']));
        held.push(res);
        return;
      }
      const key = String(req.headers['idempotency-key']);
      delivered.set(key, (delivered.get(key) ?? 0) + 1);
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    state,
    delivered,
    heldKeys,
    close() {
      for (const res of held.splice(0)) res.destroy();
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

describe('push outbox on Redis: a dead replica loses no delivery (issue 31 item 3)', () => {
  it('a replica child process SIGKILLed with 100 pending deliveries: another replica delivers 100 of 100, with their keys', async () => {
    const keyPrefix = prefix('outbox-kill');
    const receiver = await startReceiver();
    const leaseMs = 600;
    const child = fork(fileURLToPath(new URL('./fixtures/push-replica.ts', import.meta.url)), [], {
      execArgv: ['--conditions=@a2aplane/source', '--import', 'tsx'],
      env: { ...process.env, REDIS_URL, OUTBOX_PREFIX: keyPrefix, RECEIVER_URL: receiver.url, COUNT: '100', LEASE_MS: String(leaseMs) },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    try {
      await new Promise<void>((resolve, reject) => {
        child.once('message', () => resolve());
        child.once('exit', (code) => reject(new Error(`the replica exited (${code}) before it stored its deliveries`)));
      });
      // Some attempts are in flight (held by the receiver), the rest wait: none delivered. On a
      // loaded machine the first attempts may reach the receiver after the outbox holds everything.
      for (let i = 0; i < 500 && receiver.heldKeys.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 20));
      expect(receiver.delivered.size).toBe(0);
      child.kill('SIGKILL');
      await new Promise((resolve) => child.once('exit', resolve));
      receiver.state.holding = false;

      const events: PushDeliveryEvent[] = [];
      const survivor = createPushSender({
        outbox: createRedisPushOutbox({ client, keyPrefix }),
        outboxLeaseMs: leaseMs,
        ssrf: { allowLoopback: true, allowHttp: true },
        onEvent: (event) => events.push(event),
      });
      const deadline = Date.now() + 20_000;
      while (receiver.delivered.size < 100 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
      await survivor.flush();
      await survivor.close();
      console.info(`[push outbox] after SIGKILL: ${receiver.delivered.size} of 100 delivered by the survivor`);
      expect(receiver.delivered.size).toBe(100);
      expect(events.filter((e) => e.type === 'delivered')).toHaveLength(100);
      // The attempts the dead replica had started are redelivered under the same idempotency keys.
      expect(receiver.heldKeys.length).toBeGreaterThan(0);
      for (const key of receiver.heldKeys) expect(receiver.delivered.get(key)).toBe(1);
      // Acknowledged: nothing is left for a third replica.
      expect(await client.hLen(`${keyPrefix}{push-outbox}:entries`)).toBe(0);
    } finally {
      child.kill('SIGKILL');
      await receiver.close();
    }
  }, 60_000);
});
