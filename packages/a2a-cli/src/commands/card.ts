import { AgentCardDiscoveryError, type CardResolver, createCardResolver } from '@a2aplane/a2a-client';
import { agentUrl, flag, parseCommandArgs, positionals, stringValue } from '../args.js';
import { readVerificationKeys } from '../files.js';
import { printCard } from '../format.js';
import type { Command } from './types.js';
import { type CardCheck, checkCard, createCliKeyResolver, exitCodeOf, reportCheck } from './verify.js';

export const EXIT_CODE_HELP = `Exit codes:
  0   card signature valid (and a declared AgentID matches the signer)
  1   error (unreachable agent, HTTP error, unreadable or invalid file)
  2   signature tampered, untrusted key, unsupported algorithm, malformed, or AgentID mismatch
  3   card is not signed
  64  usage error`;

/** The check result of a card the resolver refused only because of its `signatures` field. */
function malformedSignatureOf(error: unknown): { url: string; check: CardCheck } | undefined {
  if (!AgentCardDiscoveryError.isInstance(error) || error.kind !== 'malformed' || error.violations.length === 0) return undefined;
  if (!error.violations.every((violation) => /^signatures(?:$|[.[])/.test(violation.field))) return undefined;
  const detail = error.violations.map((violation) => `${violation.field}: ${violation.description}`).join('; ');
  return { url: error.url, check: { status: 'malformed', detail } };
}

export const cardCommand: Command = {
  name: 'card',
  summary: 'fetch an agent card, verify its signature, print it',
  help: `Usage: a2a card <url> [--key <jwk|jwks file>] [--allow-insecure] [--jku-prefix <url>]... [--json]

Fetches <url>/.well-known/agent-card.json (falls back to the v0.3 agent.json), verifies its
JWS signatures (spec §8.4) and prints the card.

Keys: with --key the card must be signed by that key (a JWK or a JWKS file). Without it the
key is fetched from the signature's "jku" URL, which must be HTTPS and on the card's origin
(add more origins with --jku-prefix); --allow-insecure also accepts http://127.0.0.1,
http://[::1] and http://localhost (development only).

Options:
  --key <file>         trust only this public JWK / JWKS (a private JWK works too)
  --allow-insecure     accept a loopback http jku
  --jku-prefix <url>   also trust JWKS URLs starting with this prefix (repeatable)
  --json               print {"url","verification","card"} as JSON

${EXIT_CODE_HELP}`,
  async run(ctx, argv) {
    const args = parseCommandArgs('card', argv, {
      key: { type: 'string' },
      'allow-insecure': { type: 'boolean' },
      'jku-prefix': { type: 'string', multiple: true },
      json: { type: 'boolean' },
    });
    const [rawUrl] = positionals('card', args, ['url']);
    const url = agentUrl('card', rawUrl as string);
    const keyFile = stringValue(args, 'key');
    const pinned = keyFile === undefined ? undefined : await readVerificationKeys(keyFile);
    const extra = (args.values['jku-prefix'] as string[] | undefined) ?? [];
    const allowInsecure = flag(args, 'allow-insecure');
    let check: CardCheck = { status: 'no-signature' };
    // `a2a card` inspects: it prints the card whatever the verdict, and reports the verdict (and
    // exit code) itself, so its verifier hands discovery the card and keeps the real result.
    let discovered: Awaited<ReturnType<CardResolver['resolve']>>;
    try {
      discovered = await createCardResolver({
        fetch: ctx.io.fetch,
        timeoutMs: 15_000,
        cardVerifier: async (text, cardUrl) => {
          const resolver = createCliKeyResolver({
            ...(pinned ? { pinned } : {}),
            fetch: ctx.io.fetch,
            allowInsecure,
            jkuPrefixes: [`${new URL(cardUrl).origin}/`, ...extra],
          });
          check = await checkCard(text, resolver);
          return { status: check.status === 'no-signature' ? 'no-signature' : 'valid' };
        },
      }).resolve(url);
    } catch (error) {
      // A card refused only for its `signatures` (an empty signature or header) has a malformed
      // signature: exit 2 like any other bad signature, not 1 like an unreachable agent.
      const malformed = malformedSignatureOf(error);
      if (malformed === undefined) throw error;
      if (flag(args, 'json')) ctx.out(JSON.stringify({ url: malformed.url, verification: malformed.check }, null, 2));
      else reportCheck(ctx, malformed.check, { pinned: pinned !== undefined, allowInsecure });
      return exitCodeOf(malformed.check);
    }
    if (flag(args, 'json')) {
      ctx.out(JSON.stringify({ url: discovered.url, legacy: discovered.legacy, verification: check, card: discovered.card }, null, 2));
    } else {
      printCard(ctx, discovered.card);
      ctx.out(ctx.style.dim(`from ${discovered.url}${discovered.legacy ? ' (v0.3 card, normalized)' : ''}`));
      reportCheck(ctx, check, { pinned: pinned !== undefined, allowInsecure });
    }
    return exitCodeOf(check);
  },
};
