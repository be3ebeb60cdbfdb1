import { hmac } from '@noble/hashes/hmac';
import { sha256 } from '@noble/hashes/sha2';
import { describeValue } from '@a2aplane/a2a-types';
import { agentIdFromPublicKey } from './agent-id.js';
import { createRequestKeyCache } from './hmac-request-key.js';
import { createNonceCache, type NonceCache } from './nonce-cache.js';
import { DEFAULT_MAX_WINDOW_SECONDS } from './request-signer.js';
import type { HttpSignatureVerifierOptions } from './request-verifier-types.js';
import { sha256Of } from './rfc9421.js';
import type { RequestTarget } from './signature-fields.js';

const DEFAULT_SKEW_SECONDS = 30;

/** A verifier's options, checked once, in the form each verification reads them. */
export interface VerifierContext {
  resolveKey: HttpSignatureVerifierOptions['resolveKey'];
  identity: HttpSignatureVerifierOptions['identity'];
  nonces: NonceCache;
  clock: () => number;
  maxWindowSeconds: number;
  skewSeconds: number;
  /** Lower-cased; `undefined` with `anyAuthority` or when each request brings its own. */
  authorities: readonly string[] | undefined;
  anyAuthority: boolean;
  checkEd25519: HttpSignatureVerifierOptions['verifyEd25519'];
  digestOfBody: (data: Uint8Array) => Uint8Array | Promise<Uint8Array>;
  base64DigestOf: ((data: Uint8Array) => string) | undefined;
  mac: (key: Uint8Array, data: Uint8Array) => Uint8Array;
  /** The fast path's request key for a caller (with `ownKey` only). */
  requestKeyOf: ((callerPublicKey: Uint8Array, callerId: string, authority: string) => Uint8Array) | undefined;
  ownId: string | undefined;
  /**
   * The last request's method, authority and target and what they give: a server hears the same
   * target again and again, and the profile's base starts with the same four lines. Derived from
   * those three strings only, so verifications that interleave may share it.
   */
  lastTarget: RequestTarget | undefined;
}

function checkAuthorities(authorities: HttpSignatureVerifierOptions['authorities']): void {
  if (
    authorities !== undefined &&
    authorities !== 'any' &&
    (!Array.isArray(authorities) || !authorities.every((a) => typeof a === 'string' && a !== ''))
  ) {
    throw new TypeError(`expected options.authorities to be an array of host[:port] strings or 'any', got ${describeValue(authorities)}`);
  }
}

function checkFunctions(options: HttpSignatureVerifierOptions): void {
  for (const name of ['verifyEd25519', 'sha256', 'sha256Base64', 'hmacSha256', 'clock'] as const) {
    if (options[name] !== undefined && typeof options[name] !== 'function') {
      throw new TypeError(`expected options.${name} to be a function, got ${describeValue(options[name])}`);
    }
  }
  if (options.nonces !== undefined && typeof options.nonces?.add !== 'function')
    throw new TypeError(`expected options.nonces to be a NonceCache, got ${describeValue(options.nonces)}`);
  if (options.identity !== undefined && typeof options.identity?.isAllowed !== 'function')
    throw new TypeError(`expected options.identity to have isAllowed(agentId), got ${describeValue(options.identity)}`);
}

/** Checks a verifier's options (throws `TypeError`/`RangeError` on a wrong one) and fills in the defaults. */
export function readVerifierOptions(options: HttpSignatureVerifierOptions): VerifierContext {
  if (typeof options?.resolveKey !== 'function')
    throw new TypeError(`expected options.resolveKey to be a function, got ${describeValue(options?.resolveKey)}`);
  const maxWindowSeconds = options.maxWindowSeconds ?? DEFAULT_MAX_WINDOW_SECONDS;
  const skewSeconds = options.clockSkewSeconds ?? DEFAULT_SKEW_SECONDS;
  if (!Number.isSafeInteger(maxWindowSeconds) || maxWindowSeconds < 1)
    throw new RangeError(`expected maxWindowSeconds >= 1, got ${describeValue(maxWindowSeconds)}`);
  if (!Number.isSafeInteger(skewSeconds) || skewSeconds < 0)
    throw new RangeError(`expected clockSkewSeconds >= 0, got ${describeValue(skewSeconds)}`);
  checkAuthorities(options.authorities);
  checkFunctions(options);
  const clock = options.clock ?? Date.now;
  const { ownKey } = options;
  if (ownKey !== undefined && (ownKey?.algorithm !== 'EdDSA' || !(ownKey.privateKey instanceof Uint8Array))) {
    throw new TypeError(`expected an Ed25519 KeyPair as options.ownKey, got ${describeValue(ownKey)}`);
  }
  const ownId = ownKey === undefined ? undefined : agentIdFromPublicKey(ownKey.publicKey);
  const maxRequestKeys = options.maxRequestKeys ?? 10_000;
  if (!Number.isSafeInteger(maxRequestKeys) || maxRequestKeys < 1)
    throw new RangeError(`expected maxRequestKeys >= 1, got ${describeValue(maxRequestKeys)}`);
  const { authorities } = options;
  return {
    resolveKey: options.resolveKey,
    identity: options.identity,
    nonces: options.nonces ?? createNonceCache({ clock }),
    clock,
    maxWindowSeconds,
    skewSeconds,
    authorities: authorities === undefined || authorities === 'any' ? undefined : authorities.map((a) => a.toLowerCase()),
    anyAuthority: authorities === 'any',
    checkEd25519: options.verifyEd25519,
    digestOfBody: options.sha256 ?? sha256Of,
    base64DigestOf: options.sha256Base64,
    mac: options.hmacSha256 ?? ((key, data) => hmac(sha256, key, data)),
    requestKeyOf: ownKey === undefined ? undefined : createRequestKeyCache(ownKey.privateKey, ownId as string, maxRequestKeys),
    ownId,
    lastTarget: undefined,
  };
}
