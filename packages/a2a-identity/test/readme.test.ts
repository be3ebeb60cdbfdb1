// Runs the README quick start verbatim (module names rewritten to the source).
import {
  agentIdFromPublicKey,
  createJwks,
  createPinnedKeyResolver,
  createVerificationCache,
  generateKeyPair,
  readDeclaredAgentId,
  signAgentCard,
  verifyAgentCard,
  withAgentIdExtension,
} from '../src/index.js';
import type { AgentCard } from '@a2aplane/a2a-types';
import { expect, it, vi } from 'vitest';

it('README quick start runs', async () => {
  const log = vi.spyOn(console, 'log').mockImplementation(() => undefined);

  // --- Server: sign once at startup, serve the same bytes on every request.
  const key = generateKeyPair('EdDSA'); // kid defaults to the AgentID
  const agentId = agentIdFromPublicKey(key.publicKey);
  const card: AgentCard = withAgentIdExtension(
    {
      name: 'Echo',
      description: 'Repeats what you say',
      version: '1.0.0',
      supportedInterfaces: [{ url: 'https://echo.example.com/a2a', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
      capabilities: { streaming: true },
      defaultInputModes: ['text/plain'],
      defaultOutputModes: ['text/plain'],
      skills: [{ id: 'echo', name: 'Echo', description: 'Echoes input', tags: ['demo'] }],
    },
    agentId,
  );
  const signed = signAgentCard(card, key, { jku: 'https://echo.example.com/.well-known/jwks.json' });
  // GET /.well-known/agent-card.json -> signed.json
  // GET /.well-known/jwks.json       -> JSON.stringify(createJwks([key]))
  const jwks = createJwks([key]);

  // --- Client: verify on discover, against keys you trust.
  const resolver = createPinnedKeyResolver(jwks.keys);
  const cache = createVerificationCache();
  const result = await verifyAgentCard(signed.json, resolver, { cache });
  if (result.status !== 'valid') throw new Error(`refusing peer: ${result.status}`);
  // Bind the AgentID the card declares to the key that signed it (ADR-159 r2).
  if (readDeclaredAgentId(JSON.parse(signed.json)) !== result.agentId) throw new Error('agent_id does not match the signing key');
  console.log(result.agentId === agentId); // true

  expect(log).toHaveBeenCalledWith(true);
  log.mockRestore();
});
