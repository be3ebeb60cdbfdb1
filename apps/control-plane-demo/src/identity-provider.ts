/// <reference path="./types/oidc-provider.d.ts" />
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** The demo's OpenID provider: what an agent's card points at and what a client authenticates to. */
export interface DemoIdentityProvider {
  issuer: string;
  /** The discovery document (`openIdConnectUrl` of the agent's card). */
  discoveryUrl: string;
  /** The `aud` of every access token it issues: the protected agent. */
  audience: string;
  /** The one registered client (client-credentials grant). */
  clientId: string;
  clientSecret: string;
  /** Token requests it answered. */
  tokenRequests(): number;
  close(): Promise<void>;
}

/**
 * A real OpenID provider (`oidc-provider`, OpenID-certified) in process on 127.0.0.1: discovery, a
 * JWKS (one fresh ES256 key), and the client-credentials grant issuing JWT access tokens (RFC 9068)
 * for `audience` with the scopes asked for among `scopes`.
 */
export async function startIdentityProvider(options: { audience: string; scopes: readonly string[] }): Promise<DemoIdentityProvider> {
  const http = createServer();
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  const clientId = 'demo-caller';
  const clientSecret = randomUUID();
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const signingKey = { ...privateKey.export({ format: 'jwk' }), kid: randomUUID(), alg: 'ES256', use: 'sig' };
  const scope = options.scopes.join(' ');
  // Loaded when the scenario starts: it warns on import about runtimes older than it prefers (Node 20).
  const { default: Provider } = await import('oidc-provider');
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        grant_types: ['client_credentials'],
        redirect_uris: [],
        response_types: [],
        scope,
        // Its only key is ES256 (the default, RS256, would need an RSA key).
        id_token_signed_response_alg: 'ES256',
      },
    ],
    jwks: { keys: [signingKey] },
    scopes: [...options.scopes],
    ttl: { ClientCredentials: 300 },
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => options.audience,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx: unknown, resource: string) => ({
          scope,
          audience: resource,
          accessTokenFormat: 'jwt',
          accessTokenTTL: 300,
          jwt: { sign: { alg: 'ES256' } },
        }),
      },
    },
  });
  const handle = provider.callback();
  let tokenRequests = 0;
  http.on('request', (request, response) => {
    if (new URL(request.url ?? '/', issuer).pathname === '/token') tokenRequests++;
    handle(request, response);
  });
  return {
    issuer,
    discoveryUrl: `${issuer}/.well-known/openid-configuration`,
    audience: options.audience,
    clientId,
    clientSecret,
    tokenRequests: () => tokenRequests,
    async close() {
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
