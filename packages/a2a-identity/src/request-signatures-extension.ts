import type { AgentCard, AgentExtension } from '@a2aplane/a2a-types';
import { ed25519 } from '@noble/curves/ed25519';
import { agentIdFromPublicKey, asObject, isAgentId, readDeclaredAgentId } from './agent-id.js';
import { decodeBase64Url } from './base64url.js';
import { describeValue } from '@a2aplane/a2a-types';
import type { VerificationKey } from './key-types.js';

/**
 * The card extension (A2A `AgentCapabilities.extensions`, spec "Extension Declaration") by which an
 * agent says which RFC 9421 request signatures it accepts (decision 0037). Data only: it needs no
 * activation (`A2A-Extensions`), since the `alg` of each signature says which one a request uses.
 * `params.algs`: the accepted `alg` values, `ed25519` and, when the server holds the key its card
 * is signed with, `hmac-sha256` (the fast path of decision 0028, keyed by that card-signing key).
 */
export const REQUEST_SIGNATURES_EXTENSION_URI = 'urn:a2aplane:extension:request-signatures:v1';

/** A request signature algorithm of the a2aplane profile. */
export type RequestSignatureAlg = 'ed25519' | 'hmac-sha256';

/** What a server accepts: structurally an `HttpSignatureVerifier` (its `algorithms` and `agentId`). */
export interface RequestSignatureAcceptance {
  readonly algorithms: readonly RequestSignatureAlg[];
  /** The AgentID of the server's own key (`ownKey`): the key the fast path agrees with. */
  readonly agentId?: string | undefined;
}

/**
 * A copy of `card` that advertises the request signatures `verifier` accepts. Call it after
 * `withAgentIdExtension` and before signing the card. Advertising `hmac-sha256` needs the card to
 * declare the AgentID of the verifier's `ownKey`: a caller derives the request key from the key
 * that signed the card, so a card signed with another key would have every fast-path request
 * refused. Throws a `TypeError` on that mismatch.
 */
export function withRequestSignaturesExtension(card: AgentCard, verifier: RequestSignatureAcceptance): AgentCard {
  if (typeof card !== 'object' || card === null || !Array.isArray(verifier?.algorithms))
    throw new TypeError(`expected a card and a verifier, got ${describeValue(card)} and ${describeValue(verifier)}`);
  const algs = verifier.algorithms.filter(isRequestSignatureAlg);
  const declared = readDeclaredAgentId(card);
  if (algs.includes('hmac-sha256') && (!isAgentId(declared) || declared !== verifier.agentId))
    throw new TypeError(`expected a card declaring the AgentID of ownKey (withAgentIdExtension), got ${describeValue(declared)}`);
  const capabilities = card.capabilities ?? {};
  const extensions = (capabilities.extensions ?? []).filter((ext) => ext.uri !== REQUEST_SIGNATURES_EXTENSION_URI);
  const extension: AgentExtension = {
    uri: REQUEST_SIGNATURES_EXTENSION_URI,
    description: 'RFC 9421 request signatures accepted',
    required: false,
    params: { algs },
  };
  return { ...card, capabilities: { ...capabilities, extensions: [...extensions, extension] } };
}

/** The request signature algs `card` advertises (none when it has no such extension). Never throws: `card` is untrusted. */
export function readRequestSignatureAlgs(card: unknown): RequestSignatureAlg[] {
  const capabilities = asObject(asObject(card)?.capabilities);
  const extensions = capabilities?.extensions;
  if (!Array.isArray(extensions)) return [];
  const extension = extensions.find((ext) => asObject(ext)?.uri === REQUEST_SIGNATURES_EXTENSION_URI) as unknown;
  const algs = asObject(asObject(extension)?.params)?.algs;
  if (!Array.isArray(algs)) return [];
  return algs.filter(isRequestSignatureAlg);
}

const isRequestSignatureAlg = (alg: unknown): alg is RequestSignatureAlg => alg === 'ed25519' || alg === 'hmac-sha256';

/**
 * The agent a request signer is about to call, as a2a-client discovery found it (structurally its
 * `AuthPeer`): the card and discovery's verdict on the card's signature.
 */
export interface RequestSignerPeer {
  readonly card: unknown;
  readonly verification?: { readonly status: string; readonly [key: string]: unknown } | undefined;
}

/**
 * The key to sign the fast path with for `peer`, or `undefined` (sign Ed25519): only when its card
 * was verified (`valid`, by an Ed25519 key), declares the AgentID of that key, and advertises
 * `hmac-sha256`. The key is the one that verified the card's signature, never one the card states.
 */
export function fastPathKeyOf(peer: RequestSignerPeer): VerificationKey | undefined {
  const verification = peer?.verification;
  if (verification?.status !== 'valid' || verification.algorithm !== 'EdDSA') return undefined;
  const { agentId, publicKey, kid } = verification;
  if (typeof publicKey !== 'string' || !isAgentId(agentId)) return undefined;
  const bytes = decodeBase64Url(publicKey);
  if (bytes?.length !== 32 || agentIdFromPublicKey(bytes) !== agentId) return undefined;
  if (readDeclaredAgentId(peer.card) !== agentId || !readRequestSignatureAlgs(peer.card).includes('hmac-sha256')) return undefined;
  try {
    // A small-order key would make the agreement predictable: such a peer gets Ed25519.
    if (ed25519.Point.fromHex(bytes).isSmallOrder()) return undefined;
  } catch {
    return undefined;
  }
  return { kid: typeof kid === 'string' ? kid : agentId, algorithm: 'EdDSA', publicKey: bytes };
}
