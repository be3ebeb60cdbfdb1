import type { KeyPair, VerificationKey } from './key-types.js';
import type { NonceCache } from './nonce-cache.js';
import type { RequestSignatureAlg } from './request-signatures-extension.js';
import type { HttpSignatureMessage } from './rfc9421.js';

/** The A2A request verifier's public types: what it reads, what it answers, how it is configured. */

/** What the verifier needs of an incoming request. */
export interface VerifiableRequest extends HttpSignatureMessage {
  /**
   * The raw body bytes; `undefined` when unknown (a framework parsed them already): then a
   * request that may carry a body (POST, PUT, PATCH) is refused, since its digest cannot be checked.
   */
  body?: Uint8Array | undefined;
  /**
   * The authorities (`host[:port]`, lower case) the server that received the request is reached
   * by, as its binding knows them (the A2A server passes its card's interface URLs). Used when the
   * verifier has no `authorities` option of its own.
   */
  authorities?: readonly string[] | undefined;
}

export type HttpSignatureFailure =
  /** No `Signature-Input` / `Signature`: not a signed request (an authenticator may try other schemes). */
  | 'unsigned'
  | 'malformed'
  /** `alg` other than ed25519 (or hmac-sha256 with `ownKey`), or a `keyid` that is not an AgentID. */
  | 'unsupported'
  /** A required component or parameter is not covered. */
  | 'incomplete'
  | 'expired'
  | 'not-yet-valid'
  /** No trusted key for the AgentID, the key does not hash to it, or it is small-order or non-canonical. */
  | 'unknown-key'
  /** The signature is good but the `identity` option does not allow the caller (its nonce is not recorded). */
  | 'not-allowed'
  /** The request names an authority this server does not answer to (or none is known to check against). */
  | 'wrong-authority'
  | 'digest-mismatch'
  | 'bad-signature'
  /** The nonce was recorded before, the replay cache is full or holds the caller's share, or it could not answer. */
  | 'replayed';

export type HttpSignatureVerification =
  | { ok: true; agentId: string; created: number; expires: number; alg: 'ed25519' | 'hmac-sha256' }
  /** `agentId` is set with `not-allowed` only: the caller proved it holds that AgentID's key. */
  | { ok: false; reason: HttpSignatureFailure; detail: string; agentId?: string };

export interface HttpSignatureVerifierOptions {
  /**
   * The caller's Ed25519 public key for an AgentID, or `undefined` when not trusted: a pinned set
   * or keys read from the caller's signed card (`createCallerKeyResolver`). The key must hash to
   * the AgentID; the verifier checks. Both algorithms resolve the caller's key the same way.
   */
  resolveKey(agentId: string): Promise<VerificationKey | undefined> | VerificationKey | undefined;
  /**
   * This server agent's Ed25519 key pair (the key its card is signed with). With it the verifier
   * also accepts `alg="hmac-sha256"` signatures under the request key derived from this key and
   * the caller's (decision 0028): checked with an HMAC instead of Ed25519. Without it, only
   * Ed25519 signatures are accepted.
   */
  ownKey?: KeyPair;
  /** Request keys kept for the fast path, one per caller and authority. Default 10000. */
  maxRequestKeys?: number;
  /**
   * Replay protection. Default: a fresh `createNonceCache()` for this verifier (one process).
   * Replicas share one (a2a-redis `createRedisNonceCache`): a cache that answers with a promise is
   * awaited; one that rejects refuses the request (fails closed). Each nonce is recorded as
   * `<AgentID prefix>:<nonce>` until the first millisecond the signature is no longer accepted,
   * with the caller's AgentID as owner (its quota).
   */
  nonces?: NonceCache;
  /**
   * Authorization's identity check ("is this AgentID allowed?", a2a-identity's
   * `createAllowlistIdentityResolver` or the governance one): asked once the signature is good and
   * before the nonce is recorded, so a caller whose key is known but who is not allowed never
   * takes room in the replay cache; such a request is refused (`not-allowed`). Pass the resolver
   * the server's authorization uses. Default: every caller with a trusted key.
   */
  identity?: { isAllowed(agentId: string): boolean | Promise<boolean> };
  /**
   * The Ed25519 check. Default: WebCrypto (portable, asynchronous). On Node, a2a-server-express's
   * `nodeSignatureCrypto` (node:crypto: `verifyEd25519`, `sha256`, `hmacSha256`, spread into these
   * options) checks synchronously, for less CPU per request (decisions 0018, 0028 have figures).
   */
  verifyEd25519?: (publicKey: Uint8Array, data: Uint8Array, signature: Uint8Array) => boolean | Promise<boolean>;
  /** SHA-256 of a body, for its Content-Digest. Default @noble/hashes (WebCrypto past 16 KiB). */
  sha256?: (data: Uint8Array) => Uint8Array;
  /**
   * SHA-256 of a body as standard base64 (with padding), optional: a Content-Digest in the signer's
   * canonical form is then compared as text, without decoding it or copying the digest into bytes.
   * Any other form, or a mismatch, still goes through `sha256` and a byte comparison (the verdict is
   * the same). `nodeSignatureCrypto` has one.
   */
  sha256Base64?: (data: Uint8Array) => string;
  /** HMAC-SHA256, for the fast path. Default @noble/hashes. */
  hmacSha256?: (key: Uint8Array, data: Uint8Array) => Uint8Array;
  /**
   * The authorities (`host` or `host:port`, as in the `Host` header) this server answers to. A
   * signature names the authority it was made for, so a server that received a signed request
   * cannot relay it to another server that trusts the same caller. Default: the authorities the
   * request says its server is reached by (`VerifiableRequest.authorities`: the A2A server passes
   * its card's interface URLs); with neither, every signed request is refused. `'any'` turns the
   * check off (a server behind proxies that rewrite `Host`: prefer listing the names).
   */
  authorities?: readonly string[] | 'any';
  /** Largest `expires - created` accepted. Default 300 seconds. */
  maxWindowSeconds?: number;
  /**
   * Clock difference tolerated on `created` and `expires`, in seconds. Default 30. A signature is
   * accepted from `(created - skew) * 1000` up to, not including, `(expires + skew) * 1000`
   * milliseconds on `clock`, and its nonce is held until that same instant.
   */
  clockSkewSeconds?: number;
  /** Milliseconds since the epoch. Default `Date.now`. */
  clock?: () => number;
}

export interface HttpSignatureVerifier {
  verify(request: VerifiableRequest): Promise<HttpSignatureVerification>;
  /** The `alg` values it accepts: `ed25519`, and `hmac-sha256` with `ownKey` (what `withRequestSignaturesExtension` advertises). */
  readonly algorithms: readonly RequestSignatureAlg[];
  /** The AgentID of `ownKey`, when given. */
  readonly agentId: string | undefined;
}
