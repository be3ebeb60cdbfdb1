import {
  canonicalCardPayload,
  createJwksKeyResolver,
  createPinnedKeyResolver,
  decodeBase64Url,
  type KeyResolver,
  readDeclaredAgentId,
  readPublicJwk,
  verifyAgentCard,
} from '@a2aplane/a2a-identity';
import type { AgentCard } from '@a2aplane/a2a-types';
import { type CardLimits, parseSubmittedCard } from './card-input.js';
import { grpcTargetOf } from './grpc-target.js';
import { checkOutboundUrl, fetchText, type OutboundOptions } from './fetch-text.js';
import type { RegistryJwk } from './types.js';

/** Why an enrollment was refused: one stable code per check (decision 0070). */
export type EnrollmentRefusal =
  | 'invalid-request'
  | 'oversize'
  | 'too-deep'
  | 'malformed'
  | 'no-signature'
  | 'tampered'
  | 'unsupported-algorithm'
  | 'untrusted-key'
  | 'agent-id-mismatch'
  | 'no-agent-id'
  | 'foreign-jku'
  | 'interface-off-origin'
  | 'unsafe-origin'
  | 'origin-unreachable'
  | 'origin-mismatch'
  | 'revoked'
  | 'key-retired'
  | 'conflict';

/** What an agent (or its operator) submits. */
export interface EnrollmentRequest {
  /** The signed card, as JSON text (the bytes its signatures cover). */
  card: string;
  /** The public keys that may have signed it; without it the signature's `jku` on the agent's origin is read. */
  jwks?: { keys: unknown[] };
  /** Where the agent serves the card. Default: `/.well-known/agent-card.json` on the first interface's origin. */
  cardUrl?: string;
  /** Trust tier (operator config tiers). Default `default`. */
  tier?: string;
  /** Who owns the agent (team, person). Default: the enrolling operator. */
  owner?: string;
}

export interface VerifiedEnrollment {
  agentId: string;
  key: RegistryJwk;
  card: AgentCard;
  cardText: string;
  cardUrl: string;
  origin: string;
}

export type EnrollmentVerification =
  | { ok: true; enrollment: VerifiedEnrollment }
  | { ok: false; reason: EnrollmentRefusal; detail: string };

export interface EnrollmentCheckOptions extends OutboundOptions, CardLimits {
  /** Timeout of the fetch of the card (and JWKS) from the agent's origin. Default 5000 ms. */
  fetchTimeoutMs?: number;
}

const refuse = (reason: EnrollmentRefusal, detail: string): EnrollmentVerification => ({ ok: false, reason, detail });

/** The `jku` of every signature that names one; `undefined` entries are headers we leave to the verifier. */
function signatureJkus(json: Record<string, unknown>): string[] {
  const signatures = Array.isArray(json.signatures) ? json.signatures : [];
  const jkus: string[] = [];
  for (const signature of signatures) {
    const encoded = typeof signature === 'object' && signature !== null ? (signature as { protected?: unknown }).protected : undefined;
    const bytes = typeof encoded === 'string' ? decodeBase64Url(encoded) : undefined;
    if (!bytes) continue;
    try {
      const header = JSON.parse(new TextDecoder().decode(bytes)) as { jku?: unknown };
      if (header.jku !== undefined) jkus.push(String(header.jku));
    } catch {
      // Not JSON: the verifier reports it as malformed.
    }
  }
  return jkus;
}

function cardUrlOf(request: EnrollmentRequest, card: AgentCard): { ok: true; url: URL } | { ok: false; detail: string } {
  // The first interface with an http(s) URL (a gRPC `host:port` is no base for a card URL).
  const first = card.supportedInterfaces.find((entry) => /^https?:\/\//i.test(entry.url) && URL.canParse(entry.url))?.url;
  const raw = request.cardUrl ?? (first ? new URL('/.well-known/agent-card.json', first).href : undefined);
  if (raw === undefined || !URL.canParse(raw)) return { ok: false, detail: 'card has no interface URL and no cardUrl was given' };
  return { ok: true, url: new URL(raw) };
}

function resolverFor(request: EnrollmentRequest, origin: string, options: EnrollmentCheckOptions): KeyResolver | string {
  if (request.jwks === undefined) {
    return createJwksKeyResolver({
      ...(options.fetch ? { fetch: options.fetch } : {}),
      allowedJkuPrefixes: [`${origin}/`],
      allowInsecureLoopback: options.allowLoopback === true,
      ttlMs: 0,
      timeoutMs: options.fetchTimeoutMs ?? 5000,
    });
  }
  if (typeof request.jwks !== 'object' || request.jwks === null || !Array.isArray(request.jwks.keys) || request.jwks.keys.length > 16) {
    return 'jwks must be { keys: [...] } with at most 16 keys';
  }
  const keys = [];
  for (const entry of request.jwks.keys) {
    const read = readPublicJwk(entry);
    if (!read.ok) return `jwks holds an invalid public key: ${read.reason}`;
    keys.push(read.key);
  }
  return createPinnedKeyResolver(keys);
}

/**
 * Every check of an enrollment, in order, without touching a store: the card's shape and size,
 * its origin (SSRF rules), `jku` on that origin, the JWS and the AgentID bound to the signing key,
 * then the card the origin itself serves must be the same card signed by the same key.
 * Untrusted input never throws here: each failure is a typed refusal.
 */
export async function verifyEnrollment(request: EnrollmentRequest, options: EnrollmentCheckOptions = {}): Promise<EnrollmentVerification> {
  if (typeof request !== 'object' || request === null) return refuse('invalid-request', 'expected an enrollment request object');
  const parsed = parseSubmittedCard(request.card, options);
  if (!parsed.ok) return refuse(parsed.reason, parsed.detail);
  const target = cardUrlOf(request, parsed.card);
  if (!target.ok) return refuse('invalid-request', target.detail);
  const origin = target.url.origin;
  // Before any fetch (the JWKS of a `jku` included): the origin must pass the SSRF rules.
  const safe = await checkOutboundUrl(target.url.href, options);
  if (!safe.ok) return refuse('unsafe-origin', safe.reason);
  const onOrigin = (entry: AgentCard['supportedInterfaces'][number]) =>
    entry.protocolBinding === 'GRPC'
      ? grpcTargetOf(entry.url, origin) !== undefined
      : URL.canParse(entry.url) && new URL(entry.url).origin === origin;
  if (!parsed.card.supportedInterfaces.some(onOrigin)) {
    return refuse('interface-off-origin', `no interface of the card is on the card's origin ${origin}`);
  }
  const foreign = signatureJkus(parsed.json).find((jku) => !URL.canParse(jku) || !new URL(jku).href.startsWith(`${origin}/`));
  if (foreign !== undefined) return refuse('foreign-jku', `signature names a JWKS off the agent's origin: ${foreign}`);
  const resolver = resolverFor(request, origin, options);
  if (typeof resolver === 'string') return refuse('invalid-request', resolver);

  const verdict = await verifyAgentCard(request.card, resolver);
  if (verdict.status !== 'valid') {
    const detail =
      verdict.status === 'agent-id-mismatch'
        ? `card declares ${verdict.declared}, signed by ${verdict.signers.join(', ') || 'no Ed25519 key'}`
        : JSON.stringify(verdict);
    return refuse(verdict.status, detail);
  }
  const declared = readDeclaredAgentId(parsed.json);
  if (declared === undefined || verdict.agentId === undefined || verdict.publicKey === undefined) {
    return refuse('no-agent-id', 'the card must declare the AgentID of the Ed25519 key that signs it');
  }
  const key: RegistryJwk = { kty: 'OKP', crv: 'Ed25519', x: verdict.publicKey, kid: verdict.kid };

  const served = await fetchText(
    target.url.href,
    { headers: { accept: 'application/json' }, timeoutMs: options.fetchTimeoutMs ?? 5000, maxBytes: options.maxCardBytes ?? 65_536 },
    options,
  );
  if (!served.ok) return refuse(served.kind === 'unsafe' ? 'unsafe-origin' : 'origin-unreachable', served.detail);
  if (served.status !== 200) return refuse('origin-unreachable', `${target.url.href} answered HTTP ${served.status}`);
  if (!(await sameCard(request.card, served.text, key))) {
    return refuse('origin-mismatch', `${target.url.href} serves another card than the one submitted`);
  }
  return {
    ok: true,
    enrollment: { agentId: verdict.agentId, key, card: parsed.card, cardText: request.card, cardUrl: target.url.href, origin },
  };
}

/** The origin's card is the submitted one (same canonical payload) and verifies with the same key. */
async function sameCard(submitted: string, served: string, key: RegistryJwk): Promise<boolean> {
  let servedJson: unknown;
  try {
    servedJson = JSON.parse(served);
    const a = canonicalCardPayload(JSON.parse(submitted));
    const b = canonicalCardPayload(servedJson);
    if (a.length !== b.length || !a.every((byte, index) => byte === b[index])) return false;
  } catch {
    return false;
  }
  const verdict = await verifyAgentCard(served, createPinnedKeyResolver([key]));
  return verdict.status === 'valid';
}
