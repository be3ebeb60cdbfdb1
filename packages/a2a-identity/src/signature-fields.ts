import { HTTP_SIGNATURE_COMPONENTS, HTTP_SIGNATURE_LABEL } from './request-signer.js';
import { HttpSignatureError, type ParsedHttpSignature } from './rfc9421.js';
import { readProfileInput } from './signature-profile.js';
import { type BareItem, decodeBase64, isInnerList, parseDictionary } from './structured-fields.js';

/**
 * What the A2A verifier reads of a request before any key is involved: the signature's fields by
 * either reader (the profile's exact form, or the general RFC 9421 parser), the Content-Digest,
 * the replay-cache key of a nonce.
 */

/** A request's method, authority and target, as given and as the verifier reads them. */
export interface RequestTarget {
  method: string;
  authority: string;
  target: string;
  upperMethod: string;
  lowerAuthority: string;
  /** The profile's first four base lines for this target, once a profile signature needed them. */
  lines: Uint8Array | undefined;
}

/** What the verifier reads of a signature, whichever reader read it. */
export interface SignatureFields {
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

export const fieldsOf = (parsed: ParsedHttpSignature): SignatureFields => ({
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
export const EMPTY_BODY = new Uint8Array(0);

/**
 * The fields of a signature in the exact form createHttpRequestSigner writes (label `a2a`, the
 * four target components and, with a body, content-digest; the parameters in its order; one
 * member each), read without the general parser; `undefined` for any other form, which
 * readHttpSignature reads. Both readers give the same fields and base (tested).
 */
export function readProfile(inputHeader: string | undefined, signatureHeader: string | undefined): SignatureFields | undefined {
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

export const isThenable = <T>(value: T | PromiseLike<T>): value is PromiseLike<T> =>
  typeof value === 'object' && value !== null && typeof (value as PromiseLike<T>).then === 'function';

/**
 * The replay-cache key of a nonce: a 64-bit AgentID prefix and the nonce (random, 128 bits from our
 * signer). Both are slices of the Signature-Input string, and a string built from slices keeps
 * its parents alive: held for the signature's lifetime, every entry would keep the whole header
 * (about 420 bytes an entry instead of about 110, measured on Node 20). Reading a character
 * flattens the concatenation into a string of its own (V8 flattens a rope on character access),
 * so the cache holds only the key's bytes.
 */
export function nonceKey(agentId: string, nonce: string): string {
  const key = `${agentId.slice(0, 16)}:${nonce}`;
  // The read must stay: a bundler drops a call whose result is unused (esbuild did).
  if (key.charCodeAt(16) !== 58 /* : */) throw new HttpSignatureError('unexpected AgentID');
  return key;
}

/** The sha-256 value of a Content-Digest field, if it has one. */
export function digestOf(field: string | undefined): Uint8Array | undefined {
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

export const CANONICAL_DIGEST_LENGTH = 'sha-256=::'.length + 44;

export const coversMethodAndTarget = (components: readonly string[]): boolean =>
  components.includes('@method') &&
  (components.includes('@target-uri') ||
    (components.includes('@authority') && components.includes('@path') && components.includes('@query')));
