// The key shapes and their guards, apart from the curve code of keys.ts: a module that only
// needs a key's type (the verifiers, the JWK reader, AgentID) does not import the curves, and
// keys.ts → public-jwk.ts → agent-id.ts → here is no circle.

/** JWS algorithms this library signs and verifies with (RFC 8037 EdDSA/Ed25519, RFC 7518 ES256). */
export type SigningAlgorithm = 'EdDSA' | 'ES256';
export const SIGNING_ALGORITHMS: readonly SigningAlgorithm[] = ['EdDSA', 'ES256'];

/**
 * A private + public key. Ed25519: 32-byte seed and 32-byte public key. P-256: 32-byte scalar and
 * 65-byte uncompressed public point (`0x04 || x || y`).
 */
export interface KeyPair {
  algorithm: SigningAlgorithm;
  kid: string;
  privateKey: Uint8Array;
  publicKey: Uint8Array;
}

/** A public key that can verify signatures; same encodings as {@link KeyPair}. */
export interface VerificationKey {
  algorithm: SigningAlgorithm;
  kid: string;
  publicKey: Uint8Array;
}

export type PublicJwk =
  | { kty: 'OKP'; crv: 'Ed25519'; x: string; kid?: string; alg?: 'EdDSA'; use?: 'sig' }
  | { kty: 'EC'; crv: 'P-256'; x: string; y: string; kid?: string; alg?: 'ES256'; use?: 'sig' };
export type PrivateJwk = PublicJwk & { d: string };

export type ImportJwkResult = { ok: true; key: KeyPair | VerificationKey } | { ok: false; reason: string };

export function isSigningAlgorithm(value: unknown): value is SigningAlgorithm {
  return value === 'EdDSA' || value === 'ES256';
}

/** True when `key` carries a private key. */
export function isKeyPair(key: KeyPair | VerificationKey): key is KeyPair {
  return (key as KeyPair).privateKey instanceof Uint8Array;
}
