import { ed25519 } from '@noble/curves/ed25519';
import { hmac } from '@noble/hashes/hmac';
import { sha256 } from '@noble/hashes/sha2';
import { decodeBase64Url, encodeBase64Url } from './base64url.js';
import { describeValue } from '@a2aplane/a2a-types';
import { equalBytes } from './keys.js';
import { isSigningAlgorithm, type KeyPair, type VerificationKey } from './key-types.js';

/**
 * Push-notification signature headers (ADR-159 "signed webhooks"):
 *
 *     X-A2A-Timestamp: 1767225600
 *     X-A2A-Signature: alg=hmac-sha256,sig=<base64url>
 *     X-A2A-Signature: alg=ed25519,kid=<AgentID>,sig=<base64url>
 *
 * The signature covers the UTF-8 bytes of `<timestamp> + "." + <raw request body>`; the timestamp
 * is decimal Unix seconds. HMAC-SHA256 (shared secret, e.g. the push config's `token`) is the
 * interoperable default; Ed25519 (the sender's agent key) is opt-in.
 */
export const WEBHOOK_SIGNATURE_HEADER = 'X-A2A-Signature';
export const WEBHOOK_TIMESTAMP_HEADER = 'X-A2A-Timestamp';
export const DEFAULT_WEBHOOK_TOLERANCE_SECONDS = 300;

export type WebhookAlgorithm = 'hmac-sha256' | 'ed25519';

export interface WebhookSigner {
  readonly algorithm: WebhookAlgorithm;
  /** Headers to add to the webhook POST. `timestamp` (Unix seconds) defaults to now. */
  sign(body: string | Uint8Array, options?: { timestamp?: number }): Record<string, string>;
}

export type WebhookVerificationResult =
  | { ok: true; algorithm: WebhookAlgorithm; timestamp: number }
  | { ok: false; reason: 'missing-signature' | 'malformed' | 'bad-signature' | 'expired' | 'future-timestamp' | 'unsupported-algorithm' };

export interface WebhookVerifierOptions {
  hmacSecret?: string | Uint8Array;
  ed25519PublicKey?: Uint8Array | VerificationKey;
  /** Accepted clock skew / replay window either side of now. Default 300 seconds. */
  toleranceSeconds?: number;
  /** Milliseconds since the epoch; defaults to `Date.now`. */
  clock?: () => number;
}

export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

const encoder = new TextEncoder();

function signedBytes(timestamp: number, body: string | Uint8Array): Uint8Array {
  const prefix = encoder.encode(`${timestamp}.`);
  const bodyBytes = typeof body === 'string' ? encoder.encode(body) : body;
  const out = new Uint8Array(prefix.length + bodyBytes.length);
  out.set(prefix, 0);
  out.set(bodyBytes, prefix.length);
  return out;
}

function secretBytes(secret: string | Uint8Array): Uint8Array {
  const bytes = typeof secret === 'string' ? encoder.encode(secret) : secret;
  if (!(bytes instanceof Uint8Array) || bytes.length === 0) {
    throw new TypeError(`expected a non-empty webhook secret (string or Uint8Array), got ${describeValue(secret)}`);
  }
  return bytes;
}

function checkBody(body: unknown): void {
  if (typeof body !== 'string' && !(body instanceof Uint8Array))
    throw new TypeError(`expected the body as string or Uint8Array, got ${typeof body}`);
}

function resolveTimestamp(options?: { timestamp?: number }): number {
  const timestamp = options?.timestamp ?? Math.floor(Date.now() / 1000);
  if (!Number.isSafeInteger(timestamp) || timestamp < 0)
    throw new RangeError(`expected a timestamp in whole Unix seconds, got ${timestamp}`);
  return timestamp;
}

/** HMAC-SHA256 signer: the interoperable default. */
export function createHmacWebhookSigner(secret: string | Uint8Array): WebhookSigner {
  const key = secretBytes(secret).slice();
  return {
    algorithm: 'hmac-sha256',
    sign(body, options) {
      checkBody(body);
      const timestamp = resolveTimestamp(options);
      const mac = hmac(sha256, key, signedBytes(timestamp, body));
      return { [WEBHOOK_TIMESTAMP_HEADER]: String(timestamp), [WEBHOOK_SIGNATURE_HEADER]: `alg=hmac-sha256,sig=${encodeBase64Url(mac)}` };
    },
  };
}

/** Ed25519 signer with the agent's key: receivers verify with the public key, no shared secret. */
export function createEd25519WebhookSigner(key: KeyPair): WebhookSigner {
  if (key?.algorithm !== 'EdDSA' || !(key.privateKey instanceof Uint8Array)) {
    const got =
      typeof key === 'object' && key !== null && isSigningAlgorithm(key.algorithm)
        ? `${key.algorithm} ${key.privateKey instanceof Uint8Array ? 'KeyPair' : 'public key'}`
        : describeValue(key);
    throw new TypeError(`expected an EdDSA KeyPair, got ${got}`);
  }
  return {
    algorithm: 'ed25519',
    sign(body, options) {
      checkBody(body);
      const timestamp = resolveTimestamp(options);
      const signature = ed25519.sign(signedBytes(timestamp, body), key.privateKey);
      return {
        [WEBHOOK_TIMESTAMP_HEADER]: String(timestamp),
        [WEBHOOK_SIGNATURE_HEADER]: `alg=ed25519,kid=${key.kid},sig=${encodeBase64Url(signature)}`,
      };
    },
  };
}

function readHeader(headers: WebhookHeaders, name: string): string[] {
  if (typeof (headers as Headers).get === 'function') {
    const value = (headers as Headers).get(name);
    return value === null ? [] : [value];
  }
  const lower = name.toLowerCase();
  const out: string[] = [];
  for (const [key, value] of Object.entries(headers as Record<string, string | string[] | undefined>)) {
    if (key.toLowerCase() !== lower || value === undefined) continue;
    if (Array.isArray(value)) out.push(...value.filter((v): v is string => typeof v === 'string'));
    else if (typeof value === 'string') out.push(value);
  }
  return out;
}

function parseSignatureValue(value: string): Record<string, string> | undefined {
  const fields: Record<string, string> = Object.create(null);
  for (const part of value.split(',')) {
    const eq = part.indexOf('=');
    if (eq <= 0) return undefined;
    const name = part.slice(0, eq).trim();
    if (name in fields) return undefined;
    fields[name] = part.slice(eq + 1).trim();
  }
  return fields;
}

/**
 * Verifies a webhook: timestamp inside the window first (cheap, stops replays), then the signature
 * with a constant-time MAC comparison. Untrusted input never throws. A `Headers` object joins
 * repeated headers with ", ", so send one signature header per request.
 */
export function createWebhookVerifier(options: WebhookVerifierOptions): {
  verify(headers: WebhookHeaders, body: string | Uint8Array): WebhookVerificationResult;
} {
  const hmacKey = options?.hmacSecret !== undefined ? secretBytes(options.hmacSecret).slice() : undefined;
  let edKey: Uint8Array | undefined;
  if (options?.ed25519PublicKey !== undefined) {
    const key = options.ed25519PublicKey;
    if (key instanceof Uint8Array) edKey = key;
    else if (key?.algorithm === 'EdDSA') edKey = key.publicKey;
    if (edKey?.length !== 32) {
      const got =
        key instanceof Uint8Array
          ? `${key.length} bytes`
          : typeof key === 'object' && key !== null && 'algorithm' in key
            ? `a ${String(key.algorithm)} key`
            : describeValue(key);
      throw new TypeError(`expected a 32-byte Ed25519 public key or an EdDSA VerificationKey, got ${got}`);
    }
  }
  if (!hmacKey && !edKey)
    throw new TypeError(
      `expected hmacSecret or ed25519PublicKey, got ${options === undefined || options === null ? describeValue(options) : 'neither'}`,
    );
  if (options.clock !== undefined && typeof options.clock !== 'function')
    throw new TypeError(`expected clock to be a function, got ${describeValue(options.clock)}`);
  const tolerance = options.toleranceSeconds ?? DEFAULT_WEBHOOK_TOLERANCE_SECONDS;
  if (typeof tolerance !== 'number' || !Number.isFinite(tolerance) || tolerance < 0)
    throw new RangeError(`expected toleranceSeconds >= 0, got ${describeValue(tolerance)}`);
  const clock = options.clock ?? Date.now;

  return {
    verify(headers, body) {
      try {
        if (typeof headers !== 'object' || headers === null || (typeof body !== 'string' && !(body instanceof Uint8Array))) {
          return { ok: false, reason: 'malformed' };
        }
        const signatureValues = readHeader(headers, WEBHOOK_SIGNATURE_HEADER);
        const timestampValues = readHeader(headers, WEBHOOK_TIMESTAMP_HEADER);
        if (signatureValues.length === 0) return { ok: false, reason: 'missing-signature' };
        if (signatureValues.length !== 1 || timestampValues.length !== 1) return { ok: false, reason: 'malformed' };
        const timestampText = timestampValues[0]!.trim();
        if (!/^\d{1,12}$/.test(timestampText)) return { ok: false, reason: 'malformed' };
        const fields = parseSignatureValue(signatureValues[0]!);
        const sig = fields?.sig !== undefined ? decodeBase64Url(fields.sig) : undefined;
        if (!fields?.alg || !sig) return { ok: false, reason: 'malformed' };
        const algorithm = fields.alg;
        if (algorithm !== 'hmac-sha256' && algorithm !== 'ed25519') return { ok: false, reason: 'unsupported-algorithm' };
        if ((algorithm === 'hmac-sha256' && !hmacKey) || (algorithm === 'ed25519' && !edKey))
          return { ok: false, reason: 'unsupported-algorithm' };

        const timestamp = Number(timestampText);
        const now = Math.floor(clock() / 1000);
        if (now - timestamp > tolerance) return { ok: false, reason: 'expired' };
        if (timestamp - now > tolerance) return { ok: false, reason: 'future-timestamp' };

        const message = signedBytes(timestamp, body);
        const valid =
          algorithm === 'hmac-sha256'
            ? equalBytes(hmac(sha256, hmacKey!, message), sig)
            : sig.length === 64 && ed25519.verify(sig, message, edKey!, { zip215: false });
        return valid ? { ok: true, algorithm, timestamp } : { ok: false, reason: 'bad-signature' };
      } catch {
        return { ok: false, reason: 'malformed' };
      }
    },
  };
}
