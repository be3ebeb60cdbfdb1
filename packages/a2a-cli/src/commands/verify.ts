import {
  type CardVerificationResult,
  createJwksKeyResolver,
  createPinnedKeyResolver,
  type KeyResolver,
  readDeclaredAgentId,
  type VerificationKey,
  verifyAgentCard,
} from '@a2aplane/a2a-identity';
import { EXIT_CODES } from '../errors.js';
import type { CommandContext } from '../io.js';

/** The verifier's result plus the AgentID binding check (ADR-159: a card may not quote another key's AgentID). */
type CardCheck = CardVerificationResult | { status: 'agent-id-mismatch'; declared: string; signer: string };

export function exitCodeOf(check: CardCheck): number {
  if (check.status === 'valid') return EXIT_CODES.ok;
  if (check.status === 'no-signature') return EXIT_CODES.unsigned;
  return EXIT_CODES.invalidSignature;
}

interface ResolverChoice {
  /** Pinned keys (`--key`); when given, `jku` is not fetched. */
  pinned?: VerificationKey[];
  fetch: typeof fetch;
  allowInsecure: boolean;
  /** `jku` URLs must start with one of these. */
  jkuPrefixes: string[];
}

export function createCliKeyResolver(choice: ResolverChoice): KeyResolver {
  if (choice.pinned) return createPinnedKeyResolver(choice.pinned);
  return createJwksKeyResolver({ fetch: choice.fetch, allowInsecureLoopback: choice.allowInsecure, allowedJkuPrefixes: choice.jkuPrefixes });
}

/** Verifies the card text and, when valid with Ed25519, that a declared AgentID is the signer's. */
export async function checkCard(cardText: string, resolver: KeyResolver): Promise<CardCheck> {
  const result = await verifyAgentCard(cardText, resolver);
  if (result.status !== 'valid' || result.agentId === undefined) return result;
  let parsed: unknown;
  try {
    parsed = JSON.parse(cardText);
  } catch {
    return result;
  }
  const declared = readDeclaredAgentId(parsed);
  if (declared !== undefined && declared !== result.agentId) return { status: 'agent-id-mismatch', declared, signer: result.agentId };
  return result;
}

function hintFor(check: CardCheck, pinned: boolean, allowInsecure: boolean): string | undefined {
  if (check.status === 'untrusted-key' && !pinned) {
    return allowInsecure
      ? 'no key found: pin one with --key <jwk|jwks>, or sign the card with a jku on the agent origin'
      : 'no key found: pin one with --key <jwk|jwks>; a loopback http jku needs --allow-insecure';
  }
  if (check.status === 'untrusted-key') return 'the pinned key did not sign this card';
  return undefined;
}

/** One status line (and a hint), on stdout for valid and on stderr otherwise. */
export function reportCheck(ctx: CommandContext, check: CardCheck, options: { pinned: boolean; allowInsecure: boolean }): void {
  const { style } = ctx;
  switch (check.status) {
    case 'valid':
      ctx.out(`${style.green('signature valid')}  ${style.dim(`kid ${check.kid}, ${check.algorithm}`)}${check.agentId ? `\nAgentID ${check.agentId}` : ''}`);
      return;
    case 'no-signature':
      ctx.err(style.yellow('card is not signed'));
      return;
    case 'tampered':
      ctx.err(`${style.red('signature INVALID (tampered)')}: ${check.detail}`);
      return;
    case 'untrusted-key':
      ctx.err(`${style.red('signature not trusted')}: no trusted key for kid ${check.kids.map((k) => JSON.stringify(k)).join(', ')}`);
      break;
    case 'unsupported-algorithm':
      ctx.err(`${style.red('signature rejected')}: unsupported algorithm ${check.algorithms.join(', ')}`);
      return;
    case 'malformed':
      ctx.err(`${style.red('signature malformed')}: ${check.detail}`);
      return;
    case 'agent-id-mismatch':
      ctx.err(`${style.red('AgentID mismatch')}: card declares ${check.declared} but was signed by ${check.signer}`);
      return;
  }
  const hint = hintFor(check, options.pinned, options.allowInsecure);
  if (hint) ctx.err(style.dim(`hint: ${hint}`));
}
