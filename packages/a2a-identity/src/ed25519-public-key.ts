/**
 * Refuses Ed25519 public keys no honest signer has: a small-order point (with one, a signature
 * of R = identity, S = 0 verifies for every message, and an X25519 agreement with it is
 * predictable) and a non-canonical encoding (y >= p), which verifiers disagree about. Bytes only,
 * no curve arithmetic, so the check costs nothing in verify-only bundles (libsodium's
 * `has_small_order` and `ge25519_is_canonical` do the same). Every place a key enters calls it.
 */

/**
 * The y-coordinates (little-endian, sign bit cleared) of the eight points of order 1, 2, 4 and 8:
 * each y names a point and its negation, so these five cover all eight, with either sign bit.
 */
const SMALL_ORDER_Y: readonly Uint8Array[] = [
  // 0: the two points of order 4
  hex('0000000000000000000000000000000000000000000000000000000000000000'),
  // 1: the identity (order 1)
  hex('0100000000000000000000000000000000000000000000000000000000000000'),
  // p - 1: the point of order 2
  hex('ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f'),
  // the four points of order 8
  hex('26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05'),
  hex('c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a'),
];

function hex(text: string): Uint8Array {
  const out = new Uint8Array(text.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = Number.parseInt(text.slice(i * 2, i * 2 + 2), 16);
  return out;
}

/** Whether the 255-bit y of `key` (sign bit cleared) is at least p = 2^255 - 19. */
function isNonCanonical(key: Uint8Array): boolean {
  if (((key[31] as number) & 0x7f) !== 0x7f) return false;
  for (let i = 30; i >= 1; i--) if (key[i] !== 0xff) return false;
  return (key[0] as number) >= 0xed;
}

function isSmallOrder(key: Uint8Array): boolean {
  for (const y of SMALL_ORDER_Y) {
    let diff = ((key[31] as number) & 0x7f) ^ (y[31] as number);
    for (let i = 0; i < 31; i++) diff |= (key[i] as number) ^ (y[i] as number);
    if (diff === 0) return true;
  }
  return false;
}

/**
 * Why `publicKey` cannot be an Ed25519 public key to trust, or `undefined` when it can: not 32
 * bytes, a non-canonical encoding, or a small-order point. (A 32-byte string that is not a curve
 * point at all verifies nothing and is left to the verifier.)
 */
export function weakEd25519PublicKeyReason(publicKey: Uint8Array): string | undefined {
  if (!(publicKey instanceof Uint8Array) || publicKey.length !== 32) return 'an Ed25519 public key is 32 bytes';
  if (isNonCanonical(publicKey)) return 'the Ed25519 public key is not canonically encoded (y >= p)';
  if (isSmallOrder(publicKey)) return 'the Ed25519 public key is a small-order point';
  return undefined;
}

/** True for a 32-byte, canonically encoded Ed25519 public key that is not a small-order point. */
export function isAcceptableEd25519PublicKey(publicKey: Uint8Array): boolean {
  return weakEd25519PublicKeyReason(publicKey) === undefined;
}
