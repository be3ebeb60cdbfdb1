// A signed card: make a key, derive the AgentID from it, declare it in the card, sign the card
// with a `jku` pointing at the agent's own JWKS, and have the client verify it on discovery
// (a tampered or unsigned card is refused before any call is made).
// Run: pnpm --filter examples example src/signed-card.ts
import { pathToFileURL } from 'node:url';
import { createA2AClient } from '@a2aplane/a2a-client';
import {
  agentIdFromPublicKey,
  createJwks,
  createJwksKeyResolver,
  generateKeyPair,
  signAgentCard,
  verifyAgentCard,
  withAgentIdExtension,
} from '@a2aplane/a2a-identity';
import { createAgentCard, DEFAULT_JWKS_PATH } from '@a2aplane/a2a-server-express';
import { startShouter } from './serve-agent.js';

export async function signedCardRoundTrip(): Promise<{ agentId: string; verification: string; answer: string | undefined }> {
  // In production, load the private JWK from a secret store (a2a keygen --out agent.jwk writes one).
  const key = generateKeyPair('EdDSA');
  const agentId = agentIdFromPublicKey(key.publicKey); // 64 hex characters: the agent's stable identity
  const agent = await startShouter({
    card: (baseUrl) =>
      withAgentIdExtension(
        createAgentCard({
          baseUrl,
          name: 'Signed Shouter',
          description: 'Answers in capitals, with a signed card.',
          skills: [{ id: 'shout', name: 'Shout', description: 'Upper-cases text.', tags: ['example'] }],
        }),
        agentId,
      ),
    http: {
      // The binding signs the card once and serves the public key at /.well-known/jwks.json.
      cardSigner: {
        sign: (card) =>
          signAgentCard(card, key, { jku: `${card.supportedInterfaces[0]!.url.replace(/\/a2a\/.*$/, '')}${DEFAULT_JWKS_PATH}` }),
      },
      jwks: createJwks([key]),
    },
  });
  try {
    // Loopback http is allowed for the example; a deployed agent serves its JWKS over https.
    const resolver = createJwksKeyResolver({ allowInsecureLoopback: true });
    let verification = 'not checked';
    const client = createA2AClient({
      baseUrl: agent.url,
      cardVerifier: async (json) => {
        const result = await verifyAgentCard(json, resolver);
        verification = result.status;
        return result;
      },
      unsignedCardPolicy: 'reject',
    });
    const { task } = await client.sendMessage({
      message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text: 'signed hello' }] },
    });
    const answer = task?.artifacts?.[0]?.parts
      .map((p) => p.text)
      .join('')
      .trim();
    return { agentId, verification, answer };
  } finally {
    await agent.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  console.log(await signedCardRoundTrip());
}
