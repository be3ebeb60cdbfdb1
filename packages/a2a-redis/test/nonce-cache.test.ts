import {
  agentIdFromPublicKey,
  createCallerKeyResolver,
  createHttpRequestSigner,
  createHttpSignatureVerifier,
  createNonceCache,
  generateKeyPair,
  type VerifiableRequest,
} from '@a2aplane/a2a-identity';
import { describeNonceCacheContract } from '@a2aplane/a2a-identity/testing';
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedisNonceCache } from '../src/index.js';
import { cleanKeys, connectTestRedis, type TestRedisClient, testKeyPrefix } from './redis.js';

const SUITE = 'a2a-redis nonce cache';
const prefix = testKeyPrefix('nonces');
let admin: TestRedisClient;
const clients: TestRedisClient[] = [];

beforeAll(async () => {
  admin = await connectTestRedis(SUITE);
});

afterAll(async () => {
  await cleanKeys(admin, prefix);
  for (const client of clients) await client.destroy();
  await admin?.destroy();
});

async function replicaClient(): Promise<TestRedisClient> {
  const client = await connectTestRedis(SUITE);
  clients.push(client);
  return client;
}

describeNonceCacheContract('createRedisNonceCache', async (options) =>
  createRedisNonceCache({ client: await replicaClient(), keyPrefix: prefix, ...options }),
);

const caller = generateKeyPair('EdDSA');
const callerId = agentIdFromPublicKey(caller.publicKey);
const BODY = '{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{}}';

async function signedRequest(): Promise<VerifiableRequest> {
  const url = new URL('https://agent.example.com/a2a/jsonrpc');
  const headers = await createHttpRequestSigner({ key: caller }).sign({ method: 'POST', url, body: BODY });
  return {
    method: 'POST',
    authority: url.host,
    target: url.pathname,
    headers,
    body: new TextEncoder().encode(BODY),
    authorities: [url.host],
  };
}

const replicaVerifier = (nonces: Parameters<typeof createHttpSignatureVerifier>[0]['nonces']) =>
  createHttpSignatureVerifier({ resolveKey: createCallerKeyResolver({ keys: [caller] }), ...(nonces ? { nonces } : {}) });

describe('createRedisNonceCache across replicas', () => {
  it('a signed request accepted by one replica is refused by the others (and, per process, it was not)', async () => {
    const replicas = await Promise.all(
      [1, 2, 3].map(async () => replicaVerifier(createRedisNonceCache({ client: await replicaClient(), keyPrefix: `${prefix}shared:` }))),
    );
    const request = await signedRequest();
    const verdicts = await Promise.all(replicas.map((replica) => replica.verify(request)));
    expect(verdicts.filter((verdict) => verdict.ok)).toHaveLength(1);
    expect(verdicts.filter((verdict) => !verdict.ok).map((verdict) => !verdict.ok && verdict.reason)).toEqual(['replayed', 'replayed']);
    for (const replica of replicas) expect(await replica.verify(request)).toMatchObject({ ok: false, reason: 'replayed' });
    // The control: replicas with a replay cache each of their own accept the same request each.
    const apart = [replicaVerifier(createNonceCache()), replicaVerifier(createNonceCache())];
    const fresh = await signedRequest();
    expect((await apart[0]?.verify(fresh))?.ok).toBe(true);
    expect((await apart[1]?.verify(fresh))?.ok).toBe(true);
  });

  it("one caller's quota holds across replicas", async () => {
    const options = { keyPrefix: `${prefix}quota:`, maxEntriesPerOwner: 2 };
    const one = createRedisNonceCache({ client: await replicaClient(), ...options });
    const two = createRedisNonceCache({ client: await replicaClient(), ...options });
    const until = Date.now() + 60_000;
    expect(await one.add('k1', until, callerId)).toBe(true);
    expect(await two.add('k2', until, callerId)).toBe(true);
    expect(await one.add('k3', until, callerId)).toBe(false);
    expect(await two.add('k3', until, callerId)).toBe(false);
    expect(await two.add('k3', until, 'another caller')).toBe(true);
  });

  it('holds a key for what is left of its window plus the clock tolerance, no longer', async () => {
    const cache = createRedisNonceCache({ client: await replicaClient(), keyPrefix: `${prefix}ttl:`, clockToleranceMs: 500 });
    const now = Date.now();
    expect(await cache.add('ttl-key', now + 10_000, 'owner')).toBe(true);
    const keys: string[] = [];
    for await (const batch of admin.scanIterator({ MATCH: `${prefix}ttl:nonce:*`, COUNT: 1000 })) keys.push(...batch);
    expect(keys).toHaveLength(1);
    const ttl = await admin.pTTL(keys[0] as string);
    expect(ttl).toBeGreaterThan(10_000 - (Date.now() - now) - 50);
    expect(ttl).toBeLessThanOrEqual(10_500);
    expect(() => createRedisNonceCache({ client: admin, maxEntriesPerOwner: 0 })).toThrow(RangeError);
    expect(() => createRedisNonceCache({ client: admin, clockToleranceMs: -1 })).toThrow(RangeError);
  });

  it('when Redis cannot be reached, add rejects and the verifier refuses the request (fails closed)', async () => {
    const dead = createClient({ url: 'redis://127.0.0.1:1', socket: { reconnectStrategy: false, connectTimeout: 200 } });
    dead.on('error', () => undefined);
    await dead.connect().catch(() => undefined);
    const cache = createRedisNonceCache({ client: dead as never, keyPrefix: `${prefix}dead:`, commandTimeoutMs: 300 });
    await expect(cache.add('k', Date.now() + 60_000, 'owner')).rejects.toThrow();
    expect(await replicaVerifier(cache).verify(await signedRequest())).toMatchObject({ ok: false, reason: 'replayed' });
  });
});
