import type { PublicJwk, VerificationKey } from '@a2aplane/a2a-identity/verify';
import type { AgentCard } from '@a2aplane/a2a-types';
import type { AuthProvider } from './auth.js';
import type { CardVerificationResult } from './errors.js';
import type { A2AValidator } from './guards.js';
import type { FetchLike } from './http-types.js';
import type { V03Support } from './v0_3-loader.js';

/**
 * Structurally `(json) => verifyAgentCard(json, resolver)` from a2a-identity. Replaces the
 * default verification; `url` is where the card was read from.
 */
export type CardVerifier = (cardJson: string, url: string) => Promise<CardVerificationResult>;

/** A pinned public key: an a2a-identity `VerificationKey` or a public JWK (Ed25519 or P-256). */
export type TrustedCardKey = VerificationKey | PublicJwk;

/** What to do with a card that carries no signature. */
export type UnsignedCardPolicy = 'allow' | 'warn' | 'reject';

export interface CardResolverOptions {
  fetch?: FetchLike;
  headers?: Record<string, string>;
  auth?: AuthProvider;
  /** Cache lifetime when the response has no `Cache-Control: max-age`. Default 300000 (5 min). */
  ttlMs?: number;
  timeoutMs?: number;
  /**
   * Keys a signed card must be signed by. Without them the key comes from the signature's `jku`,
   * which must be HTTPS on the card's own origin (or start with one of `jkuPrefixes`).
   */
  trustedKeys?: readonly TrustedCardKey[];
  /** More `jku` prefixes to trust besides the card's own origin (such as a key server). */
  jkuPrefixes?: readonly string[];
  /**
   * Development only: also accept a `jku` on `http://127.0.0.1`, `http://[::1]` or
   * `http://localhost`. Default false.
   */
  allowInsecureLoopback?: boolean;
  /** Refuse cards that carry no signature. Default false: they are accepted, reported as `no-signature`. */
  requireSignedCard?: boolean;
  /** Replaces the default verification (trusted keys or same-origin `jku`). */
  cardVerifier?: CardVerifier;
  /**
   * Default 'allow' ('reject' with `requireSignedCard`). Signed cards are always verified, and a
   * tampered, untrusted, unsupported, malformed or AgentID-mismatched one is always rejected.
   */
  unsignedCardPolicy?: UnsignedCardPolicy;
  /** Receives 'warn' policy messages. Default `console.warn`. */
  onWarning?: (message: string) => void;
  /** Try `/.well-known/agent.json` (v0.3) when the v1.0 path is 404. Default true. */
  legacyFallback?: boolean;
  /** Clock for the cache, in ms. */
  now?: () => number;
  /** How cards are checked. Default `structuralValidator`; `strictValidator` (`/strict`) parses them with zod. */
  validator?: A2AValidator;
  /**
   * v0.3 support (`v0_3` from `@a2aplane/a2a-client/v0_3`): legacy cards then go through the strict
   * a2a-types translator first. Without it they are normalized by `normalizeLegacyCard` (from `/v0_3`).
   */
  v0_3?: V03Support;
}

export interface DiscoveredCard {
  card: AgentCard;
  /** The URL the card was read from. */
  url: string;
  /** The response text the signature was checked over. */
  raw: string;
  /** Whether the card came from the legacy v0.3 path and was normalized. */
  legacy: boolean;
  /** `valid` (with the signer's `kid` and AgentID) or `no-signature`; anything else was rejected. */
  verification: CardVerificationResult;
}
