import { randomBytes } from 'node:crypto';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PushConfigCryptoError } from '../src/errors.js';
import { createStaticKeyring } from '../src/push/keyring.js';
import { rotatePushConfigKeys } from '../src/push/rotate.js';
import { createPostgresTaskStore } from '../src/store/postgres-task-store.js';
import { connectTestPool, dropSchema, migratedSchema } from './postgres.js';

let pool: pg.Pool;
let schema: string;
const oldKey = randomBytes(32);
const newKey = randomBytes(32);
const secretConfig = {
  id: 'p',
  taskId: 'a',
  url: 'https://hooks.example.com/secret-path',
  token: 'tok-SECRET',
  authentication: { scheme: 'Bearer', credentials: 'cred-SECRET' },
};

beforeAll(async () => {
  pool = await connectTestPool('a2a-postgres push configs');
  schema = await migratedSchema(pool, 'push');
});
afterAll(async () => {
  await dropSchema(pool, schema);
  await pool.end();
});

async function storeWithTask(keys: ReturnType<typeof createStaticKeyring>, tenant: string) {
  const store = createPostgresTaskStore({ pool, schema, pushConfigKeys: keys, sweepIntervalMs: false });
  await store.upsert(
    { tenant, owner: 'o', updatedAt: Date.now(), task: { id: 'a', contextId: 'c', status: { state: 'TASK_STATE_WORKING' } } },
    { expectedRevision: 0 },
  );
  return store;
}

describe('push configs at rest', () => {
  it('are stored encrypted: no URL, token or credential in the table, and read back whole', async () => {
    const keys = createStaticKeyring({ currentKeyId: 'old', keys: { old: oldKey } });
    const tenant = `t-${randomBytes(4).toString('hex')}`;
    const store = await storeWithTask(keys, tenant);
    await store.putPushConfig({ tenant, taskId: 'a' }, secretConfig);
    const raw = await pool.query(`SELECT * FROM "${schema}".push_configs WHERE tenant = $1`, [tenant]);
    expect(raw.rows).toHaveLength(1);
    const dump = JSON.stringify(raw.rows) + Buffer.from(raw.rows[0].sealed).toString('latin1');
    for (const secret of ['secret-path', 'tok-SECRET', 'cred-SECRET', 'hooks.example.com']) expect(dump).not.toContain(secret);
    expect(raw.rows[0].key_id).toBe('old');
    expect(await store.listPushConfigs({ tenant, taskId: 'a' })).toEqual([secretConfig]);
  });

  it('refuse to open under the wrong key, or moved to another task', async () => {
    const keys = createStaticKeyring({ currentKeyId: 'old', keys: { old: oldKey } });
    const tenant = `t-${randomBytes(4).toString('hex')}`;
    const store = await storeWithTask(keys, tenant);
    await store.upsert(
      { tenant, owner: 'o', updatedAt: Date.now(), task: { id: 'b', contextId: 'c', status: { state: 'TASK_STATE_WORKING' } } },
      { expectedRevision: 0 },
    );
    await store.putPushConfig({ tenant, taskId: 'a' }, secretConfig);
    // An attacker with write access to the table copies a's sealed config onto b.
    await pool.query(
      `INSERT INTO "${schema}".push_configs (tenant, task_id, config_id, key_id, sealed) SELECT tenant, 'b', config_id, key_id, sealed FROM "${schema}".push_configs WHERE tenant = $1 AND task_id = 'a'`,
      [tenant],
    );
    await expect(store.listPushConfigs({ tenant, taskId: 'b' })).rejects.toBeInstanceOf(PushConfigCryptoError);
    const other = createStaticKeyring({ currentKeyId: 'old', keys: { old: randomBytes(32) } });
    const wrong = createPostgresTaskStore({ pool, schema, pushConfigKeys: other, sweepIntervalMs: false });
    await expect(wrong.listPushConfigs({ tenant, taskId: 'a' })).rejects.toBeInstanceOf(PushConfigCryptoError);
  });

  it('rotate to a new key: new writes use it, rotatePushConfigKeys re-seals the rest, then the old key can go', async () => {
    const tenant = `t-${randomBytes(4).toString('hex')}`;
    const before = createStaticKeyring({ currentKeyId: 'old', keys: { old: oldKey } });
    const store = await storeWithTask(before, tenant);
    await store.putPushConfig({ tenant, taskId: 'a' }, secretConfig);
    const during = createStaticKeyring({ currentKeyId: 'new', keys: { old: oldKey, new: newKey } });
    const rotating = createPostgresTaskStore({ pool, schema, pushConfigKeys: during, sweepIntervalMs: false });
    await rotating.putPushConfig({ tenant, taskId: 'a' }, { ...secretConfig, id: 'q' });
    const result = await rotatePushConfigKeys(pool, { schema, keys: during });
    // The row copied onto task b by the previous test does not authenticate: left alone and counted.
    expect(result.unreadable).toBe(1);
    const ids = await pool.query(`SELECT DISTINCT key_id FROM "${schema}".push_configs WHERE tenant = $1`, [tenant]);
    expect(result.resealed).toBeGreaterThanOrEqual(1);
    expect(ids.rows).toEqual([{ key_id: 'new' }]);
    const after = createPostgresTaskStore({
      pool,
      schema,
      pushConfigKeys: createStaticKeyring({ currentKeyId: 'new', keys: { new: newKey } }),
      sweepIntervalMs: false,
    });
    expect((await after.listPushConfigs({ tenant, taskId: 'a' })).map((c) => c.id).sort()).toEqual(['p', 'q']);
    expect(await rotatePushConfigKeys(pool, { schema, keys: during })).toEqual({ resealed: 0, unreadable: 1 });
  });

  it('keyring: 32-byte keys only, and the current key must be held; the store requires one', () => {
    expect(() => createStaticKeyring({ currentKeyId: 'k', keys: { k: randomBytes(16) } })).toThrow(RangeError);
    expect(() => createStaticKeyring({ currentKeyId: 'missing', keys: { k: randomBytes(32) } })).toThrow(RangeError);
    expect(createStaticKeyring({ currentKeyId: 'k', keys: { k: randomBytes(32).toString('base64') } }).currentKeyId).toBe('k');
    expect(() => createPostgresTaskStore({ pool, schema } as never)).toThrow(TypeError);
  });
});
