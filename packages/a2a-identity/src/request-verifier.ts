import { agentIdFromPublicKey, isAgentId } from './agent-id.js';
import { isAcceptableEd25519PublicKey } from './ed25519-public-key.js';
import { HMAC_SIGNATURE_ALG } from './hmac-request-key.js';
import { equalBytes } from './keys.js';
import type { VerificationKey } from './key-types.js';
import { HTTP_SIGNATURE_LABEL } from './request-signer.js';
import { readVerifierOptions, type VerifierContext } from './request-verifier-options.js';
import type {
  HttpSignatureFailure,
  HttpSignatureVerification,
  HttpSignatureVerifier,
  HttpSignatureVerifierOptions,
  VerifiableRequest,
} from './request-verifier-types.js';
import { HttpSignatureError, headerOf, readHttpSignature, splitTarget, utf8 } from './rfc9421.js';
import {
  CANONICAL_DIGEST_LENGTH,
  coversMethodAndTarget,
  digestOf,
  EMPTY_BODY,
  fieldsOf,
  isThenable,
  nonceKey,
  type RequestTarget,
  readProfile,
  type SignatureFields,
} from './signature-fields.js';
import { profileBase, profileTargetLines } from './signature-profile.js';
import { verifySignature } from './webcrypto.js';

/**
 * The A2A request verifier. Synchronous functions, handing on to a promise only what is really
 * asynchronous (a key from a card, WebCrypto, a shared replay cache): a verification that needs
 * none runs to the end in the caller's turn, and no async function keeps its frame alive per
 * request. Every signature failure costs the same work: an unknown key is checked against a
 * dummy key, so a stranger cannot tell a trusted AgentID from the time a refusal takes.
 */

const fail = (reason: HttpSignatureFailure, detail: string): HttpSignatureVerification => ({ ok: false, reason, detail });
const malformed = (error: unknown): HttpSignatureVerification =>
  fail('malformed', error instanceof Error ? error.message : 'unreadable signature');

/** A verification's result, or the promise of it when a step had to wait. */
type Outcome = HttpSignatureVerification | Promise<HttpSignatureVerification>;

/** `next(value)` now, or once `value` settles; `onError` for a rejection. */
function then<T>(value: T | PromiseLike<T>, next: (value: T) => Outcome, onError: (error: unknown) => Outcome): Outcome {
  return isThenable(value) ? Promise.resolve(value).then(next, onError) : next(value);
}

/** What a verification has read and checked before the caller's key is known. */
interface Claim {
  fields: SignatureFields;
  keyid: string;
  nonce: string;
  created: number;
  expires: number;
  /** The first millisecond (on the verifier's clock) at which the signature is no longer accepted. */
  acceptUntilMs: number;
  fast: boolean;
  coversDigest: boolean;
  target: RequestTarget;
  inputHeader: string;
  digestField: string | undefined;
  body: Uint8Array | undefined;
}

// RFC 8032 §7.1 TEST 1's public key: a valid key that no caller resolves to. An unknown caller's
// signature is checked against it (and the HMAC computed under a fixed key) and the verdict dropped.
const DUMMY_KEY: VerificationKey = {
  algorithm: 'EdDSA',
  kid: 'dummy',
  publicKey: Uint8Array.from([
    0xd7, 0x5a, 0x98, 0x01, 0x82, 0xb1, 0x0a, 0xb7, 0xd5, 0x4b, 0xfe, 0xd3, 0xc9, 0x64, 0x07, 0x3a, 0x0e, 0xe1, 0x72, 0xf3, 0xda, 0xa6,
    0x23, 0x25, 0xaf, 0x02, 0x1a, 0x68, 0xf7, 0x07, 0x51, 0x1a,
  ]),
};
const DUMMY_REQUEST_KEY = new Uint8Array(32);

// SHAKE-256 of a key once per key object, not per request (resolvers hand out the same objects);
// '' for a key no caller may have (not Ed25519, small-order, non-canonical).
const agentIds = new WeakMap<VerificationKey, string>();
function trustedAgentIdOf(key: VerificationKey | undefined): string | undefined {
  if (key === undefined || key === null || typeof key !== 'object') return undefined;
  let id = agentIds.get(key);
  if (id === undefined) {
    id = key.algorithm === 'EdDSA' && isAcceptableEd25519PublicKey(key.publicKey) ? agentIdFromPublicKey(key.publicKey) : '';
    agentIds.set(key, id);
  }
  return id === '' ? undefined : id;
}

const BODYLESS = new Set(['GET', 'HEAD', 'DELETE', 'OPTIONS']);

function targetOf(context: VerifierContext, request: VerifiableRequest): RequestTarget {
  const { method, authority, target } = request;
  const last = context.lastTarget;
  if (last !== undefined && last.method === method && last.authority === authority && last.target === target) return last;
  const next = { method, authority, target, upperMethod: method.toUpperCase(), lowerAuthority: authority.toLowerCase(), lines: undefined };
  context.lastTarget = next;
  return next;
}

/** The signature base as UTF-8 bytes of its own (no buffer is shared across verifications). */
function baseBytesOf(claim: Claim): Uint8Array {
  const { fields, target } = claim;
  if (fields.base !== undefined) return utf8.encode(fields.base);
  if (target.lines === undefined) {
    const { path, query } = splitTarget(target.target);
    target.lines = profileTargetLines(target.upperMethod, target.lowerAuthority, path, query);
  }
  return profileBase(target.lines, fields.components.length > 4 ? claim.digestField?.trim() : undefined, claim.inputHeader);
}

/** The signature fields, by the profile's reader or the general one. */
function readFields(request: VerifiableRequest, inputHeader: string | undefined, signatureHeader: string | undefined) {
  const digestField = headerOf(request, 'content-digest');
  const fields = readProfile(inputHeader, signatureHeader) ?? fieldsOf(readHttpSignature(request, undefined, HTTP_SIGNATURE_LABEL));
  // As the general reader refuses it: a covered header must be there.
  if (fields.profile && fields.components.length > 4 && digestField === undefined)
    throw new HttpSignatureError('covered header content-digest is missing');
  return { fields, digestField };
}

/** Reads the signature and checks everything that needs no key: its form, its window, the authority, the digest's presence. */
function readClaim(context: VerifierContext, request: VerifiableRequest): Claim | HttpSignatureVerification {
  const inputHeader = headerOf(request, 'signature-input');
  const signatureHeader = headerOf(request, 'signature');
  if (inputHeader === undefined && signatureHeader === undefined) return fail('unsigned', 'no Signature-Input or Signature');
  let read: ReturnType<typeof readFields>;
  try {
    read = readFields(request, inputHeader, signatureHeader);
  } catch (error) {
    return malformed(error);
  }
  const { fields, digestField } = read;
  const { keyid, alg, created, expires, nonce, components } = fields;
  if (typeof keyid !== 'string' || (!fields.profile && !isAgentId(keyid)))
    return fail('unsupported', 'keyid must be the caller AgentID (64 lowercase hex characters)');
  const fast = alg === HMAC_SIGNATURE_ALG;
  if (fast && context.requestKeyOf === undefined) return fail('unsupported', 'this server does not accept hmac-sha256 signatures');
  if (alg !== undefined && alg !== 'ed25519' && !fast)
    return fail('unsupported', `alg must be ed25519 or hmac-sha256, got ${typeof alg === 'string' ? alg : 'a non-string'}`);
  if (!Number.isSafeInteger(created) || !Number.isSafeInteger(expires))
    return fail('incomplete', 'created and expires (integers) are required');
  if (typeof nonce !== 'string' || nonce.length < 16 || nonce.length > 128)
    return fail('incomplete', 'a nonce of 16 to 128 characters is required');
  const [from, until] = [created as number, expires as number];
  const { maxWindowSeconds: maxWindow, skewSeconds: skew } = context;
  if (until <= from || until - from > maxWindow) return fail('expired', `the signature window must be 1 to ${maxWindow} seconds`);
  // One bound, in milliseconds, for accepting the signature and for holding its nonce.
  const now = context.clock();
  if ((from - skew) * 1000 > now) return fail('not-yet-valid', 'created is in the future');
  const acceptUntilMs = (until + skew) * 1000;
  if (!(now < acceptUntilMs)) return fail('expired', 'the signature has expired');
  // A profile signature covers the method and the target by its form, and the digest when it has five components.
  if (!fields.profile && !coversMethodAndTarget(components))
    return fail('incomplete', 'the signature must cover @method and the target (@authority @path @query, or @target-uri)');
  const coversDigest = fields.profile ? components.length > 4 : components.includes('content-digest');
  const target = targetOf(context, request);
  if (!context.anyAuthority) {
    const allowed = context.authorities ?? request.authorities;
    if (allowed === undefined || allowed.length === 0)
      return fail('wrong-authority', 'no authorities to check the request against (set authorities, or authorities: "any")');
    if (!allowed.includes(target.lowerAuthority)) return fail('wrong-authority', 'the request is not addressed to this server');
  }
  if (request.body === undefined && !BODYLESS.has(target.upperMethod))
    return fail('incomplete', 'the request body is not available to check its digest');
  const hasBody = request.body !== undefined && request.body.length > 0;
  if (hasBody && !coversDigest) return fail('incomplete', 'a request with a body must cover content-digest');
  const body = request.body;
  return {
    fields,
    keyid,
    nonce,
    created: from,
    expires: until,
    acceptUntilMs,
    fast,
    coversDigest,
    target,
    inputHeader: inputHeader as string,
    digestField,
    body,
  };
}

function verifyRequest(context: VerifierContext, request: VerifiableRequest): Outcome {
  try {
    const claim = readClaim(context, request);
    if (!('fields' in claim)) return claim;
    let resolved: ReturnType<HttpSignatureVerifierOptions['resolveKey']>;
    try {
      resolved = context.resolveKey(claim.keyid);
    } catch {
      resolved = undefined;
    }
    return then(
      resolved,
      (key) => withKey(context, claim, key),
      () => withKey(context, claim, undefined),
    );
  } catch (error) {
    return malformed(error);
  }
}

/** The signature check with `key` and, on the fast path, `requestKey`: the dummy ones for an unknown caller, the same work. */
function checkSignature(context: VerifierContext, claim: Claim, key: VerificationKey, requestKey: Uint8Array): boolean | Promise<boolean> {
  const { signature } = claim.fields;
  if (claim.fast) {
    const computed = context.mac(requestKey, baseBytesOf(claim));
    return signature.length === 32 && equalBytes(computed, signature);
  }
  if (signature.length !== 64) return false;
  const data = baseBytesOf(claim);
  return context.checkEd25519 ? context.checkEd25519(key.publicKey, data, signature) : verifySignature('EdDSA', key, data, signature);
}

/** The signature check with the resolved key, then the digest, the identity check and the nonce. */
function withKey(context: VerifierContext, claim: Claim, key: VerificationKey | undefined): Outcome {
  try {
    // The same value as keyid, but one string per key rather than a slice of this request's
    // header: policy, budgets and task owners keyed by it hash it once and keep no header alive.
    const agentId = trustedAgentIdOf(key);
    let trusted = agentId !== undefined && agentId === claim.keyid;
    let requestKey: Uint8Array = DUMMY_REQUEST_KEY;
    if (trusted && claim.fast) {
      try {
        requestKey = (context.requestKeyOf as NonNullable<VerifierContext['requestKeyOf']>)(
          (key as VerificationKey).publicKey,
          agentId as string,
          claim.target.lowerAuthority,
        );
      } catch {
        trusted = false; // the caller key cannot agree on a request key
      }
    }
    return then(
      checkSignature(context, claim, trusted ? (key as VerificationKey) : DUMMY_KEY, requestKey),
      (good) => {
        if (!trusted) return fail('unknown-key', 'no trusted key for this AgentID');
        return good ? afterSignature(context, claim, agentId as string) : fail('bad-signature', 'the signature does not verify');
      },
      malformed,
    );
  } catch (error) {
    return malformed(error);
  }
}

function afterSignature(context: VerifierContext, claim: Claim, agentId: string): Outcome {
  if (!claim.coversDigest) return admit(context, claim, agentId);
  // The signer's form (`sha-256=:<44 base64 digits>:`) against the body's digest as base64 text:
  // equal text is equal bytes; anything else is decided on the bytes below, as before.
  const field = claim.digestField;
  if (
    context.base64DigestOf !== undefined &&
    field !== undefined &&
    field.length === CANONICAL_DIGEST_LENGTH &&
    field.startsWith('sha-256=:') &&
    field.charCodeAt(CANONICAL_DIGEST_LENGTH - 1) === 58 /* : */ &&
    field.startsWith(context.base64DigestOf(claim.body ?? EMPTY_BODY), 9)
  )
    return admit(context, claim, agentId);
  const digest = digestOf(claim.digestField);
  if (!digest) return fail('digest-mismatch', 'content-digest must carry sha-256');
  return then(
    context.digestOfBody(claim.body ?? EMPTY_BODY),
    (computed) =>
      equalBytes(digest, computed) ? admit(context, claim, agentId) : fail('digest-mismatch', 'the body does not match content-digest'),
    malformed,
  );
}

/** A good signature: the identity check, then the nonce (last, so junk and refused callers cannot fill the cache). */
function admit(context: VerifierContext, claim: Claim, agentId: string): Outcome {
  const { identity } = context;
  if (identity === undefined) return record(context, claim, agentId);
  const refused = (): HttpSignatureVerification => ({ ok: false, reason: 'not-allowed', detail: 'this caller is not allowed', agentId });
  let allowed: boolean | Promise<boolean>;
  try {
    allowed = identity.isAllowed(agentId);
  } catch {
    return refused();
  }
  return then(allowed, (yes) => (yes === true ? record(context, claim, agentId) : refused()), refused);
}

function record(context: VerifierContext, claim: Claim, agentId: string): Outcome {
  const replayed = (detail: string) => fail('replayed', detail);
  let added: boolean | Promise<boolean>;
  try {
    added = context.nonces.add(nonceKey(agentId, claim.nonce), claim.acceptUntilMs, agentId);
  } catch (error) {
    return replayed(`the replay cache failed (${error instanceof Error ? error.message : 'unknown error'})`);
  }
  return then(
    added,
    (ok): HttpSignatureVerification =>
      ok === true
        ? { ok: true, agentId, created: claim.created, expires: claim.expires, alg: claim.fast ? HMAC_SIGNATURE_ALG : 'ed25519' }
        : replayed('this nonce was already used, the signature has expired, or the replay cache is full'),
    (error) => replayed(`the replay cache did not answer (${error instanceof Error ? error.message : 'unknown error'})`),
  );
}

/**
 * Verifies a2aplane request signatures: Ed25519 (or, with `ownKey`, HMAC-SHA256 under the request
 * key of decision 0028) over `@method`, the target (`@authority`, `@path`, `@query`, or
 * `@target-uri`) and, whenever there is a body, a covered `content-digest` that matches it;
 * `created`, `expires` (a window of at most `maxWindowSeconds`) and a `nonce` never seen before;
 * `keyid` is the caller's AgentID and the resolved key must hash to it (and be neither small-order
 * nor non-canonical); the authority must be one this server answers to; with `identity`, the
 * caller must be allowed before its nonce is recorded. Never throws.
 */
export function createHttpSignatureVerifier(options: HttpSignatureVerifierOptions): HttpSignatureVerifier {
  const context = readVerifierOptions(options);
  return {
    verify: (request) => Promise.resolve(verifyRequest(context, request)),
    algorithms: context.requestKeyOf === undefined ? ['ed25519'] : ['ed25519', HMAC_SIGNATURE_ALG],
    agentId: context.ownId,
  };
}
