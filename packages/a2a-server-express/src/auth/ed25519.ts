import * as nodeCrypto from 'node:crypto';
import { createHash, createHmac, createPublicKey, type KeyObject, verify } from 'node:crypto';

// One KeyObject per public key (by its bytes): building it costs more than a verification.
const keys = new Map<string, KeyObject>();
const MAX_KEYS = 10_000;

/** The SPKI DER prefix of an Ed25519 public key (RFC 8410): the 32 key bytes follow. */
const SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');

/**
 * Ed25519 verification with node:crypto, synchronous: pass it as `verifyEd25519` to a2a-identity's
 * `createHttpSignatureVerifier` on Node (its portable default, WebCrypto, adds a thread-pool round
 * trip and somewhat more CPU per request). False for a malformed key or signature; never throws.
 */
export function verifyEd25519(publicKey: Uint8Array, data: Uint8Array, signature: Uint8Array): boolean {
  if (!(publicKey instanceof Uint8Array) || publicKey.length !== 32 || !(signature instanceof Uint8Array) || signature.length !== 64)
    return false;
  try {
    const id = Buffer.from(publicKey.buffer, publicKey.byteOffset, publicKey.byteLength).toString('base64');
    let key = keys.get(id);
    if (!key) {
      key = createPublicKey({ key: Buffer.concat([SPKI_PREFIX, publicKey]), format: 'der', type: 'spki' });
      if (keys.size >= MAX_KEYS) keys.clear();
      keys.set(id, key);
    }
    return verify(null, data, key, signature);
  } catch {
    return false;
  }
}

// `crypto.hash` (Node 20.12+, 21.7+): a one-shot digest without a Hash object; older Node 20
// takes createHash / createHmac. Asked for a latin1 string, not a Buffer: Node 20 validates the
// 'buffer' encoding on a slow path that costs as much as the hash (measured).
const oneShot = (nodeCrypto as unknown as { hash?: (algorithm: string, data: Uint8Array, encoding: 'latin1') => string }).hash;
const DIGEST_BYTES = 32;

/** Writes the 32 bytes of a latin1 digest string into `out` at `offset`. */
function putDigest(latin1: string, out: Uint8Array, offset: number): Uint8Array {
  for (let i = 0; i < DIGEST_BYTES; i++) out[offset + i] = latin1.charCodeAt(i);
  return out;
}

function sha256(data: Uint8Array): Uint8Array {
  return oneShot
    ? putDigest(oneShot('sha256', data, 'latin1'), new Uint8Array(DIGEST_BYTES), 0)
    : createHash('sha256').update(data).digest();
}

/** SHA-256 as standard base64: a Content-Digest in the signer's form is compared as text (decision 0054). */
function sha256Base64(data: Uint8Array): string {
  return oneShot
    ? (oneShot as unknown as (algorithm: string, data: Uint8Array, encoding: 'base64') => string)('sha256', data, 'base64')
    : createHash('sha256').update(data).digest('base64');
}

/** A key's HMAC pads (RFC 2104): K xor ipad, and K xor opad followed by room for the inner digest. */
interface Pads {
  key: Buffer;
  inner: Buffer;
  outer: Buffer;
}
// By key object (the verifier hands out one Uint8Array per caller), checked against a copy of the
// key's bytes: a caller that reuses one buffer for several keys still gets each key's MAC.
const padsOf = new WeakMap<Uint8Array, Pads>();
const BLOCK = 64;
// HMAC-SHA256 as two one-shot SHA-256 of the precomputed pads, for signature bases (a few hundred
// bytes): OpenSSL 3 sets up a MAC context on every createHmac, which costs the server more than
// the two hashes. Larger messages, or a Node without crypto.hash, take createHmac.
const MAX_PADDED = 4096;
const scratch = Buffer.allocUnsafe(BLOCK + MAX_PADDED);

// A plain loop: Buffer#equals is a native call, dearer than comparing 32 bytes here.
function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

// The pads of the last key, and whose inner pad is in `scratch` now: a server mostly hears the
// same caller again, so the lookup and the 64-byte copy are skipped then.
let lastKey: Uint8Array | undefined;
let lastPads: Pads | undefined;
let padInScratch: Pads | undefined;
// The view of `scratch` that was hashed last: the next base is usually as long.
let view = scratch.subarray(0, 0);

function padsFor(key: Uint8Array): Pads {
  if (key === lastKey && sameBytes((lastPads as Pads).key, key)) return lastPads as Pads;
  let pads = padsOf.get(key);
  if (pads === undefined || !sameBytes(pads.key, key)) {
    const k = key.length > BLOCK ? sha256(key) : key;
    pads = { key: Buffer.from(key), inner: Buffer.alloc(BLOCK, 0x36), outer: Buffer.alloc(BLOCK + DIGEST_BYTES, 0x5c) };
    for (let i = 0; i < k.length; i++) {
      pads.inner[i] = 0x36 ^ (k[i] as number);
      pads.outer[i] = 0x5c ^ (k[i] as number);
    }
    padsOf.set(key, pads);
  }
  lastKey = key;
  lastPads = pads;
  return pads;
}

function hmacSha256(key: Uint8Array, data: Uint8Array): Uint8Array {
  if (!oneShot || data.length > MAX_PADDED) return createHmac('sha256', key).update(data).digest();
  const pads = padsFor(key);
  if (padInScratch !== pads) {
    scratch.set(pads.inner, 0);
    padInScratch = pads;
  }
  scratch.set(data, BLOCK);
  if (view.length !== BLOCK + data.length) view = scratch.subarray(0, BLOCK + data.length);
  // A native latin1 write of the inner digest (a charCodeAt loop costs ~50 instructions a byte).
  pads.outer.write(oneShot('sha256', view, 'latin1'), BLOCK, 'latin1');
  return putDigest(oneShot('sha256', pads.outer, 'latin1'), new Uint8Array(DIGEST_BYTES), 0);
}

/**
 * The request-signature primitives on node:crypto, named as a2a-identity's
 * `createHttpSignatureVerifier` options take them: `createHttpSignatureVerifier({ resolveKey,
 * ...nodeSignatureCrypto })`. Synchronous, native: Ed25519, the body's SHA-256 (as bytes, and as
 * base64 for a Content-Digest compared as text) and the fast path's
 * HMAC-SHA256 (decision 0028) cost a few microseconds less each than the portable defaults.
 */
export const nodeSignatureCrypto: {
  verifyEd25519(publicKey: Uint8Array, data: Uint8Array, signature: Uint8Array): boolean;
  sha256(data: Uint8Array): Uint8Array;
  sha256Base64(data: Uint8Array): string;
  hmacSha256(key: Uint8Array, data: Uint8Array): Uint8Array;
} = Object.freeze({ verifyEd25519, sha256, sha256Base64, hmacSha256 });
