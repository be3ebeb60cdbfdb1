import { agentIdFromPublicKey, generateKeyPair, signAgentCard, withAgentIdExtension } from '@a2aplane/a2a-identity';
import { CardSignatureInvalidError, createA2AClient } from '@a2aplane/a2a-client';
import { createAuthenticator, createStaticApiKeyVerifier } from '@a2aplane/a2a-server-express';
import type { AgentCard } from '@a2aplane/a2a-types';
import { credentials } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGrpcTransportFactory, type GrpcTransportFactory } from '../src/index.js';
import { baseCard, startAgent, type TestAgent } from './helpers.js';

/**
 * Over gRPC too, GetExtendedAgentCard's card is verified like the public card: a card signed by the
 * pinned key survives the protobuf round trip and verifies; a tampered one is refused.
 */
const key = generateKeyPair('EdDSA');
let kind: 'signed' | 'tampered' | 'unsigned' = 'signed';
let agent: TestAgent;
let factory: GrpcTransportFactory;

beforeAll(async () => {
  const card = baseCard({ securitySchemes: { key: { apiKeySecurityScheme: { location: 'header', name: 'x-api-key' } } } });
  agent = await startAgent({
    card,
    executor: { async execute() {} },
    authenticate: createAuthenticator({
      securitySchemes: card.securitySchemes ?? {},
      apiKey: createStaticApiKeyVerifier({ k: { id: 'a', scheme: 'key' } }),
    }),
    extendedCard: () => {
      const own = withAgentIdExtension({ ...card, name: 'extended' }, agentIdFromPublicKey(key.publicKey));
      if (kind === 'unsigned') return own;
      const signed = signAgentCard(own, key).card as AgentCard;
      return kind === 'tampered' ? { ...signed, description: 'changed after signing' } : signed;
    },
  });
  factory = createGrpcTransportFactory({ credentials: credentials.createInsecure() });
});
afterAll(async () => {
  factory?.close();
  await agent?.close();
});

const client = (options: { requireSignedCard?: boolean } = {}) =>
  createA2AClient({
    card: agent.card,
    transports: { GRPC: factory },
    preferredBindings: ['GRPC'],
    headers: { 'x-api-key': 'k' },
    trustedKeys: [key],
    retry: { retries: 0 },
    ...options,
  });

describe('GRPC: the extended card is verified like the public card', () => {
  it('signed by the pinned key: returned', async () => {
    kind = 'signed';
    await expect(client().getExtendedAgentCard()).resolves.toMatchObject({ name: 'extended' });
  });

  it('tampered: CardSignatureInvalidError (tampered)', async () => {
    kind = 'tampered';
    await expect(client().getExtendedAgentCard()).rejects.toSatisfy(
      (e: unknown) => CardSignatureInvalidError.isInstance(e) && e.status === 'tampered',
    );
  });

  it('unsigned: accepted by default, refused by requireSignedCard', async () => {
    kind = 'unsigned';
    await expect(client().getExtendedAgentCard()).resolves.toMatchObject({ name: 'extended' });
    await expect(client({ requireSignedCard: true }).getExtendedAgentCard()).rejects.toSatisfy(
      (e: unknown) => CardSignatureInvalidError.isInstance(e) && e.status === 'no-signature',
    );
  });
});
