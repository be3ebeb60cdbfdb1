import { describe, expect, it } from 'vitest';
import { createControlPlane } from '../src/control-plane.js';
import { OIDC_SCOPE, runOpenIdConnect } from '../src/scenarios/openid-connect.js';

describe('OpenID Connect (issue 37): an agent behind a real OpenID provider', () => {
  it('serves a client that fetched its own token from the card, refuses a token without the scope (FORBIDDEN) and no token (UNAUTHENTICATED)', async () => {
    const result = await runOpenIdConnect(await createControlPlane());
    expect(result.calls.map((call) => `${call.caller}:${call.outcome}`)).toEqual([
      `token with ${OIDC_SCOPE}:TASK_STATE_COMPLETED`,
      'token without the scope:FORBIDDEN',
      'no token:UNAUTHENTICATED',
    ]);
    // The server verified the JWT: the executor saw the token's subject (the client id) and scope.
    expect(result.calls[0]!.answer).toBe(`hello demo-caller (scopes: ${OIDC_SCOPE})`);
    expect(result.openIdConnectUrl).toBe(`${result.issuer}/.well-known/openid-configuration`);
    // One token per client that asked (the token is cached for its retries and later calls), none without credentials.
    expect(result.tokenRequests).toBe(2);
    expect(result.executions).toBe(1);
    expect(result.agents.map((agent) => agent.card)).toEqual(['valid']);
    expect(result.passed).toBe(true);
  });
});
