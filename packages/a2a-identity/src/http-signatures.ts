import { ed25519, x25519 } from '@noble/curves/ed25519';
import { hkdf } from '@noble/hashes/hkdf';
import { hmac } from '@noble/hashes/hmac';
import { sha256 } from '@noble/hashes/sha2';
import { agentIdFromPublicKey, isAgentId } from './agent-id.js';
import { encodeBase64Url } from './base64url.js';
import { fastPathKeyOf, type RequestSignatureAlg, type RequestSignerPeer } from './request-signatures-extension.js';
import { describeValue } from '@a2aplane/a2a-types';
import { createNonceCache, type NonceCache } from './nonce-cache.js';
import { equalBytes, type KeyPair, type VerificationKey } from './keys.js';
import {
  type BareItem,
  type InnerList,
  isInnerList,
  type Parameters,
  decodeBase64,
  parseDictionary,
  serializeInnerList,
  StructuredFieldError,
} from './structured-fields.js';
import { profileBase, profileTargetLines, readProfileInput } from './signature-profile.js';
import { sha256Digest, verifySignature } from './webcrypto.js';

/**
 * HTTP Message Signatures (RFC 9421) with Ed25519, and Content-Digest (RFC 9530, sha-256): how an
 * agent proves on every request that it holds the key behind its AgentID. The generic layer
 * (`httpSignatureBase`, `signHttpMessage`, `verifyHttpMessageSignature`) follows the RFC; the A2A
 * profile on top (`createHttpRequestSigner`, `createHttpSignatureVerifier`) fixes what is signed
 * and what a verifier demands. Browser and edge safe: signing is @noble/curves, verifying WebCrypto.
 * The fast path (decision 0028): `hmac-sha256` under a key derived from a static X25519 agreement
 * of the caller's and the server's Ed25519 keys, bound to both AgentIDs and the server's authority.
 */

/** A request as both ends see it: `target` is the request-target (path and query, as sent). */
export interface HttpSignatureMessage {
  method: string;
  /** Host (and port when not the scheme's default), as in the `Host` header. */
  authority: string;
  /** Path and query as on the request line, such as `/a2a/jsonrpc` or `/a2a/rest/tasks?pageSize=2`. */
  target: string;
  /** Header values by name (any case). */
  headers: Headers | Record<string, string | string[] | undefined>;
  /** Needed only to cover `@target-uri` or `@scheme`. */
  scheme?: 'http' | 'https';
}

/** Signature parameters (RFC 9421 §2.3), serialized in this order when present. */
export interface SignatureParameters {
  created?: number;
  expires?: number;
  nonce?: string;
  alg?: string;
  keyid?: string;
  tag?: string;
}

export class HttpSignatureError extends Error {}

const PARAM_ORDER = ['created', 'expires', 'nonce', 'alg', 'keyid', 'tag'] as const;

function headerOf(message: HttpSignatureMessage, name: string): string | undefined {
  const headers = message.headers;
  if (typeof (headers as Headers).get === 'function' && typeof (headers as Headers).has === 'function') {
    return (headers as Headers).get(name) ?? undefined;
  }
  const record = headers as Record<string, string | string[] | undefined>;
  let value = record[name];
  if (value === undefined) {
    for (const key of Object.keys(record)) {
      if (key.toLowerCase() === name) {
        value = record[key];
        break;
      }
    }
  }
  return Array.isArray(value) ? value.join(', ') : value;
}

function splitTarget(target: string): { path: string; query: string } {
  const index = target.indexOf('?');
  return index < 0 ? { path: target || '/', query: '?' } : { path: target.slice(0, index) || '/', query: target.slice(index) };
}

/** The value of one covered component (RFC 9421 §2.1, §2.2). */
function componentValue(message: HttpSignatureMessage, name: string): string {
  switch (name) {
    case '@method':
      return message.method.toUpperCase();
    case '@authority':
      return message.authority.toLowerCase();
    case '@path':
      return splitTarget(message.target).path;
    case '@query':
      return splitTarget(message.target).query;
    case '@request-target':
      return message.target;
    case '@scheme':
    case '@target-uri': {
      if (message.scheme === undefined) throw new HttpSignatureError(`${name} needs the request scheme`);
      return name === '@scheme' ? message.scheme : `${message.scheme}://${message.authority.toLowerCase()}${message.target}`;
    }
    default: {
      if (name.startsWith('@')) throw new HttpSignatureError(`unsupported derived component ${name}`);
      if (name !== name.toLowerCase()) throw new HttpSignatureError(`component names are lower case, got ${name}`);
      const value = headerOf(message, name);
      if (value === undefined) throw new HttpSignatureError(`covered header ${name} is missing`);
      // RFC 9421 §2.1: strip leading/trailing whitespace (obs-fold never reaches us).
      return value.trim();
    }
  }
}

function paramsOf(params: SignatureParameters): Parameters {
  const out: Parameters = new Map();
  for (const key of PARAM_ORDER) {
    const value = params[key];
    if (value !== undefined) out.set(key, value);
  }
  return out;
}

/** The `@signature-params` inner list and the signature base (RFC 9421 §2.5). */
function buildBase(message: HttpSignatureMessage, list: InnerList): string {
  const names: string[] = [];
  for (const item of list.items) {
    if (typeof item.value !== 'string') throw new HttpSignatureError('covered components must be strings');
    if (item.params.size > 0) throw new HttpSignatureError(`component parameters are not supported (${item.value})`);
    names.push(item.value);
  }
  return baseOf(message, names, serializeInnerList(list));
}

/** The signature base over `names`, `signatureParams` being the serialized inner list. */
function baseOf(message: HttpSignatureMessage, names: readonly string[], signatureParams: string): string {
  let base = '';
  for (let i = 0; i < names.length; i++) {
    const name = names[i] as string;
    if (name === '@signature-params') throw new HttpSignatureError('@signature-params cannot be covered');
    if (names.indexOf(name) !== i) throw new HttpSignatureError(`component ${name} is covered twice`);
    base += `"${name}": ${componentValue(message, name)}\n`;
  }
  return `${base}"@signature-params": ${signatureParams}`;
}

/** The signature base of `message` over `components` with `params` (RFC 9421 §2.5). */
export function httpSignatureBase(message: HttpSignatureMessage, components: readonly string[], params: SignatureParameters): string {
  const list: InnerList = { items: components.map((value) => ({ value, params: new Map() })), params: paramsOf(params) };
  return buildBase(message, list);
}

/** Signs `message` with an Ed25519 key (RFC 9421 §3.3.6); the two header values to send under `label`. */
export function signHttpMessage(
  message: HttpSignatureMessage,
  options: { key: KeyPair; label: string; components: readonly string[]; params: SignatureParameters },
): { signatureInput: string; signature: string } {
  const { key } = options;
  if (key?.algorithm !== 'EdDSA' || !(key.privateKey instanceof Uint8Array)) {
    throw new TypeError(`expected an Ed25519 KeyPair, got ${key?.algorithm === undefined ? describeValue(key) : key.algorithm}`);
  }
  return signBaseWith(message, options, (base) => ed25519.sign(base, key.privateKey));
}

/** Builds the signature base and signs it with `sign` (Ed25519 or an HMAC): the two header values. */
function signBaseWith(
  message: HttpSignatureMessage,
  options: { label: string; components: readonly string[]; params: SignatureParameters },
  sign: (base: Uint8Array) => Uint8Array,
): { signatureInput: string; signature: string } {
  const { label } = options;
  if (!/^[a-z*][a-z0-9_\-.*]*$/.test(label)) throw new TypeError(`expected a structured-field key as label, got ${JSON.stringify(label)}`);
  const list: InnerList = { items: options.components.map((value) => ({ value, params: new Map() })), params: paramsOf(options.params) };
  const base = buildBase(message, list);
  const signature = sign(utf8.encode(base));
  return { signatureInput: `${label}=${serializeInnerList(list)}`, signature: `${label}=:${encodeStd(signature)}:` };
}
const utf8 = new TextEncoder();

function encodeStd(bytes: Uint8Array): string {
  const url = encodeBase64Url(bytes).replace(/-/g, '+').replace(/_/g, '/');
  return url + '='.repeat((4 - (url.length % 4)) % 4);
}

/** One signature of a message, parsed: what it covers, its parameters, its bytes. */
export interface ParsedHttpSignature {
  label: string;
  components: string[];
  params: Map<string, BareItem>;
  signature: Uint8Array;
  /** The signature base it was computed over. */
  base: string;
}

/**
 * Reads the signature `label` (or the only one) from `Signature-Input` and `Signature` and builds
 * its signature base. Throws `HttpSignatureError` when the fields are missing or malformed.
 */
export function readHttpSignature(message: HttpSignatureMessage, label?: string, preferred?: string): ParsedHttpSignature {
  const inputHeader = headerOf(message, 'signature-input');
  const signatureHeader = headerOf(message, 'signature');
  if (inputHeader === undefined || signatureHeader === undefined)
    throw new HttpSignatureError('Signature-Input and Signature are both required');
  let inputs: ReturnType<typeof parseDictionary>;
  let signatures: ReturnType<typeof parseDictionary>;
  try {
    inputs = parseDictionary(inputHeader);
    signatures = parseDictionary(signatureHeader);
  } catch (error) {
    throw new HttpSignatureError(error instanceof StructuredFieldError ? error.message : 'unreadable signature fields');
  }
  const chosen =
    label ?? (preferred !== undefined && inputs.has(preferred) ? preferred : inputs.size === 1 ? [...inputs.keys()][0] : undefined);
  if (chosen === undefined) throw new HttpSignatureError('several signatures and no label to choose one');
  const input = inputs.get(chosen);
  const signature = signatures.get(chosen);
  if (!input || !isInnerList(input)) throw new HttpSignatureError(`Signature-Input has no inner list labelled ${chosen}`);
  if (!signature || isInnerList(signature) || !(signature.value instanceof Uint8Array)) {
    throw new HttpSignatureError(`Signature has no byte sequence labelled ${chosen}`);
  }
  const base = buildBase(message, input);
  return {
    label: chosen,
    components: input.items.map((item) => item.value as string),
    params: input.params,
    signature: signature.value,
    base,
  };
}

/** Verifies an Ed25519 signature read by {@link readHttpSignature} with `key`. Never rejects. */
export function verifyHttpSignatureWith(parsed: ParsedHttpSignature, key: VerificationKey): Promise<boolean> {
  return verifySignature('EdDSA', key, new TextEncoder().encode(parsed.base), parsed.signature);
}

/**
 * `sha-256=:<base64>:`, the Content-Digest (RFC 9530) of `body`. Small bodies (most A2A requests)
 * are hashed in place: a WebCrypto call costs a thread-pool round trip that outweighs hashing a
 * few KiB; large ones go to WebCrypto so they do not hold the event loop.
 */
export async function contentDigest(body: Uint8Array | string): Promise<string> {
  return `sha-256=:${encodeStd(await sha256Of(typeof body === 'string' ? utf8.encode(body) : body))}:`;
}
const INLINE_DIGEST_BYTES = 16_384;
function sha256Of(bytes: Uint8Array): Uint8Array | Promise<Uint8Array> {
  return bytes.length <= INLINE_DIGEST_BYTES ? sha256(bytes) : sha256Digest(bytes);
}

// ---------------------------------------------------------------------------------------------
// The fast path: a request key both agents derive from their own Ed25519 keys (decision 0028).

/** The RFC 9421 `alg` of the fast path. */
export const HMAC_SIGNATURE_ALG = 'hmac-sha256' as const;
const HMAC_KEY_SALT = utf8.encode('a2aplane/rfc9421/hmac-sha256/v1');

/**
 * The HMAC-SHA256 key for requests from `callerId` to `serverId` at `authority`: HKDF-SHA256 of
 * the X25519 agreement of the two agents' Ed25519 keys (RFC 7748, the birational map of RFC 8032's
 * curve), salted with a fixed label, the info naming the caller, the server and the authority in
 * that order (the direction matters: the caller's requests to the server are not the server's
 * requests to the caller). Throws on a small-order or invalid public key.
 */
function deriveRequestKey(ownPrivateKey: Uint8Array, peerPublicKey: Uint8Array, callerId: string, serverId: string, authority: string) {
  // A small-order key would make the agreement predictable (anyone could derive the request key).
  if (ed25519.Point.fromHex(peerPublicKey).isSmallOrder()) throw new HttpSignatureError('the peer key has small order');
  // x25519 throws on an all-zero shared secret.
  const shared = x25519.getSharedSecret(ed25519.utils.toMontgomerySecret(ownPrivateKey), ed25519.utils.toMontgomery(peerPublicKey));
  return hkdf(sha256, shared, HMAC_KEY_SALT, utf8.encode(`${callerId}\n${serverId}\n${authority.toLowerCase()}`), 32);
}

// ---------------------------------------------------------------------------------------------
// The A2A profile.

/** The label a2aplane signs under. */
export const HTTP_SIGNATURE_LABEL = 'a2a';
/** What a2aplane signs: the method, the target (authority, path, query) and, with a body, its digest. */
export const HTTP_SIGNATURE_COMPONENTS = ['@method', '@authority', '@path', '@query'] as const;
const DEFAULT_TTL_SECONDS = 60;
const DEFAULT_MAX_WINDOW_SECONDS = 300;
const DEFAULT_SKEW_SECONDS = 30;

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
  | 'unknown-key'
  /** The request names an authority this server does not answer to (or none is known to check against). */
  | 'wrong-authority'
  | 'digest-mismatch'
  | 'bad-signature'
  | 'replayed';

export type HttpSignatureVerification =
  | { ok: true; agentId: string; created: number; expires: number; alg: 'ed25519' | 'hmac-sha256' }
  | { ok: false; reason: HttpSignatureFailure; detail: string };

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
  /** Replay protection. Default: a fresh `createNonceCache()` for this verifier. */
  nonces?: NonceCache;
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
  /** HMAC-SHA256, for the fast path. Default @noble/hashes. `data` is reused after the call returns: do not keep it. */
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
  /** Clock difference tolerated on `created` and `expires`. Default 30 seconds. */
  clockSkewSeconds?: number;
  clock?: () => number;
}

export interface HttpSignatureVerifier {
  verify(request: VerifiableRequest): Promise<HttpSignatureVerification>;
  /** The `alg` values it accepts: `ed25519`, and `hmac-sha256` with `ownKey` (what `withRequestSignaturesExtension` advertises). */
  readonly algorithms: readonly RequestSignatureAlg[];
  /** The AgentID of `ownKey`, when given. */
  readonly agentId: string | undefined;
}

const coversMethodAndTarget = (components: readonly string[]): boolean =>
  components.includes('@method') &&
  (components.includes('@target-uri') ||
    (components.includes('@authority') && components.includes('@path') && components.includes('@query')));

const fail = (reason: HttpSignatureFailure, detail: string): HttpSignatureVerification => ({ ok: false, reason, detail });
const malformed = (error: unknown): HttpSignatureVerification =>
  fail('malformed', error instanceof Error ? error.message : 'unreadable signature');

/** A verification's result, or the promise of it when a step had to wait (a key from a card, WebCrypto). */
type Outcome = HttpSignatureVerification | Promise<HttpSignatureVerification>;

/** What a verification has read and checked before the caller's key is known. */
interface Claim {
  fields: SignatureFields;
  keyid: string;
  nonce: string;
  created: number;
  expires: number;
  fast: boolean;
  coversDigest: boolean;
  target: RequestTarget;
  inputHeader: string | undefined;
  digestField: string | undefined;
  body: Uint8Array | undefined;
}

// SHAKE-256 of a key once per key object, not per request (resolvers hand out the same objects).
const agentIds = new WeakMap<VerificationKey, string>();
function agentIdOf(key: VerificationKey): string {
  let id = agentIds.get(key);
  if (id === undefined) {
    id = agentIdFromPublicKey(key.publicKey);
    agentIds.set(key, id);
  }
  return id;
}
const CANONICAL_DIGEST_LENGTH = 'sha-256=::'.length + 44;
const BODYLESS = new Set(['GET', 'HEAD', 'DELETE', 'OPTIONS']);

/**
 * Verifies a2aplane request signatures: Ed25519 (or, with `ownKey`, HMAC-SHA256 under the request
 * key of decision 0028) over `@method`, the target (`@authority`, `@path`, `@query`, or
 * `@target-uri`) and, whenever there is a body, a covered `content-digest` that matches it;
 * `created`, `expires` (a window of at most `maxWindowSeconds`) and a `nonce` never seen before;
 * `keyid` is the caller's AgentID and the resolved key must hash to it; the authority must be one
 * this server answers to. Never throws.
 */
export function createHttpSignatureVerifier(options: HttpSignatureVerifierOptions): HttpSignatureVerifier {
  if (typeof options?.resolveKey !== 'function')
    throw new TypeError(`expected options.resolveKey to be a function, got ${describeValue(options?.resolveKey)}`);
  const maxWindow = options.maxWindowSeconds ?? DEFAULT_MAX_WINDOW_SECONDS;
  const skew = options.clockSkewSeconds ?? DEFAULT_SKEW_SECONDS;
  if (!Number.isSafeInteger(maxWindow) || maxWindow < 1)
    throw new RangeError(`expected maxWindowSeconds >= 1, got ${describeValue(maxWindow)}`);
  if (!Number.isSafeInteger(skew) || skew < 0) throw new RangeError(`expected clockSkewSeconds >= 0, got ${describeValue(skew)}`);
  const clock = options.clock ?? Date.now;
  const nonces = options.nonces ?? createNonceCache({ clock });
  if (
    options.authorities !== undefined &&
    options.authorities !== 'any' &&
    (!Array.isArray(options.authorities) || !options.authorities.every((a) => typeof a === 'string' && a !== ''))
  ) {
    throw new TypeError(
      `expected options.authorities to be an array of host[:port] strings or 'any', got ${describeValue(options.authorities)}`,
    );
  }
  const authorities =
    options.authorities === undefined || options.authorities === 'any' ? undefined : options.authorities.map((a) => a.toLowerCase());
  const anyAuthority = options.authorities === 'any';
  for (const name of ['verifyEd25519', 'sha256', 'sha256Base64', 'hmacSha256'] as const) {
    if (options[name] !== undefined && typeof options[name] !== 'function') {
      throw new TypeError(`expected options.${name} to be a function, got ${describeValue(options[name])}`);
    }
  }
  const checkEd25519 = options.verifyEd25519;
  const digestOfBody = options.sha256 ?? sha256Of;
  const base64DigestOf = options.sha256Base64;
  const mac = options.hmacSha256 ?? ((key: Uint8Array, data: Uint8Array) => hmac(sha256, key, data));
  const { ownKey } = options;
  if (ownKey !== undefined && (ownKey?.algorithm !== 'EdDSA' || !(ownKey.privateKey instanceof Uint8Array))) {
    throw new TypeError(`expected an Ed25519 KeyPair as options.ownKey, got ${describeValue(ownKey)}`);
  }
  const ownId = ownKey === undefined ? undefined : agentIdFromPublicKey(ownKey.publicKey);
  const maxRequestKeys = options.maxRequestKeys ?? 10_000;
  if (!Number.isSafeInteger(maxRequestKeys) || maxRequestKeys < 1)
    throw new RangeError(`expected maxRequestKeys >= 1, got ${describeValue(maxRequestKeys)}`);
  // Request keys by caller and authority: an X25519 agreement costs about an Ed25519 verification,
  // so it is done once per caller, not per request. Only trusted callers' keys (resolveKey) and
  // accepted authorities get here; past the bound the oldest entry leaves.
  const requestKeys = new Map<string, Uint8Array>();
  // The last caller's key is kept at hand: a server mostly hears the same few callers in a row.
  let last: { callerId: string; authority: string; key: Uint8Array } | undefined;
  const requestKeyOf = (callerKey: VerificationKey, callerId: string, authority: string): Uint8Array => {
    if (last !== undefined && last.callerId === callerId && last.authority === authority) return last.key;
    const derived = cachedRequestKey(callerKey, callerId, authority);
    last = { callerId, authority, key: derived };
    return derived;
  };
  const cachedRequestKey = (callerKey: VerificationKey, callerId: string, authority: string): Uint8Array => {
    const id = `${callerId}\n${authority}`;
    let derived = requestKeys.get(id);
    if (derived === undefined) {
      derived = deriveRequestKey((ownKey as KeyPair).privateKey, callerKey.publicKey, callerId, ownId as string, authority);
      if (requestKeys.size >= maxRequestKeys) requestKeys.delete(requestKeys.keys().next().value as string);
      requestKeys.set(id, derived);
    }
    return derived;
  };
  // What a request's method, authority and target give, kept for the last one seen: a server hears
  // the same target again and again, and the profile's base starts with the same four lines.
  let lastTarget: RequestTarget | undefined;
  const targetOf = (request: VerifiableRequest): RequestTarget => {
    const { method, authority, target } = request;
    if (lastTarget !== undefined && lastTarget.method === method && lastTarget.authority === authority && lastTarget.target === target)
      return lastTarget;
    lastTarget = {
      method,
      authority,
      target,
      upperMethod: method.toUpperCase(),
      lowerAuthority: authority.toLowerCase(),
      lines: undefined,
    };
    return lastTarget;
  };
  /** The signature base as bytes, in a buffer the next verification overwrites: use it synchronously. */
  const baseBytesOf = (fields: SignatureFields, target: RequestTarget, input: string, digest: string | undefined): Uint8Array => {
    if (fields.base !== undefined) return encodeBase(fields.base);
    if (target.lines === undefined) {
      const { path, query } = splitTarget(target.target);
      target.lines = profileTargetLines(target.upperMethod, target.lowerAuthority, path, query);
    }
    return profileBase(target.lines, fields.components.length > 4 ? digest : undefined, input);
  };

  // Synchronous functions, handing on to a promise only what is really asynchronous (a key from a
  // card, WebCrypto): a verification that needs neither runs to the end in the caller's turn, and
  // no async function keeps its whole frame alive per request (the largest allocation it made).
  function verifyRequest(request: VerifiableRequest): Outcome {
    try {
      const inputHeader = headerOf(request, 'signature-input');
      const signatureHeader = headerOf(request, 'signature');
      if (inputHeader === undefined && signatureHeader === undefined) return fail('unsigned', 'no Signature-Input or Signature');
      let fields: SignatureFields;
      const digestField = headerOf(request, 'content-digest');
      try {
        fields = readProfile(inputHeader, signatureHeader) ?? fieldsOf(readHttpSignature(request, undefined, HTTP_SIGNATURE_LABEL));
        // As the general reader refuses it: a covered header must be there.
        if (fields.profile && fields.components.length > 4 && digestField === undefined)
          throw new HttpSignatureError('covered header content-digest is missing');
      } catch (error) {
        return fail('malformed', error instanceof Error ? error.message : 'unreadable signature');
      }
      const { keyid, alg, created, expires, nonce, components } = fields;
      if (typeof keyid !== 'string' || (!fields.profile && !isAgentId(keyid)))
        return fail('unsupported', 'keyid must be the caller AgentID (64 lowercase hex characters)');
      const fast = alg === HMAC_SIGNATURE_ALG;
      if (fast && ownKey === undefined) return fail('unsupported', 'this server does not accept hmac-sha256 signatures');
      if (alg !== undefined && alg !== 'ed25519' && !fast)
        return fail('unsupported', `alg must be ed25519 or hmac-sha256, got ${typeof alg === 'string' ? alg : 'a non-string'}`);
      if (typeof created !== 'number' || typeof expires !== 'number') return fail('incomplete', 'created and expires are required');
      if (typeof nonce !== 'string' || nonce.length < 16 || nonce.length > 128)
        return fail('incomplete', 'a nonce of 16 to 128 characters is required');
      if (expires <= created || expires - created > maxWindow)
        return fail('expired', `the signature window must be 1 to ${maxWindow} seconds`);
      const now = Math.floor(clock() / 1000);
      if (created > now + skew) return fail('not-yet-valid', 'created is in the future');
      if (expires < now - skew) return fail('expired', 'the signature has expired');
      // A profile signature covers the method and the target by its form, and the digest when it has five components.
      if (!fields.profile && !coversMethodAndTarget(components))
        return fail('incomplete', 'the signature must cover @method and the target (@authority @path @query, or @target-uri)');
      const coversDigest = fields.profile ? components.length > 4 : components.includes('content-digest');
      const target = targetOf(request);
      if (!anyAuthority) {
        const allowed = authorities ?? request.authorities;
        if (allowed === undefined || allowed.length === 0)
          return fail('wrong-authority', 'no authorities to check the request against (set authorities, or authorities: "any")');
        if (!allowed.includes(target.lowerAuthority)) return fail('wrong-authority', 'the request is not addressed to this server');
      }
      if (request.body === undefined && !BODYLESS.has(target.upperMethod))
        return fail('incomplete', 'the request body is not available to check its digest');
      const hasBody = request.body !== undefined && request.body.length > 0;
      if (hasBody && !coversDigest) return fail('incomplete', 'a request with a body must cover content-digest');

      const claim: Claim = {
        fields,
        keyid,
        nonce,
        created,
        expires,
        fast,
        coversDigest,
        target,
        inputHeader,
        digestField,
        body: request.body,
      };
      let resolved: ReturnType<HttpSignatureVerifierOptions['resolveKey']>;
      try {
        resolved = options.resolveKey(keyid);
      } catch {
        resolved = undefined;
      }
      return isThenable(resolved)
        ? Promise.resolve(resolved).then(
            (key) => withKey(claim, key),
            () => withKey(claim, undefined),
          )
        : withKey(claim, resolved);
    } catch (error) {
      return malformed(error);
    }
  }

  /** The signature check with the resolved key, then the digest and the nonce. */
  function withKey(claim: Claim, key: VerificationKey | undefined): Outcome {
    try {
      // The same value as keyid, but one string per key rather than a slice of this request's
      // header: policy, budgets and task owners keyed by it hash it once and keep no header alive.
      const agentId = key?.algorithm === 'EdDSA' && key.publicKey.length === 32 ? agentIdOf(key) : undefined;
      if (key === undefined || agentId === undefined || agentId !== claim.keyid)
        return fail('unknown-key', 'no trusted key for this AgentID');
      const { fields, target } = claim;
      if (claim.fast) {
        let requestKey: Uint8Array;
        try {
          requestKey = requestKeyOf(key, agentId, target.lowerAuthority);
        } catch {
          return fail('unknown-key', 'the caller key cannot agree on a request key');
        }
        const good =
          fields.signature.length === 32 &&
          equalBytes(
            mac(requestKey, baseBytesOf(fields, target, claim.inputHeader as string, claim.digestField?.trim())),
            fields.signature,
          );
        return afterSignature(claim, agentId, good);
      }
      if (fields.signature.length !== 64) return afterSignature(claim, agentId, false);
      // A copy: the check may finish after another verification reused the buffer.
      const data = baseBytesOf(fields, target, claim.inputHeader as string, claim.digestField?.trim()).slice();
      const checked = checkEd25519
        ? checkEd25519(key.publicKey, data, fields.signature)
        : verifySignature('EdDSA', key, data, fields.signature);
      return isThenable(checked)
        ? Promise.resolve(checked).then((good) => afterSignature(claim, agentId, good), malformed)
        : afterSignature(claim, agentId, checked);
    } catch (error) {
      return malformed(error);
    }
  }

  function afterSignature(claim: Claim, agentId: string, good: boolean): Outcome {
    if (!good) return fail('bad-signature', 'the signature does not verify');
    if (!claim.coversDigest) return accept(claim, agentId);
    // The signer's form (`sha-256=:<44 base64 digits>:`) against the body's digest as base64 text:
    // equal text is equal bytes; anything else is decided on the bytes below, as before.
    const field = claim.digestField;
    if (
      base64DigestOf !== undefined &&
      field !== undefined &&
      field.length === CANONICAL_DIGEST_LENGTH &&
      field.startsWith('sha-256=:') &&
      field.charCodeAt(CANONICAL_DIGEST_LENGTH - 1) === 58 /* : */ &&
      field.startsWith(base64DigestOf(claim.body ?? EMPTY_BODY), 9)
    )
      return accept(claim, agentId);
    const digest = digestOf(claim.digestField);
    if (!digest) return fail('digest-mismatch', 'content-digest must carry sha-256');
    const computed = digestOfBody(claim.body ?? EMPTY_BODY);
    return isThenable(computed)
      ? Promise.resolve(computed).then((bytes) => afterDigest(claim, agentId, digest, bytes), malformed)
      : afterDigest(claim, agentId, digest, computed);
  }

  function afterDigest(claim: Claim, agentId: string, digest: Uint8Array, computed: Uint8Array): HttpSignatureVerification {
    if (!equalBytes(digest, computed)) return fail('digest-mismatch', 'the body does not match content-digest');
    return accept(claim, agentId);
  }

  function accept(claim: Claim, agentId: string): HttpSignatureVerification {
    try {
      // Last, once the signature is known good: junk cannot fill the cache.
      if (!nonces.add(nonceKey(agentId, claim.nonce), (claim.expires + skew) * 1000))
        return fail('replayed', 'this nonce was already used (or the replay cache is full)');
    } catch (error) {
      return malformed(error);
    }
    return { ok: true, agentId, created: claim.created, expires: claim.expires, alg: claim.fast ? HMAC_SIGNATURE_ALG : 'ed25519' };
  }

  const verify = (request: VerifiableRequest): Promise<HttpSignatureVerification> => Promise.resolve(verifyRequest(request));

  return { verify, algorithms: ownKey === undefined ? ['ed25519'] : ['ed25519', HMAC_SIGNATURE_ALG], agentId: ownId };
}

// The signature base as UTF-8, in a buffer reused from request to request (encodeInto costs a
// third of encode): only for the MAC, which is synchronous and done with its input when it returns.
let baseBytes = new Uint8Array(2048);
function encodeBase(base: string): Uint8Array {
  if (base.length * 3 > baseBytes.length) baseBytes = new Uint8Array(base.length * 3);
  return baseBytes.subarray(0, utf8.encodeInto(base, baseBytes).written);
}

/** A request's method, authority and target, as given and as the verifier reads them. */
interface RequestTarget {
  method: string;
  authority: string;
  target: string;
  upperMethod: string;
  lowerAuthority: string;
  /** The profile's first four base lines for this target, once a profile signature needed them. */
  lines: Uint8Array | undefined;
}

/** What the verifier reads of a signature, whichever reader read it. */
interface SignatureFields {
  /** Read by the profile's own reader, which already checked that keyid is an AgentID. */
  profile: boolean;
  components: readonly string[];
  keyid: BareItem | undefined;
  alg: BareItem | undefined;
  created: BareItem | undefined;
  expires: BareItem | undefined;
  nonce: BareItem | undefined;
  signature: Uint8Array;
  /** The signature base (general reader); a profile signature's is written as bytes when checked. */
  base: string | undefined;
}

const fieldsOf = (parsed: ParsedHttpSignature): SignatureFields => ({
  profile: false,
  components: parsed.components,
  keyid: parsed.params.get('keyid'),
  alg: parsed.params.get('alg'),
  created: parsed.params.get('created'),
  expires: parsed.params.get('expires'),
  nonce: parsed.params.get('nonce'),
  signature: parsed.signature,
  base: parsed.base,
});

const PROFILE_SIGNATURE_PREFIX = `${HTTP_SIGNATURE_LABEL}=:`;
const PROFILE_COMPONENTS: readonly string[] = HTTP_SIGNATURE_COMPONENTS;
const PROFILE_COMPONENTS_WITH_DIGEST: readonly string[] = [...HTTP_SIGNATURE_COMPONENTS, 'content-digest'];
const EMPTY_BODY = new Uint8Array(0);

/**
 * The fields of a signature in the exact form createHttpRequestSigner writes (label `a2a`, the
 * four target components and, with a body, content-digest; the parameters in its order; one
 * member each), read without the general parser; `undefined` for any other form, which
 * readHttpSignature reads. Both readers give the same fields and base (tested).
 */
function readProfile(inputHeader: string | undefined, signatureHeader: string | undefined): SignatureFields | undefined {
  if (inputHeader === undefined || signatureHeader === undefined) return undefined;
  const input = readProfileInput(inputHeader);
  if (!input || !signatureHeader.startsWith(PROFILE_SIGNATURE_PREFIX) || !signatureHeader.endsWith(':')) return undefined;
  // decodeBase64 checks the digits: what is left between the colons must be one byte sequence.
  const bytes = decodeBase64(signatureHeader, PROFILE_SIGNATURE_PREFIX.length, signatureHeader.length - 1);
  if (!bytes) return undefined;
  return {
    profile: true,
    components: input.withDigest ? PROFILE_COMPONENTS_WITH_DIGEST : PROFILE_COMPONENTS,
    created: input.created,
    expires: input.expires,
    nonce: input.nonce,
    alg: input.alg,
    keyid: input.keyid,
    signature: bytes,
    base: undefined,
  };
}

const isThenable = <T>(value: T | PromiseLike<T>): value is PromiseLike<T> =>
  typeof value === 'object' && value !== null && typeof (value as PromiseLike<T>).then === 'function';

/**
 * The replay-cache key of a nonce: a 64-bit AgentID prefix and the nonce (random, 128 bits from our
 * signer). Both are slices of the Signature-Input string, and a string built from slices keeps
 * its parents alive: held for the signature's lifetime, every entry would keep the whole header
 * (about 420 bytes an entry instead of about 110, measured on Node 20). Reading a character
 * flattens the concatenation into a string of its own (V8 flattens a rope on character access),
 * so the cache holds only the key's bytes.
 */
function nonceKey(agentId: string, nonce: string): string {
  const key = `${agentId.slice(0, 16)}:${nonce}`;
  // The read must stay: a bundler drops a call whose result is unused (esbuild did).
  if (key.charCodeAt(16) !== 58 /* : */) throw new HttpSignatureError('unexpected AgentID');
  return key;
}

/** The sha-256 value of a Content-Digest field, if it has one. */
function digestOf(field: string | undefined): Uint8Array | undefined {
  if (field === undefined) return undefined;
  // The form our signer sends (`sha-256=:<44 base64 digits>:`), read without the general parser.
  if (field.length === CANONICAL_DIGEST_LENGTH && field.startsWith('sha-256=:') && field.endsWith(':')) {
    const digest = decodeBase64(field, 9, field.length - 1);
    if (digest?.length === 32) return digest;
  }
  try {
    const member = parseDictionary(field).get('sha-256');
    if (!member || isInnerList(member) || !(member.value instanceof Uint8Array) || member.value.length !== 32) return undefined;
    return member.value;
  } catch {
    return undefined;
  }
}
