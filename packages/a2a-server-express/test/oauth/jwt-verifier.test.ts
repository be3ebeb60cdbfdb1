import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { SecurityScheme } from '@a2aplane/a2a-types';
import { importJWK, type JWK, SignJWT } from 'jose';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createIntrospectionVerifier, createJwtVerifier, type JwtVerifierOptions } from '../../src/auth/index.js';
import { clientCredentialsToken, startIdentityProvider, type TestIdentityProvider } from '../helpers/oidc-provider.js';

let idp: TestIdentityProvider;
beforeAll(async () => {
  idp = await startIdentityProvider();
});
afterAll(async () => {
  await idp?.close();
});

const oidc = (): Record<string, SecurityScheme> => ({ oidc: { openIdConnectSecurityScheme: { openIdConnectUrl: idp.discoveryUrl } } });
const verifier = (overrides: Partial<JwtVerifierOptions> = {}) =>
  createJwtVerifier({ securitySchemes: oidc(), audience: idp.audience, allowInsecureLoopback: true, ...overrides });

/** Signs claims with the provider's own current key (or another key), as a forger with that key could. */
async function mint(claims: Record<string, unknown>, header: Record<string, unknown> = {}, key = idp.signingKey): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ sub: 'a2a-caller', iss: idp.issuer, aud: idp.audience, iat: now, exp: now + 60, ...claims })
    .setProtectedHeader({ alg: 'ES256', kid: key.kid, ...header })
    .sign(await importJWK(key, 'ES256'));
}

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

describe('createJwtVerifier against oidc-provider', () => {
  it('discovers issuer and JWKS from the openIdConnectUrl and verifies a client-credentials token', async () => {
    const token = await clientCredentialsToken(idp, 'skill:echo');
    const principal = await verifier().verifyToken(token, 'oidc');
    expect(principal).toMatchObject({ id: idp.clientId, scheme: 'oidc', scopes: ['skill:echo'] });
    expect(principal?.claims?.iss).toBe(idp.issuer);
  });

  it('verifies an oauth2 scheme from a configured issuer and JWKS', async () => {
    const v = createJwtVerifier({
      securitySchemes: { oauth: { oauth2SecurityScheme: { flows: { clientCredentials: { tokenUrl: idp.tokenUrl, scopes: {} } } } } },
      audience: idp.audience,
      issuer: idp.issuer,
      jwksUrl: idp.jwksUrl,
      allowInsecureLoopback: true,
    });
    const token = await clientCredentialsToken(idp, 'skill:echo skill:admin');
    expect((await v.verifyToken(token, 'oauth'))?.scopes).toEqual(['skill:echo', 'skill:admin']);
    expect(await v.verifyToken(token, 'unknown-scheme')).toBeUndefined();
  });

  it('refuses a token for another audience', async () => {
    const token = await clientCredentialsToken(idp, 'skill:echo', 'https://other.example/api');
    expect(await verifier().verifyToken(token, 'oidc')).toBeUndefined();
  });

  it('refuses an issuer whose discovery document names another issuer', async () => {
    const token = await clientCredentialsToken(idp, 'skill:echo');
    await expect(verifier({ issuer: 'https://idp.example' }).verifyToken(token, 'oidc')).rejects.toMatchObject({
      reason: 'UNAUTHENTICATED',
    });
  });

  it('follows key rotation: an unknown kid refreshes the JWKS', async () => {
    const v = verifier({ jwksCooldownMs: 0 });
    expect(await v.verifyToken(await clientCredentialsToken(idp, 'skill:echo'), 'oidc')).toBeDefined();
    const before = idp.jwksFetches();
    idp.rotate();
    const rotated = await clientCredentialsToken(idp, 'skill:echo');
    expect(JSON.parse(Buffer.from(rotated.split('.')[0] as string, 'base64url').toString()).kid).toBe(idp.signingKey.kid);
    expect(await v.verifyToken(rotated, 'oidc')).toMatchObject({ id: idp.clientId });
    expect(idp.jwksFetches()).toBe(before + 1);
  });

  it('refuses at construction: http providers without the loopback flag, none or HMAC algorithms, no audience', () => {
    expect(() => createJwtVerifier({ securitySchemes: oidc(), audience: idp.audience })).toThrow(TypeError);
    expect(() => verifier({ algorithms: ['HS256'] })).toThrow(RangeError);
    expect(() => verifier({ algorithms: ['none'] })).toThrow(RangeError);
    expect(() => verifier({ audience: [] })).toThrow(TypeError);
  });
});

describe('the hostile token corpus', () => {
  it('refuses each token without throwing', async () => {
    const v = verifier();
    const now = Math.floor(Date.now() / 1000);
    const good = await mint({});
    expect(await v.verifyToken(good, 'oidc')).toBeDefined();
    const { d: _private, ...publicJwk } = idp.signingKey;
    const hmacKey = Buffer.from(JSON.stringify(publicJwk));
    const hs256WithPublicKey = await new SignJWT({ sub: 'x', iss: idp.issuer, aud: idp.audience, exp: now + 60 })
      .setProtectedHeader({ alg: 'HS256', kid: idp.signingKey.kid })
      .sign(hmacKey);
    const [, payload] = good.split('.');
    const corpus: Record<string, string> = {
      algNone: `${b64({ alg: 'none', kid: idp.signingKey.kid })}.${payload}.`,
      hs256WithPublicKey,
      expired: await mint({ exp: now - 3600, iat: now - 7200 }),
      notYetValid: await mint({ nbf: now + 3600 }),
      wrongIssuer: await mint({ iss: 'https://evil.example' }),
      wrongAudience: await mint({ aud: 'https://other.example' }),
      noSubject: await mint({ sub: undefined }),
      tamperedPayload: `${good.split('.')[0]}.${b64({ sub: 'admin', iss: idp.issuer, aud: idp.audience, exp: now + 60 })}.${good.split('.')[2]}`,
      oversized: await mint({ pad: 'x'.repeat(20_000) }),
      malformedParts: 'a.b.c',
      notJson: `${Buffer.from('{{').toString('base64url')}.${Buffer.from('[').toString('base64url')}.sig`,
      twoParts: 'abc.def',
      garbage: '\u0000\u0001..',
    };
    for (const [name, token] of Object.entries(corpus)) {
      await expect(v.verifyToken(token, 'oidc'), name).resolves.toBeUndefined();
    }
  });

  it('accepts a small clock skew on exp, not a large one', async () => {
    const now = Math.floor(Date.now() / 1000);
    const v = verifier({ clockToleranceSec: 30 });
    expect(await v.verifyToken(await mint({ exp: now - 5 }), 'oidc')).toBeDefined();
    expect(await v.verifyToken(await mint({ exp: now - 120 }), 'oidc')).toBeUndefined();
  });

  it('an unknown-kid storm costs at most one JWKS fetch per cooldown interval', async () => {
    const v = verifier({ jwksCooldownMs: 60_000 });
    expect(await v.verifyToken(await mint({}), 'oidc')).toBeDefined();
    const before = idp.jwksFetches();
    const forgedKeys = Array.from({ length: 5 }, () => ({
      ...(generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'jwk' }) as JWK),
      kid: randomUUID(),
    }));
    const storm = await Promise.all(
      Array.from({ length: 100 }, async (_, i) => v.verifyToken(await mint({}, {}, forgedKeys[i % 5] as JWK & { kid: string }), 'oidc')),
    );
    expect(storm.every((p) => p === undefined)).toBe(true);
    expect(idp.jwksFetches() - before).toBeLessThanOrEqual(1);
  });
});

describe('a JWKS endpoint that hangs', () => {
  afterEach(() => {
    idp.hangJwks = false;
  });

  it('is abandoned after the fetch deadline and the token is refused', async () => {
    idp.hangJwks = true;
    const v = verifier({ timeoutMs: 200 });
    await expect(v.verifyToken(await mint({}), 'oidc')).resolves.toBeUndefined();
  });
});

describe('createIntrospectionVerifier (RFC 7662) against oidc-provider', () => {
  const opaqueAudience = 'https://agent.example/opaque';
  const introspection = () =>
    createIntrospectionVerifier({
      url: idp.introspectionUrl,
      clientId: idp.clientId,
      clientSecret: idp.clientSecret,
      audience: opaqueAudience,
      allowInsecureLoopback: true,
    });

  it('verifies an opaque token through the JWT verifier and refuses an unknown one', async () => {
    const token = await clientCredentialsToken(idp, 'skill:echo', opaqueAudience);
    expect(token.split('.').length).toBe(1);
    const v = verifier({ opaque: introspection() });
    expect(await v.verifyToken(token, 'oidc')).toMatchObject({ id: idp.clientId, scopes: ['skill:echo'] });
    expect(await v.verifyToken('not-a-token-the-provider-issued', 'oidc')).toBeUndefined();
    // Without an opaque verifier, opaque tokens are refused.
    expect(await verifier().verifyToken(token, 'oidc')).toBeUndefined();
  });

  it('caches an answer for cacheMs, so a repeated token costs one round trip', async () => {
    const token = await clientCredentialsToken(idp, 'skill:echo', opaqueAudience);
    let calls = 0;
    const counted = createIntrospectionVerifier({
      url: idp.introspectionUrl,
      clientId: idp.clientId,
      clientSecret: idp.clientSecret,
      audience: opaqueAudience,
      allowInsecureLoopback: true,
      fetch: (input, init) => {
        calls++;
        return fetch(input, init);
      },
    });
    for (let i = 0; i < 3; i++) expect(await counted.verifyToken(token, 'oidc')).toMatchObject({ id: idp.clientId });
    expect(calls).toBe(1);
  });

  it('refuses an active token for another audience', async () => {
    const token = await clientCredentialsToken(idp, 'skill:echo', opaqueAudience);
    const other = createIntrospectionVerifier({
      url: idp.introspectionUrl,
      clientId: idp.clientId,
      clientSecret: idp.clientSecret,
      audience: 'https://someone-else.example',
      allowInsecureLoopback: true,
    });
    expect(await other.verifyToken(token, 'oidc')).toBeUndefined();
  });
});

describe('an unreachable provider', () => {
  let dead: Server;
  beforeAll(async () => {
    dead = createServer((_req, res) => {
      res.statusCode = 500;
      res.end();
    });
    await new Promise<void>((resolve) => dead.listen(0, '127.0.0.1', resolve));
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => dead.close(() => resolve()));
  });

  it('fails discovery as UNAUTHENTICATED without detail', async () => {
    const url = `http://127.0.0.1:${(dead.address() as AddressInfo).port}/.well-known/openid-configuration`;
    const v = createJwtVerifier({
      securitySchemes: { oidc: { openIdConnectSecurityScheme: { openIdConnectUrl: url } } },
      audience: 'x',
      allowInsecureLoopback: true,
    });
    const error = await v.verifyToken(await mint({}), 'oidc').catch((e: Error) => e);
    expect(error).toMatchObject({ reason: 'UNAUTHENTICATED', message: 'The identity provider could not be reached.' });
  });
});

describe('the verified-token cache', () => {
  it('reuses a verified token until its exp, then verifies it again (and refuses it)', async () => {
    let clock = Date.now();
    const v = verifier({ now: () => clock, clockToleranceSec: 0 });
    const exp = Math.floor(clock / 1000) + 120;
    const token = await mint({ exp });
    expect(await v.verifyToken(token, 'oidc')).toMatchObject({ id: 'a2a-caller' });
    clock += 60_000;
    expect(await v.verifyToken(token, 'oidc')).toMatchObject({ id: 'a2a-caller' });
    clock = exp * 1000 + 1000;
    expect(await v.verifyToken(token, 'oidc')).toBeUndefined();
  });

  it('hands out copies: a caller changing its principal does not change the next one', async () => {
    const v = verifier();
    const token = await mint({ scope: 'skill:echo' });
    const first = await v.verifyToken(token, 'oidc');
    if (first) first.id = 'mallory';
    expect((await v.verifyToken(token, 'oidc'))?.id).toBe('a2a-caller');
  });
});
