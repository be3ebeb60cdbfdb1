import { randomBytes } from 'node:crypto';
import { createPushSender } from '@a2aplane/a2a-server-express';
import { describePushOutboxContract } from '@a2aplane/a2a-server-express/testing';
import type pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createPostgresPushOutbox, createStaticKeyring } from '../src/index.js';
import { testKeyring } from './keys.js';
import { POSTGRES_URL, pushOutboxKillScenario } from '@a2aplane/test-utils';
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

describe('push outbox on PostgreSQL: a dead replica loses no delivery (issue 31 item 3)', () => {
  it('a replica child process SIGKILLed with 100 pending deliveries: another replica delivers 100 of 100, with their keys', async () => {
    const schema = await schemaOf('outbox_kill');
    const key = randomBytes(32);
    await pushOutboxKillScenario({
      label: 'PostgreSQL',
      fixture: new URL('./fixtures/push-replica.ts', import.meta.url),
      env: { POSTGRES_URL, PG_SCHEMA: schema, PUSH_KEY: key.toString('base64') },
      leaseMs: 600,
      startSurvivor: (onEvent) =>
        createPushSender({
          outbox: createPostgresPushOutbox({
            pool,
            schema,
            pushConfigKeys: createStaticKeyring({ currentKeyId: 'k1', keys: { k1: key } }),
          }),
          outboxLeaseMs: 600,
          ssrf: { allowLoopback: true, allowHttp: true },
          onEvent,
        }),
      remaining: async () => Number((await pool.query<{ n: string }>(`SELECT count(*) AS n FROM "${schema}".push_outbox`)).rows[0]?.n),
    });
  }, 60_000);
});
