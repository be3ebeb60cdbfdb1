import { fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { createPushSender, type PushDeliveryEvent } from '@a2aplane/a2a-server-express';
import { describePushOutboxContract } from '@a2aplane/a2a-server-express/testing';
import type pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createPostgresPushOutbox, createStaticKeyring } from '../src/index.js';
import { testKeyring } from './keys.js';
import { POSTGRES_URL } from '@a2aplane/test-utils';
import { connectTestPool, dropSchema, migratedSchema } from './postgres.js';

const vitest = { describe, it, afterEach };
let pool: pg.Pool;
const schemas: string[] = [];
const schemaOf = async (suite: string): Promise<string> => {
  const schema = await migratedSchema(pool, suite);
  schemas.push(schema);
  return schema;
};
beforeAll(async () => {
  pool = await connectTestPool('a2a-postgres push outbox');
});
afterAll(async () => {
  for (const schema of schemas) await dropSchema(pool, schema);
  await pool.end();
});

describePushOutboxContract(
  'PostgreSQL push outbox',
  // A schema per outbox: the contract reads "nothing else is claimable" of the whole outbox.
  { create: async () => createPostgresPushOutbox({ pool, schema: await schemaOf('outbox'), pushConfigKeys: testKeyring() }) },
  vitest,
);

describe('PostgreSQL push outbox: what it stores', () => {
  it('keeps entries sealed: the token is not in the table, and another keyring cannot open them', async () => {
    const schema = await schemaOf('outbox_sealed');
    const outbox = createPostgresPushOutbox({ pool, schema, pushConfigKeys: testKeyring() });
    const entry = {
      id: 'd1',
      taskId: 't1',
      config: { id: 'cfg', url: 'https://hooks.example.com/a2a', token: 'very-secret-token' },
      payload: { statusUpdate: { taskId: 't1', contextId: 'c', status: { state: 'TASK_STATE_WORKING' as const } } },
    };
    await outbox.enqueue(entry, { owner: 'a', leaseMs: 10_000 });
    const { rows } = await pool.query<{ sealed: Buffer }>(`SELECT sealed FROM "${schema}".push_outbox`);
    expect(rows).toHaveLength(1);
    expect(rows[0]?.sealed.includes(Buffer.from('very-secret-token'))).toBe(false);
    await outbox.release('d1', 'a');
    const stranger = createPostgresPushOutbox({ pool, schema, pushConfigKeys: testKeyring() });
    await expect(stranger.claim({ owner: 'b', leaseMs: 10_000 }, 10)).rejects.toThrow(/key|authenticate/);
  });

  it("two replicas claiming a dead holder's entries at the same time take each entry once", async () => {
    const schema = await schemaOf('outbox_race');
    const keys = testKeyring();
    const outbox = createPostgresPushOutbox({ pool, schema, pushConfigKeys: keys });
    const ids = Array.from({ length: 60 }, (_, i) => `d${i}`);
    for (const id of ids) {
      await outbox.enqueue(
        {
          id,
          taskId: 't',
          config: { id: 'c', url: 'https://hooks.example.com/a' },
          payload: { task: { id: 't', contextId: 'c', status: { state: 'TASK_STATE_WORKING' } } },
        },
        { owner: 'dead', leaseMs: 1 },
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
    const replicas = ['b', 'c', 'd'].map((owner) => ({ owner, outbox: createPostgresPushOutbox({ pool, schema, pushConfigKeys: keys }) }));
    const taken = await Promise.all(
      replicas.flatMap(({ owner, outbox: o }) => [o.claim({ owner, leaseMs: 10_000 }, 15), o.claim({ owner, leaseMs: 10_000 }, 15)]),
    );
    const all = taken.flat().map((e) => e.id);
    expect(new Set(all).size).toBe(all.length);
    expect(all.length).toBeLessThanOrEqual(60);
    // What is left is taken by a later claim: nothing lost.
    const rest = await replicas[0]?.outbox.claim({ owner: 'b', leaseMs: 10_000 }, 100);
    expect(new Set([...all, ...(rest ?? []).map((e) => e.id)])).toEqual(new Set(ids));
  });
});

/** A receiver on 127.0.0.1:0 that holds every request open while `holding`, else answers 200; it records answered keys. */
async function startReceiver() {
  const held: ServerResponse[] = [];
  const heldKeys: string[] = [];
  const delivered = new Map<string, number>();
  const state = { holding: true };
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const key = String(req.headers['idempotency-key']);
      if (state.holding) {
        heldKeys.push(key);
        held.push(res);
        return;
      }
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

describe('push outbox on PostgreSQL: a dead replica loses no delivery (issue 31 item 3)', () => {
  it('a replica child process SIGKILLed with 100 pending deliveries: another replica delivers 100 of 100, with their keys', async () => {
    const schema = await schemaOf('outbox_kill');
    const key = randomBytes(32);
    const receiver = await startReceiver();
    const leaseMs = 600;
    const child = fork(fileURLToPath(new URL('./fixtures/push-replica.ts', import.meta.url)), [], {
      execArgv: ['--conditions=@a2aplane/source', '--import', 'tsx'],
      env: {
        ...process.env,
        POSTGRES_URL,
        PG_SCHEMA: schema,
        PUSH_KEY: key.toString('base64'),
        RECEIVER_URL: receiver.url,
        COUNT: '100',
        LEASE_MS: String(leaseMs),
      },
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
        outbox: createPostgresPushOutbox({ pool, schema, pushConfigKeys: createStaticKeyring({ currentKeyId: 'k1', keys: { k1: key } }) }),
        outboxLeaseMs: leaseMs,
        ssrf: { allowLoopback: true, allowHttp: true },
        onEvent: (event) => events.push(event),
      });
      const deadline = Date.now() + 30_000;
      while (receiver.delivered.size < 100 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
      await survivor.flush();
      await survivor.close();
      console.info(`[push outbox, PostgreSQL] after SIGKILL: ${receiver.delivered.size} of 100 delivered by the survivor`);
      expect(receiver.delivered.size).toBe(100);
      expect(events.filter((e) => e.type === 'delivered')).toHaveLength(100);
      // The attempts the dead replica had started are redelivered under the same idempotency keys.
      expect(receiver.heldKeys.length).toBeGreaterThan(0);
      for (const heldKey of receiver.heldKeys) expect(receiver.delivered.get(heldKey)).toBe(1);
      // Acknowledged (acks are sent without waiting, each a commit of its own): nothing is left for a third replica.
      const left = async () => Number((await pool.query<{ n: string }>(`SELECT count(*) AS n FROM "${schema}".push_outbox`)).rows[0]?.n);
      for (let i = 0; i < 500 && (await left()) > 0; i++) await new Promise((resolve) => setTimeout(resolve, 20));
      expect(await left()).toBe(0);
    } finally {
      child.kill('SIGKILL');
      await receiver.close();
    }
  }, 60_000);
});
