import { afterEach, describe, expect, it } from 'vitest';
import {
  AgentCardDiscoveryError,
  CardResolver,
  CardSignatureInvalidError,
  type CardVerificationResult,
  createA2AClient,
  discoverAgentCard,
} from '../src/index.js';
import { cardFor, json, startServer, type TestServer } from './helpers/server.js';

const servers: TestServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});
async function serve(handler: Parameters<typeof startServer>[0]): Promise<TestServer> {
  const server = await startServer(handler);
  servers.push(server);
  return server;
}

describe('agent card discovery (spec §8.2)', () => {
  it('GETs /.well-known/agent-card.json and validates the card', async () => {
    const server = await serve((req, res) => {
      if (req.url === '/.well-known/agent-card.json') return json(res, 200, cardFor(server.url));
      json(res, 404, {});
    });
    const card = await discoverAgentCard(server.url);
    expect(card.name).toBe('Test agent');
    expect(server.requests.map((r) => r.url)).toEqual(['/.well-known/agent-card.json']);
  });

  it('falls back to the legacy /.well-known/agent.json and normalizes a v0.3 card', async () => {
    const server = await serve((req, res) => {
      if (req.url === '/.well-known/agent.json') {
        return json(res, 200, {
          protocolVersion: '0.3.0',
          name: 'Legacy',
          description: 'v0.3 agent',
          url: `${server.url}/rpc`,
          preferredTransport: 'JSONRPC',
          additionalInterfaces: [{ url: `${server.url}/rest`, transport: 'HTTP+JSON' }],
          version: '1',
          capabilities: { streaming: true },
          defaultInputModes: ['text/plain'],
          defaultOutputModes: ['text/plain'],
          skills: [],
        });
      }
      json(res, 404, {});
    });
    const discovered = await new CardResolver().resolve(server.url);
    expect(discovered.legacy).toBe(true);
    expect(discovered.card.supportedInterfaces).toEqual([
      { url: `${server.url}/rpc`, protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
      { url: `${server.url}/rest`, protocolBinding: 'HTTP+JSON', protocolVersion: '0.3' },
    ]);
  });

  it('a legacy card goes through the v0_3 translator first when given, and through the normalizer when it refuses', async () => {
    const legacyCard = {
      protocolVersion: '0.3.0',
      name: 'Legacy',
      description: 'v0.3',
      url: 'http://x/rpc',
      version: '1',
      capabilities: {},
    };
    const server = await serve((req, res) => {
      if (req.url === '/.well-known/agent.json') return json(res, 200, legacyCard);
      json(res, 404, {});
    });
    const translatedCard = cardFor('http://translated.test');
    const seen: unknown[] = [];
    const support = (success: boolean) => ({
      load: async () =>
        ({
          agentCardFromV03: (value: unknown) => {
            seen.push(value);
            return success ? { success, data: translatedCard } : { success, error: new Error('refused') };
          },
        }) as never,
    });
    const translated = await new CardResolver({ v0_3: support(true) }).resolve(server.url);
    expect(translated.card.supportedInterfaces).toEqual(translatedCard.supportedInterfaces);
    const normalized = await new CardResolver({ v0_3: support(false) }).resolve(server.url);
    expect(normalized.card.supportedInterfaces).toEqual([{ url: 'http://x/rpc', protocolBinding: 'JSONRPC', protocolVersion: '0.3' }]);
    expect(seen).toEqual([legacyCard, legacyCard]);
  });

  it('reports a missing card as AgentCardDiscoveryError(not-found)', async () => {
    const server = await serve((_req, res) => json(res, 404, {}));
    const error = await discoverAgentCard(server.url).catch((e: unknown) => e);
    expect(AgentCardDiscoveryError.isInstance(error)).toBe(true);
    expect((error as AgentCardDiscoveryError).kind).toBe('not-found');
  });

  it('reports a malformed card with its field violations', async () => {
    const server = await serve((_req, res) => json(res, 200, { name: 'x' }));
    const error = await discoverAgentCard(server.url).catch((e: unknown) => e);
    expect((error as AgentCardDiscoveryError).kind).toBe('malformed');
    expect((error as AgentCardDiscoveryError).violations.length).toBeGreaterThan(0);
  });
});

describe('card caching (spec §8.6.2)', () => {
  it('serves from cache within the TTL, then revalidates with If-None-Match; 304 keeps the card', async () => {
    let now = 0;
    const server = await serve((req, res) => {
      if (req.headers['if-none-match'] === '"v1"') {
        res.writeHead(304, { ETag: '"v1"' });
        return res.end();
      }
      json(res, 200, cardFor(server.url), { ETag: '"v1"', 'Cache-Control': 'max-age=60' });
    });
    const resolver = new CardResolver({ now: () => now });
    const first = await resolver.resolve(server.url);
    now = 30_000;
    expect(await resolver.resolve(server.url)).toBe(first);
    expect(server.requests).toHaveLength(1);
    now = 61_000;
    const revalidated = await resolver.resolve(server.url);
    expect(revalidated).toBe(first);
    expect(server.requests).toHaveLength(2);
    expect(server.requests[1]!.headers['if-none-match']).toBe('"v1"');
  });
});

describe('verify-on-discover (ADR-159 M3)', () => {
  const tampered = async (): Promise<CardVerificationResult> => ({ status: 'tampered', keyId: 'k1' });

  it('a card with a bad signature fails with CardSignatureInvalidError and no RPC is made', async () => {
    const server = await serve((req, res) => {
      if (req.url === '/.well-known/agent-card.json') return json(res, 200, cardFor(server.url));
      json(res, 500, {});
    });
    const client = createA2AClient({ baseUrl: server.url, cardVerifier: tampered });
    const error = await client
      .sendMessage({ message: { messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'x' }] } })
      .catch((e: unknown) => e);
    expect(CardSignatureInvalidError.isInstance(error)).toBe(true);
    expect((error as CardSignatureInvalidError).result).toEqual({ status: 'tampered', keyId: 'k1' });
    expect(server.requests.map((r) => r.url)).toEqual(['/.well-known/agent-card.json']);
  });

  it('verifies over the raw response text', async () => {
    let seen = '';
    const raw = `{ "name": "Test agent" , ${JSON.stringify(cardFor('http://x')).slice(1)}`;
    const server = await serve((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(raw);
    });
    await discoverAgentCard(server.url, {
      cardVerifier: async (json) => {
        seen = json;
        return { status: 'valid' };
      },
    });
    expect(seen).toBe(raw);
  });

  it.each(['untrusted-key', 'unsupported-algorithm', 'malformed'] as const)('rejects status %s even with policy allow', async (status) => {
    const server = await serve((_req, res) => json(res, 200, cardFor('http://x')));
    await expect(discoverAgentCard(server.url, { cardVerifier: async () => ({ status }), unsignedCardPolicy: 'allow' })).rejects.toSatisfy(
      (e: unknown) => CardSignatureInvalidError.isInstance(e),
    );
  });

  it('applies unsignedCardPolicy to no-signature: allow, warn, reject', async () => {
    const server = await serve((_req, res) => json(res, 200, cardFor('http://x')));
    const verifier = async (): Promise<CardVerificationResult> => ({ status: 'no-signature' });
    await expect(discoverAgentCard(server.url, { cardVerifier: verifier })).resolves.toBeTruthy();
    const warnings: string[] = [];
    await discoverAgentCard(server.url, { cardVerifier: verifier, unsignedCardPolicy: 'warn', onWarning: (m) => warnings.push(m) });
    expect(warnings).toHaveLength(1);
    await expect(discoverAgentCard(server.url, { cardVerifier: verifier, unsignedCardPolicy: 'reject' })).rejects.toSatisfy((e: unknown) =>
      CardSignatureInvalidError.isInstance(e),
    );
    // Without a verifier, 'reject' refuses cards that carry no signatures at all.
    await expect(discoverAgentCard(server.url, { unsignedCardPolicy: 'reject' })).rejects.toSatisfy((e: unknown) =>
      CardSignatureInvalidError.isInstance(e),
    );
  });
});
