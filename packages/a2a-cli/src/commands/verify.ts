import {
  type CardVerificationResult,
  createJwksKeyResolver,
  createPinnedKeyResolver,
  type KeyResolver,
  type VerificationKey,
  verifyAgentCard,
} from '@a2aplane/a2a-identity';
import { flag, type ParsedArgs, stringValue } from '../args.js';
import { EXIT_CODES } from '../errors.js';
import { readVerificationKeys } from '../files.js';
import type { CommandContext } from '../io.js';

/** `verifyAgentCard`'s result, which includes the AgentID binding check (ADR-159: a card may not quote another key's AgentID). */
export type CardCheck = CardVerificationResult;

/**
 * The card-trust options of `a2a send/get/list/cancel/subscribe` and `serve --delegate-to` for
 * createA2AClient: `--key` pins keys, `--allow-insecure` accepts a loopback http jku,
 * `--jku-prefix` trusts more JWKS URLs, `--require-signed` refuses unsigned cards.
 */
export async function cardTrustOf(args: ParsedArgs, keyOption = 'key'): Promise<CardTrust> {
  const keyFile = stringValue(args, keyOption);
  const prefixes = (args.values['jku-prefix'] as string[] | undefined) ?? [];
  return {
    ...(keyFile === undefined ? {} : { trustedKeys: await readVerificationKeys(keyFile) }),
    ...(prefixes.length > 0 ? { jkuPrefixes: prefixes } : {}),
    ...(flag(args, 'allow-insecure') ? { allowInsecureLoopback: true } : {}),
    ...(flag(args, 'require-signed') ? { requireSignedCard: true } : {}),
  };
}

/** The discovery trust options createA2AClient takes. */
export interface CardTrust {
  trustedKeys?: VerificationKey[];
  jkuPrefixes?: string[];
  allowInsecureLoopback?: boolean;
  requireSignedCard?: boolean;
}

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
  return createJwksKeyResolver({
    fetch: choice.fetch,
    allowInsecureLoopback: choice.allowInsecure,
    allowedJkuPrefixes: choice.jkuPrefixes,
  });
}

/** Verifies the card text; a declared AgentID must be a signer's (verifyAgentCard checks it). */
export function checkCard(cardText: string, resolver: KeyResolver): Promise<CardCheck> {
  return verifyAgentCard(cardText, resolver);
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
      ctx.out(
        `${style.green('signature valid')}  ${style.dim(`kid ${check.kid}, ${check.algorithm}`)}${check.agentId ? `\nAgentID ${check.agentId}` : ''}`,
      );
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
      ctx.err(
        `${style.red('AgentID mismatch')}: card declares ${check.declared} but was signed by ${check.signers.length > 0 ? check.signers.join(', ') : 'no Ed25519 key'}`,
      );
      return;
  }
  const hint = hintFor(check, options.pinned, options.allowInsecure);
  if (hint) ctx.err(style.dim(`hint: ${hint}`));
}
