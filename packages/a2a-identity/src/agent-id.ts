import type { AgentCard, AgentExtension, RuvectorCardParams } from '@a2aplane/a2a-types';
import { shake256 } from '@noble/hashes/sha3';
import { bytesToHex } from '@noble/hashes/utils';
import { isAcceptableEd25519PublicKey } from './ed25519-public-key.js';
import type { VerificationKey } from './key-types.js';

const AGENT_ID = /^[0-9a-f]{64}$/;

/**
 * a2a-types' `RUVECTOR_EXTENSION_URI` (a test keeps them equal). Not imported: the verify-only
 * entry is loaded with a dynamic import, and a bundler that inlines it would then keep all of the
 * a2a-types root, zod schemas included, for this one string.
 */
export const RUVECTOR_EXTENSION_URI = 'urn:a2aplane:extension:ruvector:v1';

/**
 * AgentID (ADR-159 r2): lowercase hex of SHAKE-256 over the raw 32-byte Ed25519 public key, 32
 * bytes of output. Same key, same id, whatever URL the agent is served from.
 */
export function agentIdFromPublicKey(ed25519PublicKey: Uint8Array): string {
  if (!(ed25519PublicKey instanceof Uint8Array) || ed25519PublicKey.length !== 32) {
    throw new TypeError(`expected a 32-byte Ed25519 public key, got ${describeBytes(ed25519PublicKey)}`);
  }
  return bytesToHex(shake256(ed25519PublicKey, { dkLen: 32 }));
}

/** 64 lowercase hex characters. */
export function isAgentId(value: unknown): value is string {
  return typeof value === 'string' && AGENT_ID.test(value);
}

export type CardAgentIdCheck =
  | { ok: true; agentId: string }
  | { ok: false; reason: 'missing' | 'mismatch' | 'not-ed25519'; expected?: string; found?: string };

/**
 * Does the card's declared `agent_id` (params of the ruvector extension) belong to the key that
 * signed it? Without this binding a peer could quote someone else's AgentID at its own URL. A
 * small-order or non-canonical Ed25519 key (one a forged signature verifies with) reads as `not-ed25519`.
 * Never throws: `card` is untrusted.
 */
export function checkCardAgentId(card: AgentCard | unknown, signingKey: VerificationKey): CardAgentIdCheck {
  const found = readDeclaredAgentId(card);
  if (signingKey.algorithm !== 'EdDSA' || !isAcceptableEd25519PublicKey(signingKey.publicKey)) {
    return found === undefined ? { ok: false, reason: 'not-ed25519' } : { ok: false, reason: 'not-ed25519', found };
  }
  const expected = agentIdFromPublicKey(signingKey.publicKey);
  if (found === undefined) return { ok: false, reason: 'missing', expected };
  if (found !== expected) return { ok: false, reason: 'mismatch', expected, found };
  return { ok: true, agentId: expected };
}

/** The raw `agent_id` declared in the card, or `undefined`. Non-string values read as their JSON text. */
export function readDeclaredAgentId(card: unknown): string | undefined {
  const extensions = (asObject(asObject(card)?.capabilities)?.extensions ?? undefined) as unknown;
  if (!Array.isArray(extensions)) return undefined;
  for (const extension of extensions) {
    const ext = asObject(extension);
    if (!ext || ext.uri !== RUVECTOR_EXTENSION_URI) continue;
    const params = asObject(ext.params);
    if (!params || !Object.hasOwn(params, 'agent_id')) return undefined;
    const value = params.agent_id;
    return typeof value === 'string' ? value : JSON.stringify(value);
  }
  return undefined;
}

/**
 * A copy of `card` whose ruvector extension (`capabilities.extensions`, URI
 * `RUVECTOR_EXTENSION_URI`) carries `agent_id` plus any `extra` params; existing params are kept.
 * Sign the card after this, not before.
 */
export function withAgentIdExtension(card: AgentCard, agentId: string, extra?: Partial<RuvectorCardParams>): AgentCard {
  if (!isAgentId(agentId)) throw new TypeError(`expected an AgentID (64 lowercase hex characters), got ${JSON.stringify(agentId)}`);
  if (typeof card !== 'object' || card === null) throw new TypeError(`expected an agent card, got ${card === null ? 'null' : typeof card}`);
  const capabilities = card.capabilities ?? {};
  const extensions = [...(capabilities.extensions ?? [])];
  const index = extensions.findIndex((ext) => ext.uri === RUVECTOR_EXTENSION_URI);
  const existing: AgentExtension | undefined = index >= 0 ? extensions[index] : undefined;
  const params = { ...(existing?.params ?? {}), ...(extra ?? {}), agent_id: agentId };
  const extension: AgentExtension = existing
    ? { ...existing, params }
    : { uri: RUVECTOR_EXTENSION_URI, description: 'a2aplane control-plane facts (ADR-159 ruvector namespace)', params };
  if (index >= 0) extensions[index] = extension;
  else extensions.push(extension);
  return { ...card, capabilities: { ...capabilities, extensions } };
}

/** `value` as a plain object, or `undefined` (arrays and null are not). */
export function asObject(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

function describeBytes(value: unknown): string {
  return value instanceof Uint8Array ? `${value.length} bytes` : typeof value;
}
