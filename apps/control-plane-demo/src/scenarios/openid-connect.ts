import { createA2AClient, createCardResolver, oauthClientCredentials } from '@a2aplane/a2a-client';
import { createPinnedKeyResolver, exportPublicJwk, verifyAgentCard } from '@a2aplane/a2a-identity';
import { type AgentExecutor, createAuthenticator, createJwtVerifier, createTaskUpdater } from '@a2aplane/a2a-server-express';
import { A2AError, type SecurityScheme } from '@a2aplane/a2a-types';
import { type HostedAgent, hostAgent } from '../agent-host.js';
import { type AgentSummary, CALL_TIMEOUT_MS, type ControlPlane } from '../control-plane.js';
import { startIdentityProvider } from '../identity-provider.js';
import type { ScenarioOptions } from './remote-equals-local.js';

export interface OpenIdConnectCall {
  caller: string;
  /** `TASK_STATE_COMPLETED` when served, else the refusal's reason (`UNAUTHENTICATED`, `FORBIDDEN`). */
  outcome: string;
  /** What the agent answered: the subject and scopes its server verified in the token. */
  answer?: string;
}

export interface OpenIdConnectResult {
  passed: boolean;
  /** The demo's OpenID provider (`oidc-provider`, in process). */
  issuer: string;
  /** The card's scheme: `openIdConnect` with the provider's discovery URL. */
  openIdConnectUrl: string;
  /** A client that fetched its own token with the skill's scope, one with a token lacking it, one with none. */
  calls: OpenIdConnectCall[];
  /** Tokens the provider issued (one per client that asked: the token is cached). */
  tokenRequests: number;
  /** Tasks that reached the agent's executor (only the call with the right token). */
  executions: number;
  agents: AgentSummary[];
}

/** The scope the agent's skill requires (spec §4.4.5 skill `securityRequirements`). */
export const OIDC_SCOPE = 'skill:work';
const AUDIENCE = 'urn:a2aplane:demo:oidc-agent';

const reasonOf = (error: unknown): string =>
  A2AError.isInstance(error) ? error.reason : error instanceof Error ? error.name : String(error);

/** Answers with who the server says is calling: the token's subject and scopes, as verified. */
function whoAmIExecutor(): AgentExecutor {
  return {
    async execute(context, events) {
      const task = createTaskUpdater(context, events);
      task.submit();
      const principal = context.principal;
      task.complete(`hello ${principal?.id ?? 'nobody'} (scopes: ${principal?.scopes?.join(' ') || 'none'})`);
    },
  };
}

/**
 * OAuth 2 / OpenID Connect (issue 37): an OpenID provider on 127.0.0.1 (`oidc-provider`), one
 * agent whose card declares an `openIdConnect` scheme and whose skill requires a scope, its server
 * verifying JWT access tokens from the provider's JWKS (`createJwtVerifier`). A client given only
 * a client id and secret reads the scheme from the card, fetches a token (client credentials) and
 * is served; a token without the skill's scope is refused (`FORBIDDEN`), a call without a token
 * too (`UNAUTHENTICATED`), both before the executor.
 */
export async function runOpenIdConnect(plane: ControlPlane, options: ScenarioOptions = {}): Promise<OpenIdConnectResult> {
  options.signal?.throwIfAborted();
  options.onProgress?.('scenario 6: starting an OpenID provider and an agent that accepts its tokens');
  const idp = await startIdentityProvider({ audience: AUDIENCE, scopes: [OIDC_SCOPE] });
  let agent: HostedAgent | undefined;
  try {
    const securitySchemes: Record<string, SecurityScheme> = {
      oidc: { openIdConnectSecurityScheme: { openIdConnectUrl: idp.discoveryUrl } },
    };
    const securityRequirements = [{ schemes: { oidc: { list: [] } } }];
    agent = await hostAgent({
      name: 'oidc-agent',
      skill: {
        id: 'work',
        name: 'Work',
        description: 'Says who called it.',
        tags: ['demo'],
        securityRequirements: [{ schemes: { oidc: { list: [OIDC_SCOPE] } } }],
      },
      security: { securitySchemes, securityRequirements },
      authenticate: createAuthenticator({
        securitySchemes,
        securityRequirements,
        // The provider is plain http on loopback: the demo's only loosening, named.
        openIdConnect: createJwtVerifier({ securitySchemes, audience: AUDIENCE, allowInsecureLoopback: true }),
      }),
      governor: (agentId) => plane.governorFor(agentId),
      executor: whoAmIExecutor,
    });
    const hosted = agent;
    // Every client verifies the agent's signed card before it reads the scheme from it.
    const cardResolver = createCardResolver({
      cardVerifier: (json) => verifyAgentCard(json, createPinnedKeyResolver([exportPublicJwk(hosted.key)])),
      unsignedCardPolicy: 'reject',
    });
    const discovered = await cardResolver.resolve(hosted.url);
    const summary: AgentSummary = {
      name: hosted.name,
      url: hosted.url,
      agentId: hosted.agentId,
      card: discovered.verification?.status ?? 'unsigned',
    };
    options.onAgents?.([summary]);
    const callAs = async (caller: string, scopes: string[] | undefined): Promise<OpenIdConnectCall> => {
      options.signal?.throwIfAborted();
      const auth = scopes
        ? oauthClientCredentials({ clientId: idp.clientId, clientSecret: idp.clientSecret, scopes, allowInsecureLoopback: true })
        : undefined;
      const client = createA2AClient({
        baseUrl: hosted.url,
        cardResolver,
        timeoutMs: CALL_TIMEOUT_MS,
        retry: { retries: 0 },
        ...(auth ? { auth } : {}),
      });
      try {
        const response = await client.sendMessage(
          {
            message: {
              messageId: globalThis.crypto.randomUUID(),
              role: 'ROLE_USER',
              parts: [{ text: 'who am I?' }],
              metadata: { skillId: 'work' },
            },
          },
          options.signal ? { signal: options.signal } : {},
        );
        const answer = response.task?.status.message?.parts[0]?.text;
        return { caller, outcome: response.task?.status.state ?? 'message', ...(answer ? { answer } : {}) };
      } catch (error) {
        return { caller, outcome: reasonOf(error) };
      }
    };
    options.onProgress?.('scenario 6: a client fetches its own token from the card and calls; then a token without the scope, then none');
    const calls = [
      await callAs(`token with ${OIDC_SCOPE}`, [OIDC_SCOPE]),
      await callAs('token without the scope', []),
      await callAs('no token', undefined),
    ];
    const expected = ['TASK_STATE_COMPLETED', 'FORBIDDEN', 'UNAUTHENTICATED'];
    const served = calls[0]?.answer === `hello ${idp.clientId} (scopes: ${OIDC_SCOPE})`;
    const passed = served && calls.every((call, index) => call.outcome === expected[index]) && hosted.executions === 1;
    return {
      passed,
      issuer: idp.issuer,
      openIdConnectUrl: idp.discoveryUrl,
      calls,
      tokenRequests: idp.tokenRequests(),
      executions: hosted.executions,
      agents: [summary],
    };
  } finally {
    await agent?.close();
    await idp.close();
  }
}
