import { ed25519, x25519 } from '@noble/curves/ed25519';
import { hkdf } from '@noble/hashes/hkdf';
import { sha256 } from '@noble/hashes/sha2';
import { isAcceptableEd25519PublicKey } from './ed25519-public-key.js';
import { HttpSignatureError, utf8 } from './rfc9421.js';

/**
 * The fast path (decision 0028): `hmac-sha256` under a request key both agents derive from their
 * own Ed25519 keys, bound to both AgentIDs and the server's authority.
 */

/** The RFC 9421 `alg` of the fast path. */
export const HMAC_SIGNATURE_ALG = 'hmac-sha256' as const;
const HMAC_KEY_SALT = utf8.encode('a2aplane/rfc9421/hmac-sha256/v1');

/**
 * The HMAC-SHA256 key for requests from `callerId` to `serverId` at `authority`: HKDF-SHA256 of
 * the X25519 agreement of the two agents' Ed25519 keys (RFC 7748, the birational map of RFC 8032's
 * curve), salted with a fixed label, the info naming the caller, the server and the authority in
 * that order (the direction matters: the caller's requests to the server are not the server's
 * requests to the caller). Throws on a small-order, non-canonical or invalid public key.
 */
export function deriveRequestKey(
  ownPrivateKey: Uint8Array,
  peerPublicKey: Uint8Array,
  callerId: string,
  serverId: string,
  authority: string,
): Uint8Array {
  // A small-order key would make the agreement predictable (anyone could derive the request key).
  if (!isAcceptableEd25519PublicKey(peerPublicKey) || ed25519.Point.fromHex(peerPublicKey).isSmallOrder())
    throw new HttpSignatureError('the peer key is small-order or not canonical');
  // x25519 throws on an all-zero shared secret.
  const shared = x25519.getSharedSecret(ed25519.utils.toMontgomerySecret(ownPrivateKey), ed25519.utils.toMontgomery(peerPublicKey));
  return hkdf(sha256, shared, HMAC_KEY_SALT, utf8.encode(`${callerId}\n${serverId}\n${authority.toLowerCase()}`), 32);
}

/**
 * The verifier's request keys by caller and authority: an X25519 agreement costs about an Ed25519
 * verification, so it is done once per caller, not per request. Only trusted callers' keys and
 * accepted authorities get here; past `maxKeys` the oldest entry leaves. The last caller's key is
 * kept at hand: a server mostly hears the same few callers in a row.
 */
export function createRequestKeyCache(
  ownPrivateKey: Uint8Array,
  ownId: string,
  maxKeys: number,
): (callerPublicKey: Uint8Array, callerId: string, authority: string) => Uint8Array {
  const keys = new Map<string, Uint8Array>();
  let last: { callerId: string; authority: string; key: Uint8Array } | undefined;
  return (callerPublicKey, callerId, authority) => {
    if (last !== undefined && last.callerId === callerId && last.authority === authority) return last.key;
    const id = `${callerId}\n${authority}`;
    let derived = keys.get(id);
    if (derived === undefined) {
      derived = deriveRequestKey(ownPrivateKey, callerPublicKey, callerId, ownId, authority);
      if (keys.size >= maxKeys) keys.delete(keys.keys().next().value as string);
      keys.set(id, derived);
    }
    last = { callerId, authority, key: derived };
    return derived;
  };
}
