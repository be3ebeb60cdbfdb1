import { createCallAuthorizer, createInMemoryBudgetLedger, Governor, RecursionPolicy, TaskPolicyEngine } from '@a2aplane/a2a-governance';
import { agentIdFromPublicKey, createAllowlistIdentityResolver, generateKeyPair } from '@a2aplane/a2a-identity';
import type { SecurityScheme } from '@a2aplane/a2a-types';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type AgentExecutor,
  createA2AServer,
  createAuthenticator,
  createStaticApiKeyVerifier,
  createTaskUpdater,
  type GovernanceOptions,
} from '../src/index.js';
import { echoExecutor, rest, rpc, startServer, type TestServer, testCard, userMessage } from './helpers.js';

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

type Json = Record<string, unknown>;
const errorOf = (body: Json) => body.error as { code: number; data: Json[] };
const reasonOf = (body: Json) => (errorOf(body).data[0] as { reason: string }).reason;

const LISTED = agentIdFromPublicKey(generateKeyPair('EdDSA').publicKey);
const UNLISTED = agentIdFromPublicKey(generateKeyPair('EdDSA').publicKey);
const apiKey: SecurityScheme = { apiKeySecurityScheme: { location: 'header', name: 'X-API-Key' } };

/** Keys the operator issued to agents: the principal carries the AgentID the key is bound to. */
function authenticate() {
  return createAuthenticator({
    securitySchemes: { key: apiKey },
    apiKey: createStaticApiKeyVerifier({
      'key-listed': { id: 'listed-key', scheme: 'key', agentId: LISTED },
      'key-listed-2': { id: 'listed-key-2', scheme: 'key', agentId: LISTED },
      'key-unlisted': { id: 'unlisted-key', scheme: 'key', agentId: UNLISTED },
      'key-plain': { id: 'plain-user', scheme: 'key' },
    }),
  });
}

describe('call authorization inside the governance pipeline (issue 16.3)', () => {
  it('serves an allowlisted agent and refuses an unlisted one (FORBIDDEN) or an unverified caller (UNAUTHENTICATED), over JSON-RPC and REST', async () => {
    let executed = 0;
    const executor: AgentExecutor = {
      async execute(context, events) {
        executed += 1;
        await echoExecutor.execute(context, events);
      },
    };
    const governor = new Governor({
      selfAgentId: 'self',
      authorize: createCallAuthorizer({ identity: createAllowlistIdentityResolver([LISTED]) }),
      budget: createInMemoryBudgetLedger({ maxTasksPerMinute: 100 }),
    });
    server = await startServer({ executor, authenticate: authenticate(), governance: governor });

    const served = await rpc(server.url, 'SendMessage', { message: userMessage('hi') }, { 'X-API-Key': 'key-listed' });
    expect(served.body.result).toBeDefined();
    const servedRest = await rest(server.url, 'POST', '/message:send', { message: userMessage('hi') }, { 'X-API-Key': 'key-listed' });
    expect(servedRest.status).toBe(200);
    expect(executed).toBe(2);

    const refused = await rpc(server.url, 'SendMessage', { message: userMessage('hi') }, { 'X-API-Key': 'key-unlisted' });
    expect(reasonOf(refused.body)).toBe('FORBIDDEN');
    expect(errorOf(refused.body).data[0]).toMatchObject({ metadata: { limit: 'allowlist', agentId: UNLISTED } });
    const refusedRest = await rest(server.url, 'POST', '/message:send', { message: userMessage('hi') }, { 'X-API-Key': 'key-unlisted' });
    expect(refusedRest.status).toBe(403);

    const unverified = await rpc(server.url, 'SendMessage', { message: userMessage('hi') }, { 'X-API-Key': 'key-plain' });
    expect(reasonOf(unverified.body)).toBe('UNAUTHENTICATED');
    const unverifiedRest = await rest(server.url, 'POST', '/message:send', { message: userMessage('hi') }, { 'X-API-Key': 'key-plain' });
    expect(unverifiedRest.status).toBe(401);
    expect(executed).toBe(2);
  });

  it('refuses an unlisted agent before the stream opens, and a refused caller costs no budget', async () => {
    const budget = createInMemoryBudgetLedger({ maxTasksPerMinute: 1 });
    const governor = new Governor({
      selfAgentId: 'self',
      authorize: createCallAuthorizer({ identity: createAllowlistIdentityResolver([LISTED]) }),
      budget,
    });
    server = await startServer({ executor: echoExecutor, authenticate: authenticate(), governance: governor });
    for (let i = 0; i < 3; i++) {
      const refused = await rpc(server.url, 'SendStreamingMessage', { message: userMessage('hi') }, { 'X-API-Key': 'key-unlisted' });
      expect(reasonOf(refused.body)).toBe('FORBIDDEN');
    }
    expect(budget.snapshot().totals.tasks).toBe(0);
    // The one task of the window is still there for the allowlisted agent.
    const served = await rpc(server.url, 'SendMessage', { message: userMessage('hi') }, { 'X-API-Key': 'key-listed' });
    expect(served.body.result).toBeDefined();
  });

  it('keys policy and concurrency buckets on the verified AgentID, not the credential', async () => {
    const gates: (() => void)[] = [];
    const executor: AgentExecutor = {
      async execute(context, events) {
        const task = createTaskUpdater(context, events);
        task.submit();
        await new Promise<void>((resolve) => gates.push(resolve));
        task.complete();
      },
    };
    const seen: { caller: string; callerAgentId?: string }[] = [];
    const governor = new Governor({ selfAgentId: 'self', policy: new TaskPolicyEngine({ default: { maxConcurrency: 1 } }) });
    const governance: GovernanceOptions = {
      admit: (input) => {
        seen.push({ caller: input.caller, ...(input.callerAgentId ? { callerAgentId: input.callerAgentId } : {}) });
        return governor.admit(input);
      },
      readTaskContext: (metadata) => governor.readTaskContext(metadata),
    };
    server = await startServer({ executor, authenticate: authenticate(), governance });
    const first = await rpc(
      server.url,
      'SendMessage',
      { message: userMessage('a'), configuration: { returnImmediately: true } },
      { 'X-API-Key': 'key-listed' },
    );
    expect(first.body.result).toBeDefined();
    // Another credential of the same agent shares the agent's bucket of one.
    const second = await rpc(
      server.url,
      'SendMessage',
      { message: userMessage('b'), configuration: { returnImmediately: true } },
      { 'X-API-Key': 'key-listed-2' },
    );
    expect(reasonOf(second.body)).toBe('POLICY_VIOLATION');
    // A plain principal without an AgentID keys on its id.
    const plain = await rpc(
      server.url,
      'SendMessage',
      { message: userMessage('c'), configuration: { returnImmediately: true } },
      { 'X-API-Key': 'key-plain' },
    );
    expect(plain.body.result).toBeDefined();
    expect(seen).toEqual([{ caller: LISTED, callerAgentId: LISTED }, { caller: LISTED, callerAgentId: LISTED }, { caller: 'plain-user' }]);
    for (const open of gates) open();
  });
});

describe('governance that cannot be half-plugged (issue 16.4)', () => {
  it('takes a Governor itself and always reads the incoming TaskContext: a depth-5 call is refused with maxCallDepth 2', async () => {
    const governor = new Governor({ selfAgentId: 'self', recursion: new RecursionPolicy({ maxCallDepth: 2 }) });
    server = await startServer({ executor: echoExecutor, governance: governor });
    const deep = {
      trace_id: 'ab'.repeat(16),
      depth: 5,
      root_agent_id: 'a0',
      visited_agents: ['a0', 'a1', 'a2', 'a3', 'a4', 'a5'],
    };
    const { body } = await rpc(server.url, 'SendMessage', { message: userMessage('x', { metadata: { ruvector: { context: deep } } }) });
    expect(reasonOf(body)).toBe('RECURSION_LIMIT');
    const viaRest = await rest(server.url, 'POST', '/message:send', {
      message: userMessage('x', { metadata: { ruvector: { context: deep } } }),
    });
    expect(viaRest.status).not.toBe(200);
    expect(JSON.stringify(viaRest.body)).toContain('RECURSION_LIMIT');
  });

  it('refuses a governance object without readTaskContext (it used to turn the recursion guard off silently)', () => {
    const governor = new Governor({ selfAgentId: 'self', recursion: new RecursionPolicy({ maxCallDepth: 2 }) });
    expect(() =>
      createA2AServer({
        card: testCard(),
        executor: echoExecutor,
        governance: { admit: (input: Parameters<GovernanceOptions['admit']>[0]) => governor.admit(input) } as unknown as GovernanceOptions,
      }),
    ).toThrow(
      /expected governance to be a Governor \(admit and readTaskContext functions\), got admit: function, readTaskContext: undefined/,
    );
    expect(() => createA2AServer({ card: testCard(), executor: echoExecutor, governance: null as unknown as GovernanceOptions })).toThrow(
      TypeError,
    );
  });
});
