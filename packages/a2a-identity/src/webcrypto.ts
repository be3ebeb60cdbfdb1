import { isAcceptableEd25519PublicKey } from './ed25519-public-key.js';
import type { SigningAlgorithm, VerificationKey } from './key-types.js';

/**
 * Signature checks and SHA-256 on the platform's WebCrypto (`globalThis.crypto.subtle`): Ed25519
 * and ECDSA P-256 are native in Node 20 and current browsers, so verifying needs no curve code in
 * a bundle and runs at native speed on a server. ES256 signatures are the 64-byte JWS `r || s`
 * form WebCrypto takes as is (never DER).
 */
const IMPORT: Record<SigningAlgorithm, EcKeyImportParams | Algorithm> = {
  EdDSA: { name: 'Ed25519' },
  ES256: { name: 'ECDSA', namedCurve: 'P-256' } as EcKeyImportParams,
};
const VERIFY: Record<SigningAlgorithm, Algorithm | EcdsaParams> = {
  EdDSA: { name: 'Ed25519' },
  ES256: { name: 'ECDSA', hash: 'SHA-256' } as EcdsaParams,
};

// Importing a key costs more than verifying with it: remember the CryptoKey per key object
// (pinned and JWKS resolvers hand out the same objects every time).
const imported = new WeakMap<VerificationKey, Promise<CryptoKey>>();

function subtle(): SubtleCrypto {
  const api = globalThis.crypto?.subtle;
  if (!api) throw new TypeError('expected WebCrypto (globalThis.crypto.subtle), got none');
  return api;
}

function cryptoKeyOf(key: VerificationKey): Promise<CryptoKey> {
  let entry = imported.get(key);
  if (!entry) {
    entry = subtle().importKey('raw', key.publicKey as BufferSource, IMPORT[key.algorithm], false, ['verify']);
    imported.set(key, entry);
    entry.catch(() => imported.delete(key));
  }
  return entry;
}

/**
 * Verifies a raw signature (Ed25519 64 bytes, or ES256 `r || s` 64 bytes) over `data` with `key`.
 * False for an algorithm that does not fit the key, a malformed, small-order or non-canonical key, or
 * a malformed signature. Rejects only
 * when the platform cannot verify at all (no WebCrypto, or no Ed25519 in it), so that is never
 * mistaken for a bad signature.
 */
export async function verifySignature(
  algorithm: SigningAlgorithm,
  key: VerificationKey,
  data: Uint8Array,
  signature: Uint8Array,
): Promise<boolean> {
  if (algorithm !== key.algorithm || signature.length !== 64) return false;
  // A small-order Ed25519 key would verify a forged signature (R = identity, S = 0) for any data.
  if (algorithm === 'EdDSA' ? !isAcceptableEd25519PublicKey(key.publicKey) : key.publicKey.length !== 65) return false;
  const api = subtle();
  try {
    return await api.verify(VERIFY[algorithm], await cryptoKeyOf(key), signature as BufferSource, data as BufferSource);
  } catch (error) {
    if ((error as { name?: unknown })?.name === 'NotSupportedError')
      throw new TypeError(`expected WebCrypto to support ${algorithm}, got NotSupportedError`);
    return false;
  }
}

/** SHA-256 of `data`. */
export async function sha256Digest(data: Uint8Array): Promise<Uint8Array> {
  return new Uint8Array(await subtle().digest('SHA-256', data as BufferSource));
}
