import {
  agentIdFromPublicKey,
  exportPrivateJwk,
  exportPublicJwk,
  generateKeyPair,
  isSigningAlgorithm,
  type KeyPair,
  signAgentCard,
  withAgentIdExtension,
} from '@a2aplane/a2a-identity';
import { AgentCardSchema, parseWith } from '@a2aplane/a2a-types';
import { flag, parseCommandArgs, positionals, stringValue } from '../args.js';
import { CliError, usageError } from '../errors.js';
import { readJsonFile, readPrivateKey, readVerificationKeys, writeTextFile } from '../files.js';
import { EXIT_CODE_HELP } from './card.js';
import type { Command } from './types.js';
import { checkCard, createCliKeyResolver, exitCodeOf, reportCheck } from './verify.js';

const agentIdOf = (key: KeyPair): string | undefined => (key.algorithm === 'EdDSA' ? agentIdFromPublicKey(key.publicKey) : undefined);

export const keygenCommand: Command = {
  name: 'keygen',
  summary: 'generate a signing key (private JWK) and show its public JWK and AgentID',
  help: `Usage: a2a keygen [--alg EdDSA|ES256] [--out key.jwk] [--kid <id>] [--json]

Generates a key pair from the platform CSPRNG. Without --out the private JWK is printed on
stdout (so "a2a keygen > key.jwk" works) and the public JWK and AgentID go to stderr. With
--out the private JWK is written to the file (mode 0600) and stdout shows the public half.

The AgentID (ADR-159) is SHAKE-256 of the Ed25519 public key; ES256 keys have none.
The default kid is the AgentID (EdDSA) or the RFC 7638 thumbprint (ES256).

Options:
  --alg <alg>    EdDSA (Ed25519, default) or ES256 (P-256)
  --out <file>   write the private JWK here instead of stdout
  --kid <id>     key id to use instead of the default
  --json         print {"publicJwk","agentId","kid"} (+ "privateJwk" without --out)

Exit codes:
  0   key written
  1   error (unwritable file)
  64  usage error`,
  async run(ctx, argv) {
    const args = parseCommandArgs('keygen', argv, {
      alg: { type: 'string' },
      out: { type: 'string' },
      kid: { type: 'string' },
      json: { type: 'boolean' },
    });
    positionals('keygen', args, []);
    const alg = stringValue(args, 'alg') ?? 'EdDSA';
    if (!isSigningAlgorithm(alg)) throw usageError(`keygen: --alg expects EdDSA or ES256, got ${JSON.stringify(alg)}`);
    const kid = stringValue(args, 'kid');
    const key = generateKeyPair(alg, kid === undefined ? undefined : { kid });
    const privateJwk = exportPrivateJwk(key);
    const publicJwk = exportPublicJwk(key);
    const agentId = agentIdOf(key);
    const out = stringValue(args, 'out');
    if (out !== undefined) await writeTextFile(out, `${JSON.stringify(privateJwk, null, 2)}\n`, 0o600);
    if (flag(args, 'json')) {
      ctx.out(
        JSON.stringify(
          {
            kid: key.kid,
            algorithm: key.algorithm,
            agentId: agentId ?? null,
            publicJwk,
            ...(out === undefined ? { privateJwk } : { out }),
          },
          null,
          2,
        ),
      );
      return 0;
    }
    const info = out === undefined ? ctx.err : ctx.out;
    if (out === undefined) ctx.out(JSON.stringify(privateJwk, null, 2));
    else info(`private JWK written to ${out}`);
    info(`public JWK: ${JSON.stringify(publicJwk)}`);
    info(`AgentID: ${agentId ?? '(none: AgentIDs are defined for Ed25519 keys only)'}`);
    return 0;
  },
};

export const signCardCommand: Command = {
  name: 'sign-card',
  summary: 'sign an agent card JSON file with a private JWK',
  help: `Usage: a2a sign-card <card.json> --key <private jwk> [--out signed.json] [--jku <url>] [--agent-id] [--keep-existing]

Signs the card (spec §8.4.2: JWS over the RFC 8785 canonical card without "signatures").
Prints the signed card on stdout unless --out is given.

Options:
  --key <file>       private JWK (from a2a keygen)
  --out <file>       write the signed card here
  --jku <url>        URL of the JWKS holding the public key, put in the protected header
  --agent-id         declare the key's AgentID in the card (ruvector extension) before signing
  --keep-existing    keep the signatures already on the card (key rotation)

Exit codes:
  0   card signed
  1   error (unreadable or invalid card or key, unwritable file)
  64  usage error`,
  async run(ctx, argv) {
    const args = parseCommandArgs('sign-card', argv, {
      key: { type: 'string' },
      out: { type: 'string' },
      jku: { type: 'string' },
      'agent-id': { type: 'boolean' },
      'keep-existing': { type: 'boolean' },
    });
    const [cardFile] = positionals('sign-card', args, ['card.json']);
    const keyFile = stringValue(args, 'key');
    if (keyFile === undefined) throw usageError('sign-card: --key <private jwk> is required; see a2a sign-card --help');
    const jku = stringValue(args, 'jku');
    if (jku !== undefined && !URL.canParse(jku)) throw usageError(`sign-card: --jku expects an absolute URL, got ${JSON.stringify(jku)}`);
    const { value } = await readJsonFile(cardFile as string);
    const parsed = parseWith(AgentCardSchema, value);
    if (!parsed.success) throw new CliError(`${cardFile} is not a valid agent card: ${parsed.error.message}`);
    const key = await readPrivateKey(keyFile);
    let card = parsed.data;
    if (flag(args, 'agent-id')) {
      const agentId = agentIdOf(key);
      if (agentId === undefined) throw usageError('sign-card: --agent-id needs an EdDSA (Ed25519) key');
      card = withAgentIdExtension(card, agentId);
    }
    // Sign the object as read (not the parsed copy) so fields the schema strips are kept.
    const source = flag(args, 'agent-id') ? card : (value as Record<string, unknown>);
    const signed = signAgentCard(source, key, { ...(jku === undefined ? {} : { jku }), keepExisting: flag(args, 'keep-existing') });
    const text = `${JSON.stringify(signed.card, null, 2)}\n`;
    const out = stringValue(args, 'out');
    if (out === undefined) ctx.io.stdout.write(text);
    else {
      await writeTextFile(out, text);
      ctx.out(`signed card written to ${out} (kid ${key.kid}, ${key.algorithm})`);
    }
    return 0;
  },
};

export const verifyCardCommand: Command = {
  name: 'verify-card',
  summary: 'verify the signature of an agent card JSON file',
  help: `Usage: a2a verify-card <card.json> --key <public jwk | jwks> [--json]

Verifies the card's signatures against the given key(s) only.

Options:
  --key <file>   public JWK, JWKS ({"keys":[...]}) or private JWK
  --json         print the verification result as JSON

${EXIT_CODE_HELP}`,
  async run(ctx, argv) {
    const args = parseCommandArgs('verify-card', argv, { key: { type: 'string' }, json: { type: 'boolean' } });
    const [cardFile] = positionals('verify-card', args, ['card.json']);
    const keyFile = stringValue(args, 'key');
    if (keyFile === undefined) throw usageError('verify-card: --key <public jwk | jwks> is required; see a2a verify-card --help');
    const { text } = await readJsonFile(cardFile as string);
    const pinned = await readVerificationKeys(keyFile);
    const check = await checkCard(text, createCliKeyResolver({ pinned, fetch: ctx.io.fetch, allowInsecure: false, jkuPrefixes: [] }));
    if (flag(args, 'json')) ctx.out(JSON.stringify(check, null, 2));
    else reportCheck(ctx, check, { pinned: true, allowInsecure: false });
    return exitCodeOf(check);
  },
};
