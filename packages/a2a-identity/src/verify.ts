import { agentIdFromPublicKey, readDeclaredAgentId } from './agent-id.js';
import { decodeBase64Url, encodeBase64Url } from './base64url.js';
import { describeValue } from '@a2aplane/a2a-types';
import { canonicalCardPayload } from './card-canonical.js';
import { findDuplicateKey } from './json-duplicates.js';
import type { KeyResolver } from './key-resolver.js';
import { isSigningAlgorithm, type SigningAlgorithm, type VerificationKey } from './key-types.js';
import { sha256Digest, verifySignature } from './webcrypto.js';

export type CardVerificationResult =
  | {
      status: 'valid';
      kid: string;
      algorithm: SigningAlgorithm;
      /** The AgentID of the Ed25519 key that signed the card. */
      agentId?: string;
      /**
       * That key itself (Ed25519 only), base64url of its 32 raw bytes (a JWK's `x`): the key a
       * request signer agrees on the fast path with (decision 0037), never taken from the card.
       */
      publicKey?: string;
    }
  /**
   * The card declares an AgentID (ruvector extension `agent_id`) that no valid signature's key
   * hashes to: a card quoting another agent's AgentID, signed with the publisher's own key.
   */
  | { status: 'agent-id-mismatch'; declared: string; signers: string[] }
  /** A signature by a key the resolver trusts does not verify over this card. */
  | { status: 'tampered'; detail: string }
  /** No signature is by a key the resolver knows. */
  | { status: 'untrusted-key'; kids: string[] }
  /** `alg` none / HS256 / RS256 / unknown, `alg` that does not fit the key, or an unknown `crit`. */
  | { status: 'unsupported-algorithm'; algorithms: string[] }
  | { status: 'no-signature' }
  /** Not JSON, not an object, or signatures that are not well-formed JWS parts. */
  | { status: 'malformed'; detail: string };

/** Remembers successful verifications so discovery does not redo the curve math. */
export interface VerificationCache {
  get(key: string): CardVerificationResult | undefined;
  set(key: string, value: CardVerificationResult): void;
}

export interface VerifyAgentCardOptions {
  cache?: VerificationCache;
}

/**
 * A bounded LRU of `valid` results keyed by resolver, SHA-256 of the canonical payload and the signatures.
 * Only `valid` is stored: a failure may be transient (JWKS fetch). Entries outlive key revocation
 * until evicted or `ttlMs` passes, so keep `ttlMs` near your JWKS TTL.
 */
export function createVerificationCache(options?: { maxEntries?: number; ttlMs?: number; clock?: () => number }): VerificationCache {
  const maxEntries = options?.maxEntries ?? 1000;
  if (!Number.isInteger(maxEntries) || maxEntries < 1) throw new RangeError(`expected maxEntries >= 1, got ${describeValue(maxEntries)}`);
  const ttlMs = options?.ttlMs ?? 300_000;
  if (typeof ttlMs !== 'number' || !Number.isFinite(ttlMs) || ttlMs < 0)
    throw new RangeError(`expected ttlMs >= 0, got ${describeValue(ttlMs)}`);
  const clock = options?.clock ?? Date.now;
  if (typeof clock !== 'function') throw new TypeError(`expected clock to be a function, got ${describeValue(clock)}`);
  const entries = new Map<string, { value: CardVerificationResult; expiresAt: number }>();
  return {
    get(key) {
      const entry = entries.get(key);
      if (!entry) return undefined;
      entries.delete(key);
      if (entry.expiresAt <= clock()) return undefined;
      entries.set(key, entry); // most recently used last
      return entry.value;
    },
    set(key, value) {
      if (value.status !== 'valid') return;
      entries.delete(key);
      entries.set(key, { value, expiresAt: clock() + ttlMs });
      while (entries.size > maxEntries) {
        const oldest = entries.keys().next().value;
        if (oldest === undefined) break;
        entries.delete(oldest);
      }
    },
  };
}

// A cache shared by verifiers with different trust must not hand one resolver's "valid" to another.
const resolverIds = new WeakMap<KeyResolver, number>();
let nextResolverId = 0;
function resolverId(resolver: KeyResolver): number {
  let id = resolverIds.get(resolver);
  if (id === undefined) {
    id = nextResolverId++;
    resolverIds.set(resolver, id);
  }
  return id;
}

interface ParsedSignature {
  protectedB64: string;
  signature: Uint8Array;
  header: Record<string, unknown>;
  /** The JWS unprotected header (`header` member); never used to find or check a key. */
  unprotectedHeader: Record<string, unknown>;
}

type Outcome =
  | { kind: 'valid'; key: VerificationKey; algorithm: SigningAlgorithm }
  | { kind: 'tampered'; detail: string }
  | { kind: 'untrusted'; kid: string }
  | { kind: 'unsupported'; algorithm: string }
  | { kind: 'malformed'; detail: string };

/**
 * Verifies an agent card (spec §8.4.3) over the card *as received*: pass the response text when
 * you have it. Valid when at least one signature by a key the resolver returns verifies, so a
 * card carrying a stale signature next to a current one (key rotation) is valid; and when the
 * card declares an AgentID, one of those keys must hash to it (else `agent-id-mismatch`).
 * Signatures are checked with WebCrypto (Ed25519, ECDSA P-256). Never throws.
 *
 * When several signatures fail, the reported status is the most alarming one:
 * tampered > unsupported-algorithm > malformed > untrusted-key.
 */
export async function verifyAgentCard(
  cardJson: string | Record<string, unknown>,
  resolver: KeyResolver,
  options?: VerifyAgentCardOptions,
): Promise<CardVerificationResult> {
  try {
    return await verifyUnsafe(cardJson, resolver, options);
  } catch (error) {
    return { status: 'malformed', detail: `verification failed: ${error instanceof Error ? error.message : String(error)}` };
  }
}

async function verifyUnsafe(
  cardJson: string | Record<string, unknown>,
  resolver: KeyResolver,
  options?: VerifyAgentCardOptions,
): Promise<CardVerificationResult> {
  let card: unknown = cardJson;
  if (typeof cardJson === 'string') {
    try {
      card = JSON.parse(cardJson);
    } catch {
      return { status: 'malformed', detail: 'agent card is not valid JSON' };
    }
    const duplicate = findDuplicateKey(cardJson);
    if (duplicate !== undefined) return { status: 'malformed', detail: `agent card repeats the member name ${JSON.stringify(duplicate)}` };
  }
  if (typeof card !== 'object' || card === null || Array.isArray(card))
    return { status: 'malformed', detail: 'agent card is not a JSON object' };
  const signatures = (card as Record<string, unknown>).signatures;
  if (signatures === undefined || signatures === null || (Array.isArray(signatures) && signatures.length === 0))
    return { status: 'no-signature' };
  if (!Array.isArray(signatures)) return { status: 'malformed', detail: 'signatures is not an array' };

  let payload: Uint8Array;
  try {
    payload = canonicalCardPayload(card);
  } catch (error) {
    return { status: 'malformed', detail: `agent card cannot be canonicalized: ${error instanceof Error ? error.message : String(error)}` };
  }

  const cacheKey = options?.cache
    ? `${resolverId(resolver)}:${encodeBase64Url(await sha256Digest(payload))}:${JSON.stringify(signatures)}`
    : undefined;
  if (cacheKey !== undefined) {
    const hit = options?.cache?.get(cacheKey);
    if (hit) return hit;
  }

  const payloadB64 = encodeBase64Url(payload);
  const declaredAgentId = readDeclaredAgentId(card);
  const outcomes: Outcome[] = [];
  const valid: Array<CardVerificationResult & { status: 'valid' }> = [];
  for (let i = 0; i < signatures.length; i++) {
    const outcome = await checkSignature(signatures[i], i, payloadB64, resolver);
    if (outcome.kind !== 'valid') {
      outcomes.push(outcome);
      continue;
    }
    const { key, algorithm } = outcome;
    const result: CardVerificationResult & { status: 'valid' } =
      algorithm === 'EdDSA' && key.publicKey.length === 32
        ? {
            status: 'valid',
            kid: key.kid,
            algorithm,
            agentId: agentIdFromPublicKey(key.publicKey),
            publicKey: encodeBase64Url(key.publicKey),
          }
        : { status: 'valid', kid: key.kid, algorithm };
    valid.push(result);
    // A declared AgentID must be the hash of a key that signed the card: report that signature.
    if (declaredAgentId === undefined || result.agentId === declaredAgentId) break;
  }
  let verdict: CardVerificationResult | undefined;
  if (valid.length > 0) {
    verdict =
      declaredAgentId === undefined
        ? valid[0]
        : (valid.find((result) => result.agentId === declaredAgentId) ?? {
            status: 'agent-id-mismatch',
            declared: declaredAgentId,
            signers: valid.flatMap((result) => (result.agentId === undefined ? [] : [result.agentId])),
          });
  }
  if (verdict) {
    if (cacheKey !== undefined) options?.cache?.set(cacheKey, verdict);
    return verdict;
  }
  return summarize(outcomes);
}

function summarize(outcomes: Outcome[]): CardVerificationResult {
  const tampered = outcomes.filter((o) => o.kind === 'tampered');
  if (tampered.length > 0) return { status: 'tampered', detail: tampered.map((o) => o.detail).join('; ') };
  const unsupported = outcomes.filter((o) => o.kind === 'unsupported');
  if (unsupported.length > 0) return { status: 'unsupported-algorithm', algorithms: unsupported.map((o) => o.algorithm) };
  const malformed = outcomes.filter((o) => o.kind === 'malformed');
  if (malformed.length > 0) return { status: 'malformed', detail: malformed.map((o) => o.detail).join('; ') };
  return { status: 'untrusted-key', kids: outcomes.flatMap((o) => (o.kind === 'untrusted' ? [o.kid] : [])) };
}

function parseSignature(entry: unknown, index: number): ParsedSignature | { error: string } {
  if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) return { error: `signatures[${index}] is not an object` };
  const { protected: protectedB64, signature } = entry as Record<string, unknown>;
  if (typeof protectedB64 !== 'string' || typeof signature !== 'string')
    return { error: `signatures[${index}] lacks protected/signature strings` };
  const headerBytes = decodeBase64Url(protectedB64);
  const signatureBytes = decodeBase64Url(signature);
  if (!headerBytes || !signatureBytes) return { error: `signatures[${index}] is not base64url` };
  let header: unknown;
  try {
    const headerText = new TextDecoder('utf-8', { fatal: true }).decode(headerBytes);
    header = JSON.parse(headerText);
    if (findDuplicateKey(headerText) !== undefined) return { error: `signatures[${index}] protected header repeats a parameter` };
  } catch {
    return { error: `signatures[${index}] protected header is not JSON` };
  }
  if (typeof header !== 'object' || header === null || Array.isArray(header))
    return { error: `signatures[${index}] protected header is not an object` };
  const unprotected = (entry as Record<string, unknown>).header;
  if (unprotected !== undefined && (typeof unprotected !== 'object' || unprotected === null || Array.isArray(unprotected))) {
    return { error: `signatures[${index}] unprotected header is not an object` };
  }
  const unprotectedHeader = (unprotected ?? {}) as Record<string, unknown>;
  // RFC 7515 §7.2.1: a parameter may appear in the protected or the unprotected header, never both.
  const shared = Object.keys(unprotectedHeader).find((name) => Object.hasOwn(header as object, name));
  if (shared !== undefined) return { error: `signatures[${index}] repeats ${JSON.stringify(shared)} in the unprotected header` };
  return { protectedB64, signature: signatureBytes, header: header as Record<string, unknown>, unprotectedHeader };
}

async function checkSignature(entry: unknown, index: number, payloadB64: string, resolver: KeyResolver): Promise<Outcome> {
  const parsed = parseSignature(entry, index);
  if ('error' in parsed) return { kind: 'malformed', detail: parsed.error };
  const { header } = parsed;
  const alg = header.alg;
  if (typeof alg !== 'string') return { kind: 'malformed', detail: `signatures[${index}] protected header has no alg` };
  // Only the two asymmetric algorithms: `none`, HMAC (public key as secret) and the rest never get near a key.
  if (!isSigningAlgorithm(alg)) return { kind: 'unsupported', algorithm: alg };
  // RFC 7515 §4.1.11: an extension we do not understand listed in `crit` makes the JWS invalid.
  if (header.crit !== undefined) return { kind: 'unsupported', algorithm: `${alg} (crit: ${JSON.stringify(header.crit)})` };
  // `crit` must be integrity protected (RFC 7515 §4.1.11); in the unprotected header it makes the JWS invalid.
  if (Object.hasOwn(parsed.unprotectedHeader, 'crit')) {
    return { kind: 'unsupported', algorithm: `${alg} (unprotected crit: ${JSON.stringify(parsed.unprotectedHeader.crit)})` };
  }
  if (header.kid !== undefined && typeof header.kid !== 'string')
    return { kind: 'malformed', detail: `signatures[${index}] kid is not a string` };
  if (header.jku !== undefined && typeof header.jku !== 'string')
    return { kind: 'malformed', detail: `signatures[${index}] jku is not a string` };
  const kid = header.kid as string | undefined;
  const jku = header.jku as string | undefined;

  let candidates: VerificationKey[];
  try {
    const resolved = await resolver.resolve({ alg, ...(kid !== undefined ? { kid } : {}), ...(jku !== undefined ? { jku } : {}) });
    candidates = Array.isArray(resolved) ? resolved : [];
  } catch {
    candidates = [];
  }
  if (candidates.length === 0) return { kind: 'untrusted', kid: kid ?? '' };
  const fitting = candidates.filter((key) => key.algorithm === alg);
  if (fitting.length === 0) return { kind: 'unsupported', algorithm: `${alg} (key ${kid ?? ''} is ${candidates[0]!.algorithm})` };

  const signingInput = new TextEncoder().encode(`${parsed.protectedB64}.${payloadB64}`);
  for (const key of fitting) {
    if (await verifySignature(alg, key, signingInput, parsed.signature)) return { kind: 'valid', key, algorithm: alg };
  }
  return { kind: 'tampered', detail: `signatures[${index}] (kid ${kid ?? '?'}, ${alg}) does not verify over this card` };
}
