import type { AgentCard, AgentCardSignature } from '@a2aplane/a2a-types';
import { encodeBase64Url } from './base64url.js';
import { canonicalCardPayload } from './card-canonical.js';
import { describeValue } from '@a2aplane/a2a-types';
import { signBytes } from './jws.js';
import { isKeyPair, isSigningAlgorithm, type KeyPair } from './key-types.js';

export interface SignAgentCardOptions {
  /** URL of the JWKS that holds the public keys; goes into every protected header. */
  jku?: string;
  /** Keep signatures already on the card (adding a key during rotation) instead of replacing them. */
  keepExisting?: boolean;
}

export interface SignedCard {
  /** The card with its `signatures`. */
  card: AgentCard;
  /** JSON text to serve, computed once: serve these bytes, do not re-serialize per request. */
  json: string;
  /** The signed bytes (spec §8.4.1); a stable cache key for the card's content. */
  canonicalPayload: Uint8Array;
}

/**
 * Signs an agent card (spec §8.4.2): JWS over the JCS of the card with defaults and `signatures`
 * removed, protected header `{"alg","typ":"JOSE","kid","jku"?}`, one signature per key.
 * Sign once at startup and serve `json`; re-sign only when the card changes.
 */
export function signAgentCard(
  card: AgentCard | Record<string, unknown>,
  keys: KeyPair | KeyPair[],
  options?: SignAgentCardOptions,
): SignedCard {
  if (typeof card !== 'object' || card === null || Array.isArray(card)) {
    throw new TypeError(`expected an agent card object, got ${card === null ? 'null' : Array.isArray(card) ? 'array' : typeof card}`);
  }
  const list = Array.isArray(keys) ? keys : [keys];
  if (list.length === 0) throw new RangeError('expected at least one signing key, got none');
  list.forEach((key, index) => {
    if (typeof key !== 'object' || key === null || !isKeyPair(key) || !isSigningAlgorithm(key.algorithm) || typeof key.kid !== 'string') {
      const got = typeof key === 'object' && key !== null && !isKeyPair(key) ? 'a key without privateKey' : describeValue(key);
      throw new TypeError(`expected a KeyPair (algorithm, kid, privateKey) at index ${index}, got ${got}`);
    }
  });
  if (options?.jku !== undefined && typeof options.jku !== 'string')
    throw new TypeError(`expected jku to be a string, got ${typeof options.jku}`);

  const canonicalPayload = canonicalCardPayload(card);
  const payloadB64 = encodeBase64Url(canonicalPayload);
  const encoder = new TextEncoder();
  const existing = options?.keepExisting && Array.isArray(card.signatures) ? (card.signatures as AgentCardSignature[]) : [];
  const signatures: AgentCardSignature[] = [...existing];
  for (const key of list) {
    const header: Record<string, string> = { alg: key.algorithm, typ: 'JOSE', kid: key.kid };
    if (options?.jku !== undefined) header.jku = options.jku;
    const protectedB64 = encodeBase64Url(encoder.encode(JSON.stringify(header)));
    const signature = signBytes(key, encoder.encode(`${protectedB64}.${payloadB64}`));
    signatures.push({ protected: protectedB64, signature: encodeBase64Url(signature) });
  }
  const signed = { ...card, signatures } as AgentCard;
  return { card: signed, json: JSON.stringify(signed), canonicalPayload };
}
