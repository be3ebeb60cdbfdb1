import { describe, expect, it } from 'vitest';
import {
  composeKeyResolvers,
  createJwks,
  createJwksKeyResolver,
  createPinnedKeyResolver,
  exportPublicJwk,
  generateKeyPair,
  keyPairFromPrivateKey,
  isAllowedJkuUrl,
  type KeyResolver,
  signAgentCard,
  toVerificationKey,
  verifyAgentCard,
} from '../src/index.js';
import { fullCard, RFC8032_TEST1_SEED } from './fixtures.js';

// The key whose AgentID fullCard() declares.
const ed = keyPairFromPrivateKey('EdDSA', RFC8032_TEST1_SEED);
const es = generateKeyPair('ES256');

function fakeFetch(routes: Record<string, () => Response>) {
  const calls: string[] = [];
  const fetchImpl = (async (input: RequestInfo | URL) => {
    const url = String(input);
    calls.push(url);
    const route = routes[url];
    if (!route) return new Response('not found', { status: 404 });
    return route();
  }) as typeof fetch;
  return { fetchImpl, calls };
}

const JWKS_URL = 'https://agent.example.com/.well-known/jwks.json';
const jwksResponse = () => new Response(JSON.stringify(createJwks([ed, es])), { headers: { 'content-type': 'application/json' } });

describe('createPinnedKeyResolver', () => {
  it('accepts key pairs, verification keys and public JWKs, matching by kid', async () => {
    const resolver = createPinnedKeyResolver([ed, toVerificationKey(es), exportPublicJwk(generateKeyPair('EdDSA', { kid: 'jwk' }))]);
    expect(await resolver.resolve({ alg: 'EdDSA', kid: ed.kid })).toEqual([toVerificationKey(ed)]);
    expect((await resolver.resolve({ alg: 'ES256', kid: es.kid }))[0]).not.toHaveProperty('privateKey');
    expect(await resolver.resolve({ alg: 'EdDSA', kid: 'jwk' })).toHaveLength(1);
    expect(await resolver.resolve({ alg: 'EdDSA', kid: 'unknown' })).toEqual([]);
    expect(await resolver.resolve({ alg: 'EdDSA' })).toHaveLength(3);
  });

  it('throws TypeError on a bad configured key', () => {
    expect(() => createPinnedKeyResolver([{ kty: 'RSA' } as never])).toThrow(TypeError);
  });
});

describe('createJwksKeyResolver (spec §8.4.2 jku)', () => {
  it('fetches the JWKS at jku and verifies a card signed with jku', async () => {
    const { fetchImpl, calls } = fakeFetch({ [JWKS_URL]: jwksResponse });
    const resolver = createJwksKeyResolver({ fetch: fetchImpl });
    const signed = signAgentCard(fullCard(), [ed], { jku: JWKS_URL });
    expect(await verifyAgentCard(signed.json, resolver)).toMatchObject({ status: 'valid', kid: ed.kid });
    expect(calls).toEqual([JWKS_URL]);
  });

  it('filters by kid', async () => {
    const { fetchImpl } = fakeFetch({ [JWKS_URL]: jwksResponse });
    const resolver = createJwksKeyResolver({ fetch: fetchImpl });
    expect(await resolver.resolve({ alg: 'ES256', kid: es.kid, jku: JWKS_URL })).toEqual([toVerificationKey(es)]);
    expect(await resolver.resolve({ alg: 'ES256', kid: 'other', jku: JWKS_URL })).toEqual([]);
  });

  it('enforces https; loopback http only when allowed', async () => {
    const loopback = 'http://127.0.0.1:8080/jwks.json';
    const { fetchImpl, calls } = fakeFetch({ 'http://agent.example.com/jwks.json': jwksResponse, [loopback]: jwksResponse });
    const strict = createJwksKeyResolver({ fetch: fetchImpl });
    expect(await strict.resolve({ alg: 'EdDSA', jku: 'http://agent.example.com/jwks.json' })).toEqual([]);
    expect(await strict.resolve({ alg: 'EdDSA', jku: loopback })).toEqual([]);
    expect(calls).toEqual([]);
    const dev = createJwksKeyResolver({ fetch: fetchImpl, allowInsecureLoopback: true });
    expect(await dev.resolve({ alg: 'EdDSA', jku: loopback })).toHaveLength(2);
    expect(await dev.resolve({ alg: 'EdDSA', jku: 'http://agent.example.com/jwks.json' })).toEqual([]);
    expect(calls).toEqual([loopback]);
  });

  it.each([
    ['https://a.example/jwks', {}, true],
    ['http://a.example/jwks', {}, false],
    ['http://localhost:3000/jwks', { allowInsecureLoopback: true }, true],
    ['http://[::1]:3000/jwks', { allowInsecureLoopback: true }, true],
    ['http://127.0.0.2/jwks', { allowInsecureLoopback: true }, false],
    ['http://localhost.evil.example/jwks', { allowInsecureLoopback: true }, false],
    ['https://user:pw@a.example/jwks', {}, false],
    ['file:///etc/passwd', {}, false],
    ['not a url', {}, false],
    ['https://a.example/jwks', { allowedJkuPrefixes: ['https://a.example/'] }, true],
    ['https://a.example.evil.com/jwks', { allowedJkuPrefixes: ['https://a.example/'] }, false],
  ] as const)('isAllowedJkuUrl(%s, %j) = %s', (url, options, expected) => {
    expect(isAllowedJkuUrl(url, options)).toBe(expected);
  });

  it('caches per URL for ttlMs, then refetches', async () => {
    let now = 1_000;
    const { fetchImpl, calls } = fakeFetch({ [JWKS_URL]: jwksResponse });
    const resolver = createJwksKeyResolver({ fetch: fetchImpl, ttlMs: 60_000, clock: () => now });
    await resolver.resolve({ alg: 'EdDSA', jku: JWKS_URL });
    await Promise.all([resolver.resolve({ alg: 'EdDSA', jku: JWKS_URL }), resolver.resolve({ alg: 'ES256', jku: JWKS_URL })]);
    expect(calls).toHaveLength(1);
    now += 60_000;
    await resolver.resolve({ alg: 'EdDSA', jku: JWKS_URL });
    expect(calls).toHaveLength(2);
  });

  it('shares one in-flight fetch between concurrent look-ups', async () => {
    const { fetchImpl, calls } = fakeFetch({ [JWKS_URL]: jwksResponse });
    const resolver = createJwksKeyResolver({ fetch: fetchImpl });
    await Promise.all([1, 2, 3].map(() => resolver.resolve({ alg: 'EdDSA', jku: JWKS_URL })));
    expect(calls).toHaveLength(1);
  });

  it.each([
    ['HTTP 500', () => new Response('oops', { status: 500 })],
    ['not JSON', () => new Response('<html>')],
    ['no keys array', () => new Response('{"keys":{}}')],
    ['a JSON array', () => new Response('[]')],
    ['too large', () => new Response(`{"keys":[],"pad":"${'x'.repeat(70_000)}"}`)],
  ])('a malformed JWKS (%s) yields no keys and is not cached', async (_name, respond) => {
    const { fetchImpl, calls } = fakeFetch({ [JWKS_URL]: respond });
    const resolver = createJwksKeyResolver({ fetch: fetchImpl });
    expect(await resolver.resolve({ alg: 'EdDSA', jku: JWKS_URL })).toEqual([]);
    expect(await resolver.resolve({ alg: 'EdDSA', jku: JWKS_URL })).toEqual([]);
    expect(calls).toHaveLength(2);
  });

  it('stops reading an endless JWKS body at maxBytes and cancels it', async () => {
    let pulled = 0;
    let cancelled = false;
    const endless = () =>
      new Response(
        new ReadableStream<Uint8Array>({
          pull(controller) {
            pulled++;
            controller.enqueue(new TextEncoder().encode(pulled === 1 ? '{"keys":[],"pad":"' : 'x'.repeat(1024)));
          },
          cancel() {
            cancelled = true;
          },
        }),
      );
    const { fetchImpl } = fakeFetch({ [JWKS_URL]: endless });
    const resolver = createJwksKeyResolver({ fetch: fetchImpl, maxBytes: 8 * 1024 });
    expect(await resolver.resolve({ alg: 'EdDSA', jku: JWKS_URL })).toEqual([]);
    expect(cancelled).toBe(true);
    expect(pulled).toBeLessThan(20);
  });

  it('refuses a declared Content-Length above maxBytes without reading, and counts bytes, not characters', async () => {
    const jwks = JSON.stringify(createJwks([ed]));
    const declared = () => new Response(jwks, { headers: { 'content-length': String(10 * jwks.length) } });
    expect(
      await createJwksKeyResolver({ fetch: fakeFetch({ [JWKS_URL]: declared }).fetchImpl, maxBytes: 2 * jwks.length }).resolve({
        alg: 'EdDSA',
        jku: JWKS_URL,
      }),
    ).toEqual([]);
    // 'é' is one character but two UTF-8 bytes.
    const multiByte = `${jwks.slice(0, -1)},"note":"${'é'.repeat(600)}"}`;
    const limit = jwks.length + 700;
    expect(multiByte.length).toBeLessThan(limit);
    const respond = () => new Response(multiByte);
    expect(
      await createJwksKeyResolver({ fetch: fakeFetch({ [JWKS_URL]: respond }).fetchImpl, maxBytes: limit }).resolve({
        alg: 'EdDSA',
        jku: JWKS_URL,
      }),
    ).toEqual([]);
    expect(
      await createJwksKeyResolver({ fetch: fakeFetch({ [JWKS_URL]: respond }).fetchImpl, maxBytes: limit + 600 }).resolve({
        alg: 'EdDSA',
        jku: JWKS_URL,
      }),
    ).toHaveLength(1);
  });

  it('skips invalid entries and keeps valid ones', async () => {
    const body = JSON.stringify({ keys: [{ kty: 'RSA', n: 'x', e: 'AQAB' }, 'junk', exportPublicJwk(ed)] });
    const { fetchImpl } = fakeFetch({ [JWKS_URL]: () => new Response(body) });
    const keys = await createJwksKeyResolver({ fetch: fetchImpl }).resolve({ alg: 'EdDSA', jku: JWKS_URL });
    expect(keys).toEqual([toVerificationKey(ed)]);
  });

  it('a fetch that throws yields no keys', async () => {
    const resolver = createJwksKeyResolver({
      fetch: (async () => {
        throw new Error('network down');
      }) as typeof fetch,
    });
    expect(await resolver.resolve({ alg: 'EdDSA', jku: JWKS_URL })).toEqual([]);
  });

  it('no jku -> no keys', async () => {
    const { fetchImpl, calls } = fakeFetch({});
    expect(await createJwksKeyResolver({ fetch: fetchImpl }).resolve({ alg: 'EdDSA', kid: 'k' })).toEqual([]);
    expect(calls).toEqual([]);
  });
});

describe('composeKeyResolvers', () => {
  it('returns keys from every resolver and ignores failing ones', async () => {
    const failing: KeyResolver = { resolve: () => Promise.reject(new Error('x')) };
    const resolver = composeKeyResolvers(createPinnedKeyResolver([ed]), failing, createPinnedKeyResolver([es]));
    expect(await resolver.resolve({ alg: 'EdDSA' })).toEqual([toVerificationKey(ed), toVerificationKey(es)]);
    expect(() => composeKeyResolvers({} as KeyResolver)).toThrow(TypeError);
  });
});
