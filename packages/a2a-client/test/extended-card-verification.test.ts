import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { agentIdFromPublicKey, generateKeyPair } from '@a2aplane/a2a-identity';
import {
  type A2AServer,
  createA2AServer,
  createAgentCard,
  createAuthenticator,
  createNodeHttpHandler,
  createStaticApiKeyVerifier,
} from '@a2aplane/a2a-server-express';
import type { AgentCard } from '@a2aplane/a2a-types';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CardSignatureInvalidError, createA2AClient } from '../src/index.js';
import { type CardCase, cardCase } from '@a2aplane/test-utils';

/**
 * GetExtendedAgentCard's card is verified the way discovery verifies the public card: the same
 * verifier and trust inputs (pinned keys, or the signature's same-origin `jku`; the AgentID binding),
 * the same unsigned-card policy and the same typed refusal, on every HTTP binding, against our server.
 */
const agentKey = generateKeyPair('EdDSA');
const victim = generateKeyPair('EdDSA');
let current: CardCase = 'valid';
let served: { text: string; jwks: { keys: readonly object[] } } | undefined;
let url: string;
let card: AgentCard;
let http: Server;
let server: A2AServer;

beforeAll(async () => {
  http = createServer();
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  card = createAgentCard({
    baseUrl: url,
    name: 'extended agent',
    description: 'd',
    skills: [{ id: 'echo', name: 'e', description: 'e', tags: [] }],
    capabilities: { extendedAgentCard: true },
    securitySchemes: { key: { apiKeySecurityScheme: { location: 'header', name: 'x-api-key' } } },
  });
  const extendedCard = { ...card, name: 'extended agent (extended)' };
  server = createA2AServer({
    card,
    executor: { async execute() {} },
    authenticate: createAuthenticator({
      securitySchemes: card.securitySchemes ?? {},
      apiKey: createStaticApiKeyVerifier({ k: { id: 'alice', scheme: 'key' } }),
    }),
    // The agent serves the case's text as its extended card (signed, tampered, unsigned, ...).
    extendedCard: () => {
      served = cardCase(current, extendedCard, url, { agent: agentKey, victim, foreignOrigin: 'https://foreign.example' });
      return JSON.parse(served.text) as AgentCard;
    },
  });
  const handler = createNodeHttpHandler(server, {
    jwks: cardCase('valid', card, url, { agent: agentKey, victim, foreignOrigin: '' }).jwks,
  });
  http.on('request', handler);
});
afterAll(async () => {
  await server?.close();
  http?.closeAllConnections();
  await new Promise<void>((resolve) => http?.close(() => resolve()));
});

const BINDINGS = ['JSONRPC', 'HTTP+JSON'] as const;
const clientFor = (binding: (typeof BINDINGS)[number], options: Parameters<typeof createA2AClient>[0] = {}) =>
  createA2AClient({ card, preferredBindings: [binding], headers: { 'x-api-key': 'k' }, retry: { retries: 0 }, ...options });
const pinned = { trustedKeys: [agentKey] };
const refusal = (status: string) => (e: unknown) => CardSignatureInvalidError.isInstance(e) && e.status === status;

describe.each(BINDINGS)('GetExtendedAgentCard over %s is verified like the public card', (binding) => {
  it('a card signed by a pinned key is returned', async () => {
    current = 'valid';
    const extended = await clientFor(binding, pinned).getExtendedAgentCard();
    expect(extended.name).toBe('extended agent (extended)');
    expect(extended.signatures?.length).toBe(1);
  });

  it('a signed card is verified with the key of its same-origin jku when no key is pinned (development flag for loopback)', async () => {
    current = 'valid';
    await expect(clientFor(binding, { allowInsecureLoopback: true }).getExtendedAgentCard()).resolves.toMatchObject({
      name: 'extended agent (extended)',
    });
    // Without the flag the loopback http jku is not fetched: fail closed, as discovery does.
    await expect(clientFor(binding).getExtendedAgentCard()).rejects.toSatisfy(refusal('untrusted-key'));
  });

  it.each([
    ['tampered', 'tampered'],
    ['swapped-key', 'tampered'],
    ['agent-id-mismatch', 'agent-id-mismatch'],
    ['alg-none', 'unsupported-algorithm'],
  ] as const)('a %s card is refused with CardSignatureInvalidError (%s)', async (kind, status) => {
    current = kind;
    await expect(clientFor(binding, pinned).getExtendedAgentCard()).rejects.toSatisfy(refusal(status));
  });

  it('a card signed by a key that is not the pinned one is refused (untrusted-key)', async () => {
    current = 'valid';
    await expect(clientFor(binding, { trustedKeys: [victim] }).getExtendedAgentCard()).rejects.toSatisfy(refusal('untrusted-key'));
  });

  it('an unsigned card follows the unsigned-card policy: accepted by default, refused by requireSignedCard; a custom cardVerifier is used', async () => {
    current = 'unsigned';
    await expect(clientFor(binding, pinned).getExtendedAgentCard()).resolves.toMatchObject({ name: 'extended agent (extended)' });
    await expect(clientFor(binding, { ...pinned, requireSignedCard: true }).getExtendedAgentCard()).rejects.toSatisfy(
      refusal('no-signature'),
    );
    const verified: string[] = [];
    const custom = clientFor(binding, {
      cardVerifier: async (text) => {
        verified.push(text);
        return { status: 'valid', kid: 'k', agentId: agentIdFromPublicKey(agentKey.publicKey) } as never;
      },
    });
    await custom.getExtendedAgentCard();
    // A custom verifier sees the extended card as the agent sent it.
    expect(verified).toHaveLength(1);
    expect(JSON.parse(verified[0] as string)).toEqual(JSON.parse(served?.text as string));
  });
});
