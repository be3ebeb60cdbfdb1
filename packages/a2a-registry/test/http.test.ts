import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  createInMemoryRegistryStore,
  createRegistry,
  createRegistryHttpReader,
  createRegistryRequestHandler,
  type Registry,
  type RegistryStore,
} from '../src/index.js';
import { sampleAgentRecord } from '../src/testing/index.js';
import { type AgentSite, publishAgent, startAgentSite } from './helpers/agent-site.js';
import { startRegistryServer } from './helpers/registry-server.js';

let site: AgentSite;
let store: RegistryStore;
let registry: Registry;
let server: Awaited<ReturnType<typeof startRegistryServer>>;

beforeEach(async () => {
  site = await startAgentSite();
  store = createInMemoryRegistryStore();
  registry = createRegistry({ store, allowLoopback: true });
  server = await startRegistryServer(registry, { publicUrl: 'https://registry.example' });
});
afterEach(async () => {
  await server.close();
  await site.close();
});

async function enrollSite() {
  const agent = publishAgent(site);
  const response = await server.admin('/admin/enroll', { card: agent.text, jwks: agent.jwks, tier: 'gold' });
  expect(response.status).toBe(201);
  return agent;
}

describe('admin endpoints', () => {
  it('refuse a call without, or with a wrong, operator credential', async () => {
    const agent = publishAgent(site);
    const none = await fetch(`${server.url}/admin/enroll`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ card: agent.text }),
    });
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toContain('Bearer');
    const wrong = await server.admin('/admin/enroll', { card: agent.text }, 'operator-token-0123456780');
    expect(wrong.status).toBe(401);
    expect((await registry.searchAgents({ includeInactive: true })).agents).toEqual([]);
  });

  it('answer a refused enrollment with 422 and its reason, a revoked key with 409', async () => {
    const agent = publishAgent(site);
    const tampered = JSON.parse(agent.text);
    tampered.name = 'evil';
    const refused = await server.admin('/admin/enroll', { card: JSON.stringify(tampered), jwks: agent.jwks });
    expect(refused.status).toBe(422);
    expect(await refused.json()).toMatchObject({ error: { code: 'ENROLLMENT_REFUSED', reason: 'tampered' } });
    await server.admin('/admin/enroll', { card: agent.text, jwks: agent.jwks });
    const revoked = await server.admin(`/admin/agents/${agent.agentId}/revoke`, { reason: 'leaked' });
    expect(await revoked.json()).toMatchObject({ agent: { status: 'revoked', statusReason: 'leaked' } });
    const again = await server.admin('/admin/enroll', { card: agent.text, jwks: agent.jwks });
    expect(again.status).toBe(409);
    expect(await again.json()).toMatchObject({ error: { reason: 'revoked' } });
    const enable = await server.admin(`/admin/agents/${agent.agentId}/enable`, {});
    expect(enable.status).toBe(409);
  });

  it('bound and validate bodies: 413 past the limit, 415 for another media type, 400 for bad JSON or unknown members', async () => {
    const big = await server.admin('/admin/enroll', { card: 'x'.repeat(300_000) });
    expect(big.status).toBe(413);
    const text = await fetch(`${server.url}/search`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: '{}' });
    expect(text.status).toBe(415);
    const broken = await fetch(`${server.url}/search`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"query":',
    });
    expect(broken.status).toBe(400);
    expect(await broken.json()).toEqual({ error: { code: 'INVALID_JSON', message: 'request body is not JSON' } });
    const unknown = await server.post('/search', { query: 'x', sql: 'DROP TABLE' });
    expect(unknown.status).toBe(400);
    const badSize = await server.post('/search', { pageSize: 1000 });
    expect(badSize.status).toBe(400);
  });

  it('refuse to start with an operator token shorter than 16 characters', () => {
    expect(() => createRegistryRequestHandler(registry, { operatorTokens: { ops: 'short' } })).toThrow(RangeError);
  });

  it('answer an unexpected failure with a bare 500, no stack trace', async () => {
    const failing: RegistryStore = {
      ...store,
      search: async () => {
        throw new Error('connection string postgres://secret@db');
      },
    };
    const broken = await startRegistryServer(createRegistry({ store: failing }));
    try {
      const response = await fetch(`${broken.url}/agents`);
      expect(response.status).toBe(500);
      const body = await response.text();
      expect(JSON.parse(body)).toEqual({ error: { code: 'INTERNAL', message: 'internal error' } });
      expect(body).not.toContain('secret');
    } finally {
      await broken.close();
    }
  });
});

describe('discovery', () => {
  it('serves the AI Catalog with one application/a2a-agent-card+json entry per active agent', async () => {
    const agent = await enrollSite();
    const response = await fetch(`${server.url}/.well-known/ai-catalog.json`);
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    const catalog = await response.json();
    expect(catalog).toMatchObject({ specVersion: '1.0', host: { displayName: 'a2aplane registry' } });
    expect(catalog.entries).toEqual([
      expect.objectContaining({
        identifier: `urn:air:127.0.0.1:agent:${agent.agentId}`,
        displayName: 'weather',
        type: 'application/a2a-agent-card+json',
        url: `https://registry.example/agents/${agent.agentId}/card`,
        capabilities: ['forecast'],
        tags: ['weather', 'geo'],
      }),
    ]);
  });

  it('serves each agent signed card byte for byte as enrolled, and its current JWKS', async () => {
    const agent = await enrollSite();
    expect(await (await fetch(`${server.url}/agents/${agent.agentId}/card`)).text()).toBe(agent.text);
    expect(await (await fetch(`${server.url}/agents/${agent.agentId}/jwks.json`)).json()).toEqual({
      keys: [expect.objectContaining({ kty: 'OKP', crv: 'Ed25519', kid: agent.key.kid })],
    });
    await registry.disable(agent.agentId);
    expect((await fetch(`${server.url}/agents/${agent.agentId}/card`)).status).toBe(404);
    expect((await (await fetch(`${server.url}/.well-known/ai-catalog.json`)).json()).entries).toEqual([]);
    expect(await (await fetch(`${server.url}/agents/${agent.agentId}/jwks.json`)).json()).toEqual({ keys: [] });
  });

  it('ARD search finds agents by skill id, tag and free text, with the signed card inline', async () => {
    const agent = await enrollSite();
    for (const body of [{ filters: { skill: 'forecast' } }, { filters: { tag: 'geo' } }, { query: 'CITY forecasts' }]) {
      const result = await (await server.post('/search', body)).json();
      expect(result.results.map((entry: { data: { name: string } }) => entry.data.name)).toEqual(['weather']);
      expect(result.results[0]['x-a2aplane']).toMatchObject({ agentId: agent.agentId, status: 'active', tier: 'gold' });
    }
    expect((await (await server.post('/search', { filters: { skill: 'translate' } })).json()).results).toEqual([]);
    expect((await (await server.post('/search', { filters: { type: 'application/mcp-server+json' } })).json()).results).toEqual([]);
  });

  it('search and GET /agents page through every agent once', async () => {
    for (let index = 0; index < 45; index++) await store.put(sampleAgentRecord({ id: `a${String(index).padStart(2, '0')}` }), null);
    const seen: string[] = [];
    let token: string | undefined;
    do {
      const result = await (
        await server.post('/search', { filters: { skill: 'echo' }, pageSize: 20, ...(token ? { pageToken: token } : {}) })
      ).json();
      seen.push(...result.results.map((entry: { 'x-a2aplane': { agentId: string } }) => entry['x-a2aplane'].agentId));
      token = result.nextPageToken;
    } while (token);
    expect(new Set(seen).size).toBe(45);
    const listed = await (await fetch(`${server.url}/agents?pageSize=40`)).json();
    expect(listed.agents).toHaveLength(40);
    const rest = await (await fetch(`${server.url}/agents?pageSize=40&pageToken=${listed.nextPageToken}`)).json();
    expect(rest.agents).toHaveLength(5);
    expect(rest.nextPageToken).toBeUndefined();
    expect((await fetch(`${server.url}/agents?bogus=1`)).status).toBe(400);
  });

  it('the HTTP reader sees what the registry holds', async () => {
    const agent = await enrollSite();
    const reader = createRegistryHttpReader({ baseUrl: server.url });
    expect((await reader.lookupAgent(agent.agentId))?.agentId).toBe(agent.agentId);
    expect(await reader.lookupAgent('0'.repeat(64))).toBeUndefined();
    expect((await reader.findByOrigin(site.origin))?.agentId).toBe(agent.agentId);
    expect((await reader.searchAgents({ skill: 'forecast' })).agents.map((a) => a.agentId)).toEqual([agent.agentId]);
    await registry.revoke(agent.agentId);
    expect((await reader.findByOrigin(site.origin))?.status).toBe('revoked');
    expect((await reader.searchAgents({ skill: 'forecast' })).agents).toEqual([]);
  });
});
