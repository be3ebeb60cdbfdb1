import { hmac } from '@noble/hashes/hmac';
import { sha256 } from '@noble/hashes/sha2';
import { describeValue } from '@a2aplane/a2a-types';
import { agentIdFromPublicKey } from './agent-id.js';
import { encodeBase64Url } from './base64url.js';
import { deriveRequestKey, HMAC_SIGNATURE_ALG } from './hmac-request-key.js';
import type { KeyPair, VerificationKey } from './key-types.js';
import { fastPathKeyOf, type RequestSignerPeer } from './request-signatures-extension.js';
import { contentDigest, type HttpSignatureMessage, signBaseWith, signHttpMessage } from './rfc9421.js';

/**
 * The A2A request signer: what a2aplane signs on every request (RFC 9421, `keyid` = the caller's
 * AgentID, a fresh nonce each time), with Ed25519 or the HMAC fast path (decision 0028).
 */

/** The label a2aplane signs under. */
export const HTTP_SIGNATURE_LABEL = 'a2a';
/** What a2aplane signs: the method, the target (authority, path, query) and, with a body, its digest. */
export const HTTP_SIGNATURE_COMPONENTS = ['@method', '@authority', '@path', '@query'] as const;
const DEFAULT_TTL_SECONDS = 60;
/** The largest signature window a verifier accepts by default, and the longest a signer makes. */
export const DEFAULT_MAX_WINDOW_SECONDS = 300;

export interface HttpRequestSignerOptions {
  /** The agent's Ed25519 key: `keyid` is its AgentID. */
  key: KeyPair;
  /**
   * The called agent's Ed25519 public key (the key its verified signed card is signed with). With
   * it, requests are signed `alg="hmac-sha256"` under a key only this caller and that agent can
   * derive (decision 0028), which the server checks in microseconds instead of an Ed25519
   * verification; the server must accept it (`createHttpSignatureVerifier({ ownKey })`). Without
   * it every request is signed with Ed25519, which every verifier accepts.
   */
  serverKey?: VerificationKey;
  /**
   * Which signature to send when there is no `serverKey`. `'auto'` (default): the fast path with
   * an agent whose card a2a-client discovery verified (signed by an Ed25519 key, AgentID bound to
   * it) and that advertises `hmac-sha256` (`withRequestSignaturesExtension`), keyed by the key that
   * signed that card; Ed25519 with every other agent. `'ed25519'`: always Ed25519 (a signature any
   * third party can check, for an audit trail that must convince others than the server).
   */
  requestSignature?: 'auto' | 'ed25519';
  /** `expires - created`. Default 60 seconds. */
  ttlSeconds?: number;
  /** Milliseconds since the epoch. Default `Date.now`. */
  clock?: () => number;
}

/** What the signer needs of an outgoing request. */
export interface SignableRequest {
  method: string;
  url: URL | string;
  body?: string | Uint8Array | undefined;
}

export interface HttpRequestSigner {
  readonly agentId: string;
  /** The headers to add: `Signature-Input`, `Signature` and, with a body, `Content-Digest`. */
  sign(request: SignableRequest): Promise<Record<string, string>>;
  /**
   * Signs an a2a-client request in place: structurally an a2a-client `AuthProvider`, so
   * `createA2AClient({ auth: signer })` signs every call (its interceptors run after this and
   * must not change the URL or body).
   */
  apply(request: { method: string; url: URL; headers: Headers; body?: string | Uint8Array | undefined }): Promise<void>;
  /**
   * The signer to use with one agent (a2a-client's `AuthProvider.forPeer`, called once discovery
   * has verified the agent's card): a fast-path signer keyed by the card's verified signing key
   * when `fastPathKeyOf(peer)` finds one and `requestSignature` is `'auto'`, else this signer.
   */
  forPeer(peer: RequestSignerPeer): HttpRequestSigner;
}

/** Signs requests as the agent whose Ed25519 key this is (RFC 9421, `keyid` = AgentID, a fresh nonce each time). */
export function createHttpRequestSigner(options: HttpRequestSignerOptions): HttpRequestSigner {
  if (typeof options !== 'object' || options === null)
    throw new TypeError(`expected HttpRequestSignerOptions, got ${describeValue(options)}`);
  const { key } = options;
  if (key?.algorithm !== 'EdDSA' || !(key.privateKey instanceof Uint8Array) || !(key.publicKey instanceof Uint8Array)) {
    throw new TypeError(`expected an Ed25519 KeyPair as key, got ${describeValue(key)}`);
  }
  const ttl = options.ttlSeconds ?? DEFAULT_TTL_SECONDS;
  if (!Number.isSafeInteger(ttl) || ttl < 1 || ttl > DEFAULT_MAX_WINDOW_SECONDS) {
    throw new RangeError(`expected ttlSeconds from 1 to ${DEFAULT_MAX_WINDOW_SECONDS}, got ${describeValue(ttl)}`);
  }
  const clock = options.clock ?? Date.now;
  const agentId = agentIdFromPublicKey(key.publicKey);
  const { serverKey } = options;
  const requestSignature = options.requestSignature ?? 'auto';
  if (requestSignature !== 'auto' && requestSignature !== 'ed25519')
    throw new TypeError(`expected requestSignature auto or ed25519, got ${describeValue(requestSignature)}`);
  if (serverKey !== undefined && (serverKey?.algorithm !== 'EdDSA' || !(serverKey.publicKey instanceof Uint8Array))) {
    throw new TypeError(`expected an Ed25519 VerificationKey as serverKey, got ${describeValue(serverKey)}`);
  }
  const serverId = serverKey === undefined ? undefined : agentIdFromPublicKey(serverKey.publicKey);
  // One request key per authority the signer is used with (a client talks to one or a few).
  const requestKeys = new Map<string, Uint8Array>();
  const requestKeyFor = (authority: string): Uint8Array => {
    let derived = requestKeys.get(authority);
    if (derived === undefined) {
      derived = deriveRequestKey(key.privateKey, (serverKey as VerificationKey).publicKey, agentId, serverId as string, authority);
      if (requestKeys.size >= 64) requestKeys.clear();
      requestKeys.set(authority, derived);
    }
    return derived;
  };

  async function sign(request: SignableRequest): Promise<Record<string, string>> {
    const url = typeof request.url === 'string' ? new URL(request.url) : request.url;
    const headers: Record<string, string> = {};
    const components: string[] = [...HTTP_SIGNATURE_COMPONENTS];
    const hasBody = request.body !== undefined && request.body.length > 0;
    if (hasBody) {
      headers['content-digest'] = await contentDigest(request.body as string | Uint8Array);
      components.push('content-digest');
    }
    const created = Math.floor(clock() / 1000);
    // 96 random bits (16 characters, the least a verifier takes): unique per caller within any
    // signature window by a wide margin; the replay check is the server's memory, not the nonce's secrecy.
    const nonce = encodeBase64Url(globalThis.crypto.getRandomValues(new Uint8Array(12)));
    const message: HttpSignatureMessage = { method: request.method, authority: url.host, target: `${url.pathname}${url.search}`, headers };
    const params = { created, expires: created + ttl, nonce, keyid: agentId };
    const signed =
      serverKey === undefined
        ? signHttpMessage(message, { key, label: HTTP_SIGNATURE_LABEL, components, params: { ...params, alg: 'ed25519' } })
        : signBaseWith(message, { label: HTTP_SIGNATURE_LABEL, components, params: { ...params, alg: HMAC_SIGNATURE_ALG } }, (base) =>
            hmac(sha256, requestKeyFor(url.host), base),
          );
    headers['signature-input'] = signed.signatureInput;
    headers.signature = signed.signature;
    return headers;
  }

  const signer: HttpRequestSigner = {
    agentId,
    sign,
    async apply(request) {
      const added = await sign({ method: request.method, url: request.url, body: request.body });
      for (const [name, value] of Object.entries(added)) request.headers.set(name, value);
    },
    forPeer(peer) {
      // An explicit serverKey, or the opt-out, decides for every peer.
      if (serverKey !== undefined || requestSignature === 'ed25519') return signer;
      const peerKey = fastPathKeyOf(peer);
      return peerKey === undefined ? signer : createHttpRequestSigner({ ...options, serverKey: peerKey });
    },
  };
  return signer;
}
