import { ed25519 } from '@noble/curves/ed25519';
import { sha256 } from '@noble/hashes/sha2';
import { describeValue } from '@a2aplane/a2a-types';
import { encodeBase64Url } from './base64url.js';
import type { KeyPair, VerificationKey } from './key-types.js';
import {
  type BareItem,
  type InnerList,
  isInnerList,
  type Parameters,
  parseDictionary,
  serializeInnerList,
  StructuredFieldError,
} from './structured-fields.js';
import { sha256Digest, verifySignature } from './webcrypto.js';

/**
 * HTTP Message Signatures (RFC 9421) with Ed25519, and Content-Digest (RFC 9530, sha-256): the
 * generic layer, as the RFC defines it (signature base, signing, reading, verifying with a key).
 * The A2A profile on top is `request-signer.ts` and `request-verifier.ts`; the HMAC fast path's
 * request key is `hmac-request-key.ts`. Browser and edge safe: signing is @noble/curves,
 * verifying WebCrypto.
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

export function headerOf(message: HttpSignatureMessage, name: string): string | undefined {
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

export function splitTarget(target: string): { path: string; query: string } {
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
export function signBaseWith(
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
export const utf8 = new TextEncoder();

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
  return verifySignature('EdDSA', key, utf8.encode(parsed.base), parsed.signature);
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
export function sha256Of(bytes: Uint8Array): Uint8Array | Promise<Uint8Array> {
  return bytes.length <= INLINE_DIGEST_BYTES ? sha256(bytes) : sha256Digest(bytes);
}
