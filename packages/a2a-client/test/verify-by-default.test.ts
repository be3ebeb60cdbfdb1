import { type CardCase, cardCase, JWKS_PATH } from '@a2aplane/test-utils';
import { agentIdFromPublicKey, createJwks, exportPublicJwk, generateKeyPair } from '@a2aplane/a2a-identity';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { CardResolver, CardSignatureInvalidError, createA2AClient, discoverAgentCard } from '../src/index.js';
import { cardFor, json, startServer, type TestServer } from './helpers/server.js';
import { causedBy, loadFailure } from './helpers/chunks.js';

const agent = generateKeyPair('EdDSA');
const victim = generateKeyPair('EdDSA');
let current: CardCase = 'valid';
let server: TestServer;
let foreign: TestServer;

beforeAll(async () => {
  foreign = await startServer((req, res) => (req.url === JWKS_PATH ? json(res, 200, createJwks([agent])) : json(res, 404, {})));
  server = await startServer((req, res) => {
    const served = cardCase(current, cardFor(server.url), server.url, { agent, victim, foreignOrigin: foreign.url });
    if (req.url === '/.well-known/agent-card.json') {
      res.writeHead(200, { 'content-type': 'application/json' });
      return res.end(served.text);
    }
    if (req.url === JWKS_PATH) return json(res, 200, served.jwks);
    json(res, 404, {});
  });
});
afterAll(async () => {
  await Promise.all([server.close(), foreign.close()]);
});

/** The test servers are loopback http: their same-origin `jku` needs the development flag. */
const dev = { allowInsecureLoopback: true } as const;

describe('discovery verifies every signed card by default', () => {
  it('a card signed by its own key, with its JWKS on its own origin, is valid and reports the AgentID', async () => {
    current = 'valid';
    const discovered = await new CardResolver(dev).resolve(server.url);
    expect(discovered.verification).toMatchObject({ status: 'valid', kid: agent.kid, agentId: agentIdFromPublicKey(agent.publicKey) });
  });

  it('an unsigned card is accepted and reported as unsigned; requireSignedCard refuses it', async () => {
    current = 'unsigned';
    expect((await new CardResolver().resolve(server.url)).verification).toEqual({ status: 'no-signature' });
    await expect(new CardResolver({ requireSignedCard: true }).resolve(server.url)).rejects.toSatisfy(
      (e: unknown) => CardSignatureInvalidError.isInstance(e) && e.status === 'no-signature',
    );
  });

  it.each([
    ['tampered', 'tampered'],
    ['swapped-key', 'tampered'],
    ['agent-id-mismatch', 'agent-id-mismatch'],
    ['alg-none', 'unsupported-algorithm'],
    ['unknown-crit', 'unsupported-algorithm'],
    ['foreign-jku', 'untrusted-key'],
  ] as const)('%s card -> CardSignatureInvalidError (%s) and no RPC is sent', async (kind, status) => {
    current = kind;
    const before = server.requests.length;
    const client = createA2AClient({ baseUrl: server.url, ...dev, retry: { retries: 0 } });
    const error = await client
      .sendMessage({ message: { messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'x' }] } })
      .catch((e: unknown) => e);
    expect(CardSignatureInvalidError.isInstance(error)).toBe(true);
    expect((error as CardSignatureInvalidError).status).toBe(status);
    expect(server.requests.slice(before).some((r) => r.url.startsWith('/a2a'))).toBe(false);
  });

  it('without the development flag a loopback http jku is not fetched: the valid card fails closed (untrusted-key)', async () => {
    current = 'valid';
    const before = server.requests.length;
    await expect(discoverAgentCard(server.url)).rejects.toSatisfy(
      (e: unknown) => CardSignatureInvalidError.isInstance(e) && e.status === 'untrusted-key',
    );
    expect(server.requests.slice(before).map((r) => r.url)).toEqual(['/.well-known/agent-card.json']);
  });

  it('the refusal names the fix: pin the key with trustedKeys, or the development flag for loopback http', async () => {
    current = 'valid';
    const error = await discoverAgentCard(server.url).catch((e: unknown) => e);
    expect(CardSignatureInvalidError.isInstance(error)).toBe(true);
    expect((error as Error).message).toMatch(/`trustedKeys`.*`allowInsecureLoopback: true`/);
  });

  it('jkuPrefixes trusts a key server on another origin', async () => {
    current = 'foreign-jku';
    const discovered = await new CardResolver({ ...dev, jkuPrefixes: [`${foreign.url}/`] }).resolve(server.url);
    expect(discovered.verification).toMatchObject({ status: 'valid', agentId: agentIdFromPublicKey(agent.publicKey) });
  });

  it('pinned keys: the agent key verifies without any jku fetch; another pinned key refuses the card', async () => {
    current = 'valid';
    const before = server.requests.length;
    const pinned = await new CardResolver({ trustedKeys: [exportPublicJwk(agent)] }).resolve(server.url);
    expect(pinned.verification.status).toBe('valid');
    expect(server.requests.slice(before).map((r) => r.url)).toEqual(['/.well-known/agent-card.json']);
    await expect(new CardResolver({ trustedKeys: [exportPublicJwk(victim)] }).resolve(server.url)).rejects.toSatisfy(
      (e: unknown) => CardSignatureInvalidError.isInstance(e) && e.status === 'untrusted-key',
    );
  });

  it('pinned keys refuse a tampered card and an AgentID mismatch too', async () => {
    for (const [kind, status] of [
      ['tampered', 'tampered'],
      ['agent-id-mismatch', 'agent-id-mismatch'],
    ] as const) {
      current = kind;
      await expect(new CardResolver({ trustedKeys: [exportPublicJwk(agent)] }).resolve(server.url)).rejects.toSatisfy(
        (e: unknown) => CardSignatureInvalidError.isInstance(e) && e.status === status,
      );
    }
  });
});

describe('the verifier, part of the discovery code loaded on demand (decision 0090)', () => {
  // a2a-identity's verifier, which the discovery code imports.
  const CHUNK = '@a2aplane/a2a-identity/verify';

  // Retrying the load is discovery-on-demand.test.ts's (a module that failed to evaluate stays failed in the loader's cache).
  it('discovery whose verifier cannot load fails closed: no card, a retryable transport error', async () => {
    current = 'valid';
    vi.resetModules();
    vi.doMock(CHUNK, () => {
      throw loadFailure;
    });
    try {
      const fresh = await import('../src/index.js');
      const resolver = new fresh.CardResolver(dev);
      const error = await resolver.resolve(server.url).catch((e: unknown) => e);
      expect(fresh.A2ATransportError.isInstance(error) && error.retryable).toBe(true);
      expect(causedBy(error, loadFailure)).toBe(true);
    } finally {
      vi.doUnmock(CHUNK);
      vi.resetModules();
    }
  });
});
