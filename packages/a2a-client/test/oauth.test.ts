import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  type A2AServer,
  createA2AServer,
  createAgentCard,
  createAuthenticator,
  createJwtVerifier,
  createNodeHttpHandler,
  createTaskUpdater,
  type TokenVerifier,
} from '@a2aplane/a2a-server-express';
import type { AgentCard, SecurityScheme } from '@a2aplane/a2a-types';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  clientCredentialsToken,
  startIdentityProvider,
  type TestIdentityProvider,
} from '../../a2a-server-express/test/helpers/oidc-provider.js';
import { createA2AClient, OAuthTokenError, oauthClientCredentials } from '../src/index.js';

/**
 * The client gets its own tokens from the card's OAuth 2 / OpenID Connect scheme at a real
 * provider (oidc-provider, in process) and calls our server, which verifies them.
 */

let idp: TestIdentityProvider;
beforeAll(async () => {
  idp = await startIdentityProvider();
});
afterAll(async () => {
  await idp?.close();
});

interface Agent {
  url: string;
  card: AgentCard;
  close(): Promise<void>;
}
const agents: Agent[] = [];
afterEach(async () => {
  await Promise.all(agents.splice(0).map((a) => a.close()));
});

/** Our server with one scheme, verifying tokens with createJwtVerifier; `wrap` may refuse some. */
async function startAgent(scheme: 'oauth2' | 'oidc', wrap: (inner: TokenVerifier) => TokenVerifier = (v) => v): Promise<Agent> {
  const http: Server = createServer();
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  const securitySchemes: Record<string, SecurityScheme> =
    scheme === 'oidc'
      ? { oidc: { openIdConnectSecurityScheme: { openIdConnectUrl: idp.discoveryUrl } } }
      : { oauth: { oauth2SecurityScheme: { flows: { clientCredentials: { tokenUrl: idp.tokenUrl, scopes: { 'skill:echo': 'echo' } } } } } };
  const card = createAgentCard({
    baseUrl: url,
    name: 'oauth agent',
    description: 'd',
    skills: [{ id: 'echo', name: 'e', description: 'e', tags: [] }],
    securitySchemes,
  });
  const verifier = wrap(
    createJwtVerifier({ securitySchemes, audience: idp.audience, issuer: idp.issuer, jwksUrl: idp.jwksUrl, allowInsecureLoopback: true }),
  );
  const server: A2AServer = createA2AServer({
    card,
    executor: {
      async execute(context, events) {
        const updater = createTaskUpdater(context, events);
        updater.submit();
        updater.complete(`hello ${context.principal?.id}`);
      },
    },
    authenticate: createAuthenticator({ securitySchemes, oauth2: verifier, openIdConnect: verifier }),
  });
  http.on('request', createNodeHttpHandler(server));
  const agent = {
    url,
    card,
    async close() {
      await server.close();
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
  agents.push(agent);
  return agent;
}

const hello = () => ({ message: { messageId: crypto.randomUUID(), role: 'ROLE_USER' as const, parts: [{ text: 'hi' }] } });
const textOf = (result: Awaited<ReturnType<ReturnType<typeof createA2AClient>['sendMessage']>>) => {
  const part = result.task?.status?.message?.parts[0];
  return part && 'text' in part ? part.text : undefined;
};
const credentials = () => ({ clientId: idp.clientId, clientSecret: idp.clientSecret, scopes: ['skill:echo'], allowInsecureLoopback: true });

describe('oauthClientCredentials', () => {
  it.each(['oauth2', 'oidc'] as const)('gets a token from the %s scheme of the discovered card and caches it', async (scheme) => {
    const agent = await startAgent(scheme);
    const before = idp.tokenRequests();
    const client = createA2AClient({ baseUrl: agent.url, auth: oauthClientCredentials(credentials()) });
    for (let i = 0; i < 3; i++) expect(textOf(await client.sendMessage(hello()))).toBe(`hello ${idp.clientId}`);
    expect(idp.tokenRequests() - before).toBe(1);
  });

  it('sends one token request for many concurrent calls', async () => {
    const agent = await startAgent('oauth2');
    const before = idp.tokenRequests();
    const client = createA2AClient({ baseUrl: agent.url, auth: oauthClientCredentials(credentials()) });
    const results = await Promise.all(Array.from({ length: 8 }, () => client.sendMessage(hello())));
    expect(results.every((r) => textOf(r) === `hello ${idp.clientId}`)).toBe(true);
    expect(idp.tokenRequests() - before).toBe(1);
  });

  it('renews the token shortly before it expires', async () => {
    const agent = await startAgent('oauth2');
    let clock = Date.now();
    const client = createA2AClient({ baseUrl: agent.url, auth: oauthClientCredentials({ ...credentials(), now: () => clock }) });
    const before = idp.tokenRequests();
    await client.sendMessage(hello());
    clock += 250_000; // the provider's tokens live 300 s; the margin is 30 s
    await client.sendMessage(hello());
    expect(idp.tokenRequests() - before).toBe(1);
    clock += 30_000;
    await client.sendMessage(hello());
    expect(idp.tokenRequests() - before).toBe(2);
  });

  // Both HTTP bindings answer missing or invalid credentials with HTTP 401 (JSON-RPC too: spec §7.4, decision 0150).
  it.each(['JSONRPC', 'HTTP+JSON'] as const)('retries one 401 with a fresh token over %s', async (binding) => {
    let refused: string | undefined;
    const agent = await startAgent('oauth2', (inner) => ({
      async verifyToken(token, scheme) {
        // The first token the agent sees is treated as revoked.
        refused ??= token;
        return token === refused ? undefined : inner.verifyToken(token, scheme);
      },
    }));
    const before = idp.tokenRequests();
    const client = createA2AClient({ baseUrl: agent.url, preferredBindings: [binding], auth: oauthClientCredentials(credentials()) });
    expect(textOf(await client.sendMessage(hello()))).toBe(`hello ${idp.clientId}`);
    expect(idp.tokenRequests() - before).toBe(2);
  });

  it('renews with the refresh token when one was given, and falls back to a new grant if it is refused', async () => {
    let clock = 0;
    const calls: Array<string | undefined> = [];
    let refuseRefresh = false;
    const auth = oauthClientCredentials({
      ...credentials(),
      tokenUrl: idp.tokenUrl,
      now: () => clock,
      flow: async (request) => {
        calls.push(request.refreshToken);
        if (request.refreshToken && refuseRefresh) throw new OAuthTokenError('refused');
        return { accessToken: `at-${calls.length}`, expiresInSec: 60, refreshToken: `rt-${calls.length}` };
      },
    });
    const send = async () => {
      const request = { method: 'POST', url: new URL('https://agent.example'), headers: new Headers(), body: undefined };
      await auth.apply(request);
      return request.headers.get('authorization');
    };
    expect(await send()).toBe('Bearer at-1');
    clock += 40_000; // within 30 s of expiry
    expect(await send()).toBe('Bearer at-2');
    refuseRefresh = true;
    clock += 40_000;
    expect(await send()).toBe('Bearer at-4');
    expect(calls).toEqual([undefined, 'rt-1', 'rt-2', undefined]);
  });

  it('uses a custom flow for other grants', async () => {
    const agent = await startAgent('oauth2');
    const seen: string[] = [];
    const auth = oauthClientCredentials({
      ...credentials(),
      flow: async (request) => {
        seen.push(request.tokenUrl);
        return { accessToken: await clientCredentialsToken(idp, request.scopes.join(' ')), expiresInSec: 60 };
      },
    });
    const client = createA2AClient({ baseUrl: agent.url, auth });
    expect(textOf(await client.sendMessage(hello()))).toBe(`hello ${idp.clientId}`);
    expect(seen).toEqual([idp.tokenUrl]);
  });

  it('refuses http token URLs without the loopback flag, and non-loopback http even with it', async () => {
    expect(() => oauthClientCredentials({ clientId: 'a', clientSecret: 'b', tokenUrl: idp.tokenUrl })).toThrow(TypeError);
    expect(() =>
      oauthClientCredentials({ clientId: 'a', clientSecret: 'b', tokenUrl: 'http://10.0.0.1/token', allowInsecureLoopback: true }),
    ).toThrow(TypeError);
    const card = createAgentCard({
      baseUrl: 'https://agent.example',
      name: 'n',
      description: 'd',
      skills: [],
      securitySchemes: {
        oauth: { oauth2SecurityScheme: { flows: { clientCredentials: { tokenUrl: 'http://169.254.169.254/token', scopes: {} } } } },
      },
    });
    const peer = oauthClientCredentials(credentials()).forPeer?.({ card, verification: { status: 'no-signature' } as never });
    const request = { method: 'POST', url: new URL('https://agent.example'), headers: new Headers(), body: undefined };
    await expect(peer?.apply(request)).rejects.toThrow(TypeError);
    expect(request.headers.get('authorization')).toBeNull();
  });

  it('reports a refused grant as OAuthTokenError without the secret', async () => {
    const auth = oauthClientCredentials({ ...credentials(), clientSecret: 'wrong-secret', tokenUrl: idp.tokenUrl });
    const request = { method: 'POST', url: new URL('https://agent.example'), headers: new Headers(), body: undefined };
    const error = await Promise.resolve(auth.apply(request)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OAuthTokenError);
    expect((error as Error).message).toContain('invalid_client');
    expect((error as Error).message).not.toContain('wrong-secret');
  });
});
