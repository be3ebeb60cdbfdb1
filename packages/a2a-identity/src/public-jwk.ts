import { agentIdFromPublicKey } from './agent-id.js';
import { decodeBase64Url, encodeBase64Url } from './base64url.js';
import type { SigningAlgorithm, VerificationKey } from './key-types.js';
import { sha256 } from '@noble/hashes/sha2';
import { weakEd25519PublicKeyReason } from './ed25519-public-key.js';

/**
 * The public part of an Ed25519 (`OKP`) or P-256 (`EC`) JWK, checked for shape and lengths only:
 * whether the bytes are a point on the curve is left to whoever uses the key (WebCrypto refuses
 * to import a bad P-256 point; a bad Ed25519 key verifies nothing), except that a small-order or
 * non-canonically encoded Ed25519 key is refused (with one a forged signature verifies), by its
 * bytes. This keeps curve arithmetic out of verify-only bundles; `importJwk` adds the curve checks.
 * Untrusted input: never throws.
 */
export function readPublicJwk(jwk: unknown): { ok: true; key: VerificationKey } | { ok: false; reason: string } {
  if (typeof jwk !== 'object' || jwk === null || Array.isArray(jwk)) return { ok: false, reason: 'expected a JWK object' };
  const j = jwk as Record<string, unknown>;
  if (j.kid !== undefined && typeof j.kid !== 'string') return { ok: false, reason: 'kid must be a string' };
  if (j.use !== undefined && j.use !== 'sig') return { ok: false, reason: `use must be "sig", got ${JSON.stringify(j.use)}` };
  let algorithm: SigningAlgorithm;
  let publicKey: Uint8Array;
  if (j.kty === 'OKP') {
    if (j.crv !== 'Ed25519') return { ok: false, reason: `unsupported OKP curve ${JSON.stringify(j.crv)}` };
    if (j.alg !== undefined && j.alg !== 'EdDSA') return { ok: false, reason: `alg ${JSON.stringify(j.alg)} does not fit an Ed25519 key` };
    const x = typeof j.x === 'string' ? decodeBase64Url(j.x) : undefined;
    if (x?.length !== 32) return { ok: false, reason: 'x must be 32 base64url-encoded bytes' };
    const weak = weakEd25519PublicKeyReason(x);
    if (weak !== undefined) return { ok: false, reason: weak };
    algorithm = 'EdDSA';
    publicKey = x;
  } else if (j.kty === 'EC') {
    if (j.crv !== 'P-256') return { ok: false, reason: `unsupported EC curve ${JSON.stringify(j.crv)}` };
    if (j.alg !== undefined && j.alg !== 'ES256') return { ok: false, reason: `alg ${JSON.stringify(j.alg)} does not fit a P-256 key` };
    const x = typeof j.x === 'string' ? decodeBase64Url(j.x) : undefined;
    const y = typeof j.y === 'string' ? decodeBase64Url(j.y) : undefined;
    if (x?.length !== 32 || y?.length !== 32) return { ok: false, reason: 'x and y must be 32 base64url-encoded bytes each' };
    publicKey = new Uint8Array(65);
    publicKey[0] = 4;
    publicKey.set(x, 1);
    publicKey.set(y, 33);
    algorithm = 'ES256';
  } else {
    return { ok: false, reason: `unsupported kty ${JSON.stringify(j.kty)}` };
  }
  const kid = typeof j.kid === 'string' ? j.kid : defaultKid(algorithm, publicKey);
  return { ok: true, key: { algorithm, kid, publicKey } };
}

/** The default key id: AgentID for Ed25519, RFC 7638 thumbprint for P-256. */
export function defaultKid(algorithm: SigningAlgorithm, publicKey: Uint8Array): string {
  if (algorithm === 'EdDSA') return agentIdFromPublicKey(publicKey);
  const x = encodeBase64Url(publicKey.subarray(1, 33));
  const y = encodeBase64Url(publicKey.subarray(33, 65));
  return encodeBase64Url(sha256(new TextEncoder().encode(`{"crv":"P-256","kty":"EC","x":"${x}","y":"${y}"}`)));
}
