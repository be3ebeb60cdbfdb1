/// <reference path="./oidc-provider-module.d.ts" />
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { JWK } from 'jose';
import Provider from 'oidc-provider';

/**
 * A real OpenID provider (`oidc-provider`, OpenID-certified) in process on 127.0.0.1: discovery,
 * a JWKS that can be rotated, the client-credentials grant issuing JWT access tokens (RFC 9068)
 * for one audience, and RFC 7662 introspection. Counts JWKS fetches; can make the JWKS hang.
 */
export interface TestIdentityProvider {
  issuer: string;
  discoveryUrl: string;
  jwksUrl: string;
  tokenUrl: string;
  introspectionUrl: string;
  audience: string;
  clientId: string;
  clientSecret: string;
  /** The current signing key (private JWK with `kid`), for minting hostile tokens. */
  signingKey: JWK & { kid: string };
  /** How many times the JWKS was requested. */
  jwksFetches(): number;
  /** Token requests answered. */
  tokenRequests(): number;
  /** Signs with a new key from now on; the old one stays published. */
  rotate(): void;
  /** When true, JWKS requests are never answered. */
  hangJwks: boolean;
  close(): Promise<void>;
}

/** Client credentials grant at the provider; resolves the access token. */
export async function clientCredentialsToken(idp: TestIdentityProvider, scope: string, resource?: string): Promise<string> {
  const body = new URLSearchParams({ grant_type: 'client_credentials', scope });
  if (resource) body.set('resource', resource);
  const response = await fetch(idp.tokenUrl, {
    method: 'POST',
    headers: {
      authorization: `Basic ${Buffer.from(`${idp.clientId}:${idp.clientSecret}`).toString('base64')}`,
      'content-type': 'application/x-www-form-urlencoded',
    },
    body,
  });
  const json = (await response.json()) as { access_token?: string; error?: string };
  if (!json.access_token) throw new Error(`token request failed: ${json.error}`);
  return json.access_token;
}

export const SCOPES = ['skill:echo', 'skill:admin'];

function newKey(): JWK & { kid: string } {
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return { ...(privateKey.export({ format: 'jwk' }) as JWK), kid: randomUUID(), alg: 'ES256', use: 'sig' };
}

export async function startIdentityProvider(options: { audience?: string; tokenTtlSec?: number } = {}): Promise<TestIdentityProvider> {
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const audience = options.audience ?? 'https://agent.example/a2a';
  const clientId = 'a2a-caller';
  const clientSecret = randomUUID();
  let keys = [newKey()];
  let jwksFetches = 0;
  let tokenRequests = 0;
  const build = () =>
    new Provider(issuer, {
      clients: [
        {
          client_id: clientId,
          client_secret: clientSecret,
          grant_types: ['client_credentials'],
          redirect_uris: [],
          response_types: [],
          scope: SCOPES.join(' '),
          id_token_signed_response_alg: 'ES256',
        },
      ],
      jwks: { keys },
      scopes: SCOPES,
      ttl: { ClientCredentials: options.tokenTtlSec ?? 300 },
      features: {
        devInteractions: { enabled: false },
        clientCredentials: { enabled: true },
        introspection: { enabled: true },
        resourceIndicators: {
          enabled: true,
          defaultResource: () => audience,
          useGrantedResource: () => true,
          getResourceServerInfo: (_ctx: unknown, resource: string) => ({
            scope: SCOPES.join(' '),
            audience: resource,
            // A resource ending in /opaque gets opaque tokens, for introspection (RFC 7662).
            accessTokenFormat: resource.endsWith('/opaque') ? 'opaque' : 'jwt',
            accessTokenTTL: options.tokenTtlSec ?? 300,
            jwt: { sign: { alg: 'ES256' } },
          }),
        },
      },
    });
  let handler = build().callback();
  const idp: TestIdentityProvider = {
    issuer,
    discoveryUrl: `${issuer}/.well-known/openid-configuration`,
    jwksUrl: `${issuer}/jwks`,
    tokenUrl: `${issuer}/token`,
    introspectionUrl: `${issuer}/token/introspection`,
    audience,
    clientId,
    clientSecret,
    get signingKey() {
      return keys[0] as JWK & { kid: string };
    },
    jwksFetches: () => jwksFetches,
    tokenRequests: () => tokenRequests,
    rotate() {
      keys = [newKey(), ...keys];
      handler = build().callback();
    },
    hangJwks: false,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    const path = new URL(request.url ?? '/', issuer).pathname;
    if (path === '/jwks') {
      jwksFetches++;
      if (idp.hangJwks) return;
    }
    if (path === '/token') tokenRequests++;
    handler(request, response);
  });
  return idp;
}
