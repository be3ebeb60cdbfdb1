// Signed agent cards, valid and broken in each way a verifier must refuse, for the discovery tests
// of the client and the CLI (each serves them from a loopback agent).
import { createPrivateKey, sign } from 'node:crypto';
import {
  agentIdFromPublicKey,
  canonicalCardPayload,
  createJwks,
  encodeBase64Url,
  exportPrivateJwk,
  generateKeyPair,
  type KeyPair,
  signAgentCard,
  withAgentIdExtension,
} from '@a2aplane/a2a-identity';
import type { AgentCard } from '@a2aplane/a2a-types';

export const JWKS_PATH = '/.well-known/jwks.json';

/** Raw Ed25519 signature with `key` over `input` (to forge headers signAgentCard would not write). */
function rawSign(key: KeyPair, input: Uint8Array): Uint8Array {
  return new Uint8Array(sign(null, input, createPrivateKey({ key: exportPrivateJwk(key) as never, format: 'jwk' })));
}

/** One signature entry with the given protected header, signed by `key` over `card`. */
function forgeSignature(card: AgentCard, header: Record<string, unknown>, key: KeyPair) {
  const enc = new TextEncoder();
  const protectedB64 = encodeBase64Url(enc.encode(JSON.stringify(header)));
  const input = enc.encode(`${protectedB64}.${encodeBase64Url(canonicalCardPayload(card))}`);
  return { protected: protectedB64, signature: encodeBase64Url(rawSign(key, input)) };
}

export type CardCase =
  | 'valid'
  | 'unsigned'
  | 'tampered'
  | 'swapped-key'
  | 'agent-id-mismatch'
  | 'alg-none'
  | 'unknown-crit'
  | 'foreign-jku';

/**
 * The card text an agent at `origin` serves for each case, and the JWKS it serves. The agent's own
 * key signs and its AgentID is declared, except where the case says otherwise:
 * - tampered: a field changed after signing;
 * - swapped-key: signed by another key under the agent's kid (its JWKS holds the agent's key);
 * - agent-id-mismatch: declares `victim`'s AgentID, signed by the agent's own key (its JWKS holds it);
 * - alg-none: `alg: none` with an empty signature;
 * - unknown-crit: a correctly signed header with `crit: ["x-unknown"]`;
 * - foreign-jku: `jku` on `foreignOrigin`, which serves the agent's key.
 */
export function cardCase(
  kind: CardCase,
  card: AgentCard,
  origin: string,
  options: { agent: KeyPair; victim: KeyPair; foreignOrigin: string },
) {
  const { agent, victim } = options;
  const jku = `${origin}${JWKS_PATH}`;
  const own = withAgentIdExtension(card, agentIdFromPublicKey(agent.publicKey));
  const jwks = createJwks([agent]);
  switch (kind) {
    case 'valid':
      return { text: signAgentCard(own, agent, { jku }).json, jwks };
    case 'unsigned':
      return { text: JSON.stringify(own), jwks };
    case 'tampered': {
      const signed = signAgentCard(own, agent, { jku }).card;
      return { text: JSON.stringify({ ...signed, description: 'changed after signing' }), jwks };
    }
    case 'swapped-key': {
      const other = generateKeyPair('EdDSA');
      return {
        text: JSON.stringify({ ...own, signatures: [forgeSignature(own, { alg: 'EdDSA', typ: 'JOSE', kid: agent.kid, jku }, other)] }),
        jwks,
      };
    }
    case 'agent-id-mismatch': {
      const claimed = withAgentIdExtension(card, agentIdFromPublicKey(victim.publicKey));
      return { text: signAgentCard(claimed, agent, { jku }).json, jwks };
    }
    case 'alg-none': {
      const header = encodeBase64Url(new TextEncoder().encode(JSON.stringify({ alg: 'none', typ: 'JOSE', kid: agent.kid, jku })));
      return { text: JSON.stringify({ ...own, signatures: [{ protected: header, signature: '' }] }), jwks };
    }
    case 'unknown-crit':
      return {
        text: JSON.stringify({
          ...own,
          signatures: [forgeSignature(own, { alg: 'EdDSA', typ: 'JOSE', kid: agent.kid, jku, crit: ['x-unknown'], 'x-unknown': 1 }, agent)],
        }),
        jwks,
      };
    case 'foreign-jku':
      return { text: signAgentCard(own, agent, { jku: `${options.foreignOrigin}${JWKS_PATH}` }).json, jwks };
  }
}
