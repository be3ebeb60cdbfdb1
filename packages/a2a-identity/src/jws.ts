import { ed25519 } from '@noble/curves/ed25519';
import { p256 } from '@noble/curves/p256';
import { sha256 } from '@noble/hashes/sha2';
import { isAcceptableEd25519PublicKey } from './ed25519-public-key.js';
import type { KeyPair, SigningAlgorithm, VerificationKey } from './key-types.js';

/** Raw JWS signature over `signingInput` (RFC 7515 §5.1): Ed25519 (64 bytes) or ES256 `r || s` (64 bytes). */
export function signBytes(key: KeyPair, signingInput: Uint8Array): Uint8Array {
  if (key.algorithm === 'EdDSA') return ed25519.sign(signingInput, key.privateKey);
  return p256.sign(sha256(signingInput), key.privateKey, { prehash: false }).toCompactRawBytes();
}

/**
 * Verifies a raw JWS signature. Ed25519 uses the strict RFC 8032 rules (no ZIP-215 leniency) and
 * refuses small-order and non-canonical keys;
 * ES256 accepts high-S signatures other JOSE libraries emit, but only the 64-byte JWS form, never DER.
 * Never throws.
 */
export function verifyBytes(algorithm: SigningAlgorithm, key: VerificationKey, signingInput: Uint8Array, signature: Uint8Array): boolean {
  try {
    if (algorithm !== key.algorithm || signature.length !== 64) return false;
    if (algorithm === 'EdDSA')
      // RFC 8032 strict mode still accepts a small-order key, with which R = identity, S = 0 verifies anything.
      return isAcceptableEd25519PublicKey(key.publicKey) && ed25519.verify(signature, signingInput, key.publicKey, { zip215: false });
    return p256.verify(signature, sha256(signingInput), key.publicKey, { prehash: false, lowS: false, format: 'compact' });
  } catch {
    return false;
  }
}
