import { materializeConfig, validateOperatorConfig } from '@a2aplane/a2a-governance';
import { parseOperatorConfig } from '@a2aplane/a2a-governance/config-files';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAuthenticator, createJwtVerifier } from '../../src/auth/index.js';
import { createA2AServer, createTaskUpdater } from '../../src/index.js';
import { rpc, startServer, type TestServer, testCard, userMessage } from '../helpers.js';
import { clientCredentialsToken, startIdentityProvider, type TestIdentityProvider } from '../helpers/oidc-provider.js';

/**
 * Scope rules of the operator config (`[[scopes.rules]]`), beside the card's per-skill
 * securityRequirements: a token without a rule's scopes is refused FORBIDDEN (HTTP 403 over REST,
 * the JSON-RPC FORBIDDEN error) naming the missing scopes; an anonymous caller UNAUTHENTICATED.
 * Tokens come from a real provider (oidc-provider, in process).
 */
const TOML = `
[[scopes.rules]]
skills = ["admin"]
scopes = ["skill:admin"]

[[scopes.rules]]
skills = ["*"]
scopes = ["skill:echo"]
`;

let idp: TestIdentityProvider;
let server: TestServer;

beforeAll(async () => {
  idp = await startIdentityProvider();
  const securitySchemes = { oidc: { openIdConnectSecurityScheme: { openIdConnectUrl: idp.discoveryUrl } } };
  const parsed = parseOperatorConfig(TOML, 'toml');
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.violations));
  const { scopeRules } = materializeConfig(parsed.config, { knownSelectors: [] });
  server = await startServer({
    card: testCard({
      securitySchemes,
      skills: [
        { id: 'echo', name: 'Echo', description: 'echo', tags: [] },
        { id: 'admin', name: 'Admin', description: 'admin', tags: [] },
      ],
    }),
    ...(scopeRules ? { skillScopeRules: scopeRules } : {}),
    authenticate: createAuthenticator({
      securitySchemes,
      allowAnonymous: true,
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

const send = (skillId: string, headers: Record<string, string>) =>
  rpc(server.url, 'SendMessage', { message: userMessage('x', { metadata: { skillId } }) }, headers);
const infoOf = (body: { error?: { data?: Array<{ reason?: string; metadata?: Record<string, string> }> } }) =>
  body.error?.data?.find((d) => d.reason !== undefined);
const bearer = async (scope: string) => ({ authorization: `Bearer ${await clientCredentialsToken(idp, scope)}` });

describe('operator scope rules ([[scopes.rules]])', () => {
  it('a token with every scope the rules name for the skill is served', async () => {
    const { body } = await send('admin', await bearer('skill:echo skill:admin'));
    expect(body.result).toBeDefined();
  });

  it('a token lacking a scope of a rule naming the skill is refused FORBIDDEN with the missing scopes', async () => {
    const { body } = await send('admin', await bearer('skill:echo'));
    expect(infoOf(body)).toMatchObject({ reason: 'FORBIDDEN', metadata: { limit: 'scope', skill: 'admin', missingScopes: 'skill:admin' } });
  });

  it('a "*" rule applies to every skill', async () => {
    const { body } = await send('echo', await bearer('skill:admin'));
    expect(infoOf(body)).toMatchObject({ reason: 'FORBIDDEN', metadata: { skill: 'echo', missingScopes: 'skill:echo' } });
    expect((await send('echo', await bearer('skill:echo'))).body.result).toBeDefined();
  });

  it('over REST the refusal is HTTP 403', async () => {
    const response = await fetch(`${server.url}/a2a/rest/message:send`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0', ...(await bearer('skill:echo')) },
      body: JSON.stringify({ message: userMessage('x', { metadata: { skillId: 'admin' } }) }),
    });
    expect(response.status).toBe(403);
  });

  it('an anonymous caller of a scoped skill is refused UNAUTHENTICATED (HTTP 401)', async () => {
    const { status, body } = await send('echo', {});
    expect(status).toBe(401);
    expect(infoOf(body)).toMatchObject({ reason: 'UNAUTHENTICATED', metadata: { limit: 'scope', skill: 'echo' } });
  });
});

describe('scope rules are checked when the config is read and when the server is made', () => {
  it('the operator config refuses an empty or malformed rule', () => {
    const bad = validateOperatorConfig({ scopes: { rules: [{ skills: [], scopes: ['a b'] }], extra: 1 } });
    expect(bad.ok).toBe(false);
    if (!bad.ok)
      expect(bad.violations.map((v) => v.field).sort()).toEqual(['scopes', 'scopes.rules[0].scopes[0]', 'scopes.rules[0].skills']);
  });

  it('createA2AServer refuses a malformed skillScopeRules', () => {
    const executor = { async execute() {} };
    expect(() => createA2AServer({ card: testCard(), executor, skillScopeRules: [{ skills: ['echo'], scopes: [] }] })).toThrow(TypeError);
  });
});
