import { type SecurityScheme, UnauthenticatedError } from '@a2aplane/a2a-types';
import { describe, expect, it } from 'vitest';
import { type AuthRequest, createAuthenticator, createStaticApiKeyVerifier, timingSafeEqualString } from '../src/auth/index.js';

function req(headers: Record<string, string> = {}, query = ''): AuthRequest {
  return { headers, query: new URLSearchParams(query), method: 'POST' };
}

const apiKeyHeader: SecurityScheme = { apiKeySecurityScheme: { location: 'header', name: 'X-API-Key' } };
const apiKeyQuery: SecurityScheme = { apiKeySecurityScheme: { location: 'query', name: 'api_key' } };
const apiKeyCookie: SecurityScheme = { apiKeySecurityScheme: { location: 'cookie', name: 'session' } };
const bearer: SecurityScheme = { httpAuthSecurityScheme: { scheme: 'Bearer' } };
const basic: SecurityScheme = { httpAuthSecurityScheme: { scheme: 'basic' } };
const oauth: SecurityScheme = {
  oauth2SecurityScheme: { flows: { clientCredentials: { tokenUrl: 'https://idp.example/token', scopes: {} } } },
};
const oidc: SecurityScheme = { openIdConnectSecurityScheme: { openIdConnectUrl: 'https://idp.example/.well-known/openid-configuration' } };

const keys = createStaticApiKeyVerifier({ 'k-alice': { id: 'alice', scheme: 'ignored' } });
const tokens = createStaticApiKeyVerifier({ 't-bob': { id: 'bob', scheme: 'ignored', claims: { role: 'admin' } } });

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => undefined,
    (error: unknown) => error,
  );
}

describe('timingSafeEqualString', () => {
  it('compares strings of any length', () => {
    expect(timingSafeEqualString('abc', 'abc')).toBe(true);
    expect(timingSafeEqualString('abc', 'abd')).toBe(false);
    expect(timingSafeEqualString('abc', 'abcd')).toBe(false);
    expect(timingSafeEqualString('', '')).toBe(true);
  });
  it('throws TypeError on non-strings', () => {
    expect(() => timingSafeEqualString('a', 1 as unknown as string)).toThrow(TypeError);
  });
});

describe('createStaticApiKeyVerifier', () => {
  it('finds the matching key and stamps the scheme name', () => {
    expect(keys.verify('k-alice', 'key')).toEqual({ id: 'alice', scheme: 'key' });
    expect(keys.verify('k-alic', 'key')).toBeUndefined();
  });
  it('rejects an empty key at construction', () => {
    expect(() => createStaticApiKeyVerifier({ '': { id: 'x', scheme: 's' } })).toThrow(RangeError);
  });
});

describe('createAuthenticator (spec §7.3-§7.4)', () => {
  it('reads an API key from the declared header (case-insensitive name)', async () => {
    const auth = createAuthenticator({ securitySchemes: { key: apiKeyHeader }, apiKey: keys });
    await expect(auth(req({ 'x-api-key': 'k-alice' }))).resolves.toEqual({ id: 'alice', scheme: 'key' });
  });

  it('reads an API key from the query string', async () => {
    const auth = createAuthenticator({ securitySchemes: { q: apiKeyQuery }, apiKey: keys });
    await expect(auth(req({}, 'api_key=k-alice'))).resolves.toMatchObject({ id: 'alice', scheme: 'q' });
    // The header with the same name does not count for a query scheme.
    expect(await rejection(auth(req({ api_key: 'k-alice' })))).toBeInstanceOf(UnauthenticatedError);
  });

  it('reads an API key from a cookie', async () => {
    const auth = createAuthenticator({ securitySchemes: { c: apiKeyCookie }, apiKey: keys });
    await expect(auth(req({ cookie: 'theme=dark; session=k-alice; x=1' }))).resolves.toMatchObject({ id: 'alice' });
    await expect(auth(req({ cookie: 'session="k-alice"' }))).resolves.toMatchObject({ id: 'alice' });
    expect(await rejection(auth(req({ cookie: 'session=nope' })))).toBeInstanceOf(UnauthenticatedError);
  });

  it('accepts a valid bearer token (scheme name case-insensitive)', async () => {
    const auth = createAuthenticator({ securitySchemes: { jwt: bearer }, bearer: tokens });
    await expect(auth(req({ authorization: 'bearer t-bob' }))).resolves.toEqual({
      id: 'bob',
      scheme: 'jwt',
      claims: { role: 'admin' },
    });
  });

  it('rejects an invalid bearer token with UnauthenticatedError that does not echo it', async () => {
    const auth = createAuthenticator({ securitySchemes: { jwt: bearer }, bearer: tokens });
    const error = await rejection(auth(req({ authorization: 'Bearer wrong-secret' })));
    expect(UnauthenticatedError.isInstance(error)).toBe(true);
    expect((error as Error).message).not.toContain('wrong-secret');
    expect((error as UnauthenticatedError).httpStatus).toBe(401);
  });

  it('rejects a missing bearer token unless anonymous access is allowed', async () => {
    const denied = createAuthenticator({ securitySchemes: { jwt: bearer }, bearer: tokens });
    expect(await rejection(denied(req()))).toBeInstanceOf(UnauthenticatedError);
    const open = createAuthenticator({ securitySchemes: { jwt: bearer }, bearer: tokens, allowAnonymous: true });
    await expect(open(req())).resolves.toBeUndefined();
    // Anonymous access never hides bad credentials.
    expect(await rejection(open(req({ authorization: 'Bearer nope' })))).toBeInstanceOf(UnauthenticatedError);
  });

  it('ignores an Authorization header of another scheme', async () => {
    const auth = createAuthenticator({ securitySchemes: { jwt: bearer }, bearer: tokens, allowAnonymous: true });
    await expect(auth(req({ authorization: 'Digest abc' }))).resolves.toBeUndefined();
  });

  it('treats an empty security requirement as anonymous access (OpenAPI semantics)', async () => {
    const auth = createAuthenticator({
      securitySchemes: { jwt: bearer },
      securityRequirements: [{ schemes: { jwt: { list: [] } } }, {}],
      bearer: tokens,
    });
    await expect(auth(req())).resolves.toBeUndefined();
    await expect(auth(req({ authorization: 'Bearer t-bob' }))).resolves.toMatchObject({ id: 'bob' });
  });

  it('decodes HTTP Basic credentials', async () => {
    const auth = createAuthenticator({
      securitySchemes: { b: basic },
      basic: { verify: (user, password) => (user === 'u' && password === 'p:w' ? { id: user, scheme: 'x' } : undefined) },
    });
    const encoded = Buffer.from('u:p:w').toString('base64');
    await expect(auth(req({ authorization: `Basic ${encoded}` }))).resolves.toEqual({ id: 'u', scheme: 'b' });
    const wrong = Buffer.from('u:x').toString('base64');
    expect(await rejection(auth(req({ authorization: `Basic ${wrong}` })))).toBeInstanceOf(UnauthenticatedError);
  });

  it('passes OAuth2 and OpenID Connect bearer tokens to their verifiers', async () => {
    const seen: string[] = [];
    const record = (token: string, scheme: string, accepted: string) => {
      seen.push(`${scheme}:${token}`);
      return token === accepted ? { id: accepted, scheme } : undefined;
    };
    const auth = createAuthenticator({
      securitySchemes: { oauth, oidc },
      oauth2: { verifyToken: async (token, scheme) => record(token, scheme, 'o') },
      openIdConnect: { verifyToken: async (token, scheme) => record(token, scheme, 'i') },
    });
    await expect(auth(req({ authorization: 'Bearer o' }))).resolves.toEqual({ id: 'o', scheme: 'oauth' });
    // Both schemes read the same Authorization header: the one whose verifier accepts the token wins.
    await expect(auth(req({ authorization: 'Bearer i' }))).resolves.toEqual({ id: 'i', scheme: 'oidc' });
    expect(seen).toContain('oidc:i');
    expect(await rejection(auth(req({ authorization: 'Bearer neither' })))).toBeInstanceOf(UnauthenticatedError);
  });

  it('accepts any one of several declared schemes when no requirements are given', async () => {
    const auth = createAuthenticator({ securitySchemes: { key: apiKeyHeader, jwt: bearer }, apiKey: keys, bearer: tokens });
    await expect(auth(req({ 'x-api-key': 'k-alice' }))).resolves.toMatchObject({ id: 'alice', scheme: 'key' });
    await expect(auth(req({ authorization: 'Bearer t-bob' }))).resolves.toMatchObject({ id: 'bob', scheme: 'jwt' });
  });

  it('requires every scheme of one requirement (AND) and any requirement (OR)', async () => {
    const auth = createAuthenticator({
      securitySchemes: { key: apiKeyHeader, jwt: bearer, q: apiKeyQuery },
      securityRequirements: [{ schemes: { key: {}, jwt: {} } }, { schemes: { q: {} } }],
      apiKey: keys,
      bearer: tokens,
    });
    expect(await rejection(auth(req({ 'x-api-key': 'k-alice' })))).toBeInstanceOf(UnauthenticatedError);
    await expect(auth(req({ 'x-api-key': 'k-alice', authorization: 'Bearer t-bob' }))).resolves.toMatchObject({
      id: 'alice',
      scheme: 'key',
    });
    await expect(auth(req({}, 'api_key=k-alice'))).resolves.toMatchObject({ scheme: 'q' });
    expect(await rejection(auth(req({ 'x-api-key': 'k-alice', authorization: 'Bearer bad' })))).toBeInstanceOf(UnauthenticatedError);
  });

  it('throws at construction when a declared scheme has no verifier or a requirement names an unknown scheme', () => {
    expect(() => createAuthenticator({ securitySchemes: { jwt: bearer } })).toThrow(TypeError);
    expect(() =>
      createAuthenticator({ securitySchemes: { jwt: bearer }, bearer: tokens, securityRequirements: [{ schemes: { nope: {} } }] }),
    ).toThrow(RangeError);
    expect(() =>
      createAuthenticator({ securitySchemes: { k: { apiKeySecurityScheme: { location: 'body', name: 'k' } } }, apiKey: keys }),
    ).toThrow(RangeError);
  });

  it('never satisfies a mutual TLS scheme from headers', async () => {
    const auth = createAuthenticator({ securitySchemes: { mtls: { mtlsSecurityScheme: {} } } });
    expect(await rejection(auth(req({ authorization: 'Bearer x' })))).toBeInstanceOf(UnauthenticatedError);
  });
});
