import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPostgresNonceCache } from '../src/replay/nonce-cache.js';
import { connectTestPool, dropSchema, migratedSchema } from './postgres.js';

let admin: pg.Pool;
let schema: string;
const pools: pg.Pool[] = [];

beforeAll(async () => {
  admin = await connectTestPool('a2a-postgres replay cache');
  schema = await migratedSchema(admin, 'nonce');
});
afterAll(async () => {
  for (const pool of pools) await pool.end();
  await dropSchema(admin, schema);
  await admin.end();
});

/** A replica: its own pool, its own cache object, the shared schema. */
async function replica(options: { maxEntriesPerOwner?: number; now?: () => number } = {}) {
  const pool = await connectTestPool('a2a-postgres replay cache', { max: 2 });
  pools.push(pool);
  return createPostgresNonceCache({ pool, schema, ...options });
}

describe('PostgreSQL replay cache', () => {
  it('one signed request replayed to 3 replicas at once is accepted exactly once', async () => {
    const replicas = await Promise.all([replica(), replica(), replica()]);
    for (let trial = 0; trial < 50; trial++) {
      const nonce = `keyid-1:${randomUUID()}`;
      const expires = Date.now() + 90_000;
      const answers = await Promise.all(replicas.map((cache) => cache.add(nonce, expires, 'agent-a')));
      expect(answers.filter(Boolean)).toHaveLength(1);
      // And later, on any of them, still a replay.
      expect(await replicas[trial % 3]?.add(nonce, expires, 'agent-a')).toBe(false);
    }
  });

  it('refuses an entry already past; accepts a key again once its entry expired', async () => {
    let clock = Date.now();
    const cache = await replica({ now: () => clock });
    const nonce = randomUUID();
    expect(await cache.add(nonce, clock - 1, 'agent-b')).toBe(false);
    expect(await cache.add(nonce, clock + 1_000, 'agent-b')).toBe(true);
    expect(await cache.add(nonce, clock + 1_000, 'agent-b')).toBe(false);
    clock += 2_000;
    expect(await cache.add(nonce, clock + 1_000, 'agent-b')).toBe(true);
  });

  it("bounds each owner's live entries without touching other owners", async () => {
    const cache = await replica({ maxEntriesPerOwner: 3 });
    const owner = `agent-${randomUUID()}`;
    const expires = Date.now() + 60_000;
    const answers = [];
    for (let i = 0; i < 5; i++) answers.push(await cache.add(randomUUID(), expires, owner));
    expect(answers).toEqual([true, true, true, false, false]);
    expect(await cache.add(randomUUID(), expires, `other-${randomUUID()}`)).toBe(true);
  });

  it('never answers true without the database: add rejects with PostgresUnavailableError', async () => {
    const nowhere = new pg.Pool({ host: '127.0.0.1', port: 1, user: 'postgres', database: 'test', connectionTimeoutMillis: 500 });
    nowhere.on('error', () => undefined);
    const cache = createPostgresNonceCache({ pool: nowhere, schema });
    await expect(cache.add(randomUUID(), Date.now() + 60_000, 'agent-c')).rejects.toMatchObject({ name: 'PostgresUnavailableError' });
    await nowhere.end();
  });
});
