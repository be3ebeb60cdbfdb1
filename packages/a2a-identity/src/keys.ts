import { ed25519 } from '@noble/curves/ed25519';
import { p256 } from '@noble/curves/p256';
import { sha256 } from '@noble/hashes/sha2';
import { decodeBase64Url, encodeBase64Url } from './base64url.js';
import { describeValue } from '@a2aplane/a2a-types';
import {
  type ImportJwkResult,
  isKeyPair,
  isSigningAlgorithm,
  type KeyPair,
  type PrivateJwk,
  type PublicJwk,
  type SigningAlgorithm,
  type VerificationKey,
} from './key-types.js';
import { defaultKid, readPublicJwk } from './public-jwk.js';

/**
 * A fresh key pair from the platform CSPRNG. Default `kid`: the AgentID for Ed25519 (so the
 * card's `kid` names the agent), the RFC 7638 JWK thumbprint for P-256.
 */
export function generateKeyPair(algorithm: SigningAlgorithm, options?: { kid?: string }): KeyPair {
  if (algorithm === 'EdDSA') return keyPairFromPrivateKey('EdDSA', ed25519.utils.randomPrivateKey(), options?.kid);
  if (algorithm === 'ES256') return keyPairFromPrivateKey('ES256', p256.utils.randomPrivateKey(), options?.kid);
  throw new TypeError(`expected 'EdDSA' or 'ES256', got ${JSON.stringify(algorithm)}`);
}

/** A key pair from existing private key bytes (Ed25519 seed or P-256 scalar, 32 bytes). */
export function keyPairFromPrivateKey(algorithm: SigningAlgorithm, privateKey: Uint8Array, kid?: string): KeyPair {
  if (kid !== undefined && typeof kid !== 'string') throw new TypeError(`expected kid to be a string, got ${describeValue(kid)}`);
  if (!(privateKey instanceof Uint8Array) || privateKey.length !== 32) {
    throw new TypeError(
      `expected a 32-byte private key, got ${privateKey instanceof Uint8Array ? `${privateKey.length} bytes` : typeof privateKey}`,
    );
  }
  if (!isSigningAlgorithm(algorithm)) throw new TypeError(`expected 'EdDSA' or 'ES256', got ${JSON.stringify(algorithm)}`);
  const publicKey = algorithm === 'EdDSA' ? ed25519.getPublicKey(privateKey) : p256.getPublicKey(privateKey, false);
  return { algorithm, kid: kid ?? defaultKid(algorithm, publicKey), privateKey: privateKey.slice(), publicKey };
}

/** RFC 7638 JWK thumbprint (SHA-256, base64url) of a public key. */
export function jwkThumbprint(jwk: PublicJwk): string {
  const members =
    jwk.kty === 'OKP'
      ? `{"crv":"${jwk.crv}","kty":"${jwk.kty}","x":"${jwk.x}"}`
      : `{"crv":"${jwk.crv}","kty":"${jwk.kty}","x":"${jwk.x}","y":"${jwk.y}"}`;
  return encodeBase64Url(sha256(new TextEncoder().encode(members)));
}

function publicJwkMembers(algorithm: SigningAlgorithm, publicKey: Uint8Array): PublicJwk {
  if (algorithm === 'EdDSA') return { kty: 'OKP', crv: 'Ed25519', x: encodeBase64Url(publicKey) };
  return { kty: 'EC', crv: 'P-256', x: encodeBase64Url(publicKey.subarray(1, 33)), y: encodeBase64Url(publicKey.subarray(33, 65)) };
}

/** The public JWK (with `kid`, `alg`, `use: 'sig'`) to publish in a JWKS. */
export function exportPublicJwk(key: KeyPair | VerificationKey): PublicJwk {
  const base = publicJwkMembers(key.algorithm, key.publicKey);
  return base.kty === 'OKP' ? { ...base, kid: key.kid, alg: 'EdDSA', use: 'sig' } : { ...base, kid: key.kid, alg: 'ES256', use: 'sig' };
}

/** The private JWK; keep it secret (files with mode 0600, a secret store). */
export function exportPrivateJwk(key: KeyPair): PrivateJwk {
  if (!isKeyPair(key)) throw new TypeError('expected a KeyPair with a privateKey, got a public key');
  return { ...exportPublicJwk(key), d: encodeBase64Url(key.privateKey) };
}

/**
 * Reads an Ed25519 (`OKP`) or P-256 (`EC`) JWK, public or private. Untrusted input: returns a
 * reason instead of throwing. A private JWK whose `d` does not match its public part is refused.
 */
export function importJwk(jwk: unknown): ImportJwkResult {
  try {
    return importJwkUnsafe(jwk);
  } catch (error) {
    return { ok: false, reason: `invalid key: ${error instanceof Error ? error.message : String(error)}` };
  }
}

function importJwkUnsafe(jwk: unknown): ImportJwkResult {
  const read = readPublicJwk(jwk);
  if (!read.ok) return read;
  const { algorithm, kid, publicKey } = read.key;
  // Curve checks (readPublicJwk checks shape only): throw on bytes that are not a curve point.
  if (algorithm === 'EdDSA') ed25519.Point.fromHex(publicKey);
  else p256.Point.fromHex(publicKey).assertValidity();
  const d = (jwk as Record<string, unknown>).d;
  if (d === undefined) return { ok: true, key: read.key };
  if (typeof d !== 'string') return { ok: false, reason: 'd must be a string' };
  const privateKey = decodeBase64Url(d);
  if (privateKey?.length !== 32) return { ok: false, reason: 'd must be 32 base64url-encoded bytes' };
  const pair = keyPairFromPrivateKey(algorithm, privateKey, kid);
  if (!equalBytes(pair.publicKey, publicKey)) return { ok: false, reason: 'd does not match the public key' };
  return { ok: true, key: pair };
}

/** A public-only copy of a key (drops the private key). */
export function toVerificationKey(key: KeyPair | VerificationKey): VerificationKey {
  return { algorithm: key.algorithm, kid: key.kid, publicKey: key.publicKey };
}

/** The JWKS document (`{"keys": [...]}`) to serve at the `jku` URL. Public parts only. */
export function createJwks(keys: Array<KeyPair | VerificationKey>): { keys: PublicJwk[] } {
  if (!Array.isArray(keys)) throw new TypeError(`expected an array of keys, got ${typeof keys}`);
  return { keys: keys.map(exportPublicJwk) };
}

export function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a[i]! ^ b[i]!;
  return diff === 0;
}
