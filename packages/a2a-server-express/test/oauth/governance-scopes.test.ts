import { readTaskContext } from '@a2aplane/a2a-governance';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAuthenticator, createJwtVerifier } from '../../src/auth/index.js';
import { createTaskUpdater, type GovernanceOptions } from '../../src/index.js';
import { rpc, startServer, type TestServer, testCard, userMessage } from '../helpers.js';
import { clientCredentialsToken, startIdentityProvider, type TestIdentityProvider } from '../helpers/oidc-provider.js';

/** docs/server.md: governance gets the token's subject as `caller` and its scopes as `callerScopes`. */

let idp: TestIdentityProvider;
let server: TestServer;
const admitted: Array<{ caller: string; callerScopes?: readonly string[] }> = [];

beforeAll(async () => {
  idp = await startIdentityProvider();
  const securitySchemes = { oidc: { openIdConnectSecurityScheme: { openIdConnectUrl: idp.discoveryUrl } } };
  const governance: GovernanceOptions = {
    async admit(input) {
      admitted.push({ caller: input.caller, ...(input.callerScopes ? { callerScopes: input.callerScopes } : {}) });
      return {
        context: { traceId: 'c'.repeat(32), depth: 0, rootAgentId: 'self', visitedAgents: ['self'] },
        signal: new AbortController().signal,
        meterTokens: () => undefined,
        finish: async () => undefined,
      };
    },
    readTaskContext,
  };
  server = await startServer({
    card: testCard({ securitySchemes }),
    governance,
    authenticate: createAuthenticator({
      securitySchemes,
      openIdConnect: createJwtVerifier({ securitySchemes, audience: idp.audience, allowInsecureLoopback: true }),
    }),
    executor: {
      async execute(context, events) {
        const updater = createTaskUpdater(context, events);
        updater.submit();
        updater.complete('ok');
      },
    },
  });
});

afterAll(async () => {
  await server?.close();
  await idp?.close();
});

describe('OIDC principal to governance', () => {
  it('hands the subject and scopes of a verified token to admit', async () => {
    const token = await clientCredentialsToken(idp, 'skill:echo skill:admin');
    const { body } = await rpc(server.url, 'SendMessage', { message: userMessage('x') }, { authorization: `Bearer ${token}` });
    expect(body.result).toBeDefined();
    expect(admitted).toEqual([{ caller: idp.clientId, callerScopes: ['skill:echo', 'skill:admin'] }]);
  });
});
