import { describe, expect, it } from 'vitest';
import {
  agentIdFromPublicKey,
  canonicalCardPayload,
  composeKeyResolvers,
  createAllowAllIdentityResolver,
  createAllowlistIdentityResolver,
  createEd25519WebhookSigner,
  createHmacWebhookSigner,
  createJwksKeyResolver,
  createPinnedKeyResolver,
  createVerificationCache,
  createWebhookVerifier,
  exportPrivateJwk,
  generateKeyPair,
  type KeyPair,
  keyPairFromPrivateKey,
  signAgentCard,
  toVerificationKey,
  withAgentIdExtension,
} from '../src/index.js';
import { fullCard } from './fixtures.js';

const ed = generateKeyPair('EdDSA');
const es = generateKeyPair('ES256');

/** STYLE: programmer errors throw TypeError / RangeError worded "expected X, got Y". */
const EXPECTED_GOT = /^expected .+, got .+/;

describe('programmer errors: TypeError / RangeError "expected X, got Y"', () => {
  const cases: Array<[string, () => unknown, typeof TypeError | typeof RangeError]> = [
    ['signAgentCard with a non-object card', () => signAgentCard('card' as never, ed), TypeError],
    ['signAgentCard with no keys', () => signAgentCard(fullCard(), []), RangeError],
    ['signAgentCard with a public key', () => signAgentCard(fullCard(), toVerificationKey(ed) as KeyPair), TypeError],
    ['signAgentCard with a non-string jku', () => signAgentCard(fullCard(), ed, { jku: 1 as never }), TypeError],
    ['canonicalCardPayload of an array', () => canonicalCardPayload([]), TypeError],
    ['generateKeyPair with an unknown algorithm', () => generateKeyPair('RS256' as never), TypeError],
    ['generateKeyPair with a non-string kid', () => generateKeyPair('EdDSA', { kid: 7 as never }), TypeError],
    ['keyPairFromPrivateKey with 31 bytes', () => keyPairFromPrivateKey('EdDSA', new Uint8Array(31)), TypeError],
    ['exportPrivateJwk of a public key', () => exportPrivateJwk(toVerificationKey(ed) as KeyPair), TypeError],
    ['agentIdFromPublicKey of a P-256 point', () => agentIdFromPublicKey(es.publicKey), TypeError],
    ['withAgentIdExtension with a bad AgentID', () => withAgentIdExtension(fullCard() as never, 'nope'), TypeError],
    ['createPinnedKeyResolver with a bad JWK', () => createPinnedKeyResolver([{ kty: 'RSA' } as never]), TypeError],
    ['createJwksKeyResolver with a non-function fetch', () => createJwksKeyResolver({ fetch: 'fetch' as never }), TypeError],
    ['createJwksKeyResolver with non-string prefixes', () => createJwksKeyResolver({ allowedJkuPrefixes: [1] as never }), TypeError],
    ['createJwksKeyResolver with a negative ttl', () => createJwksKeyResolver({ ttlMs: -1 }), RangeError],
    ['createJwksKeyResolver with a zero timeout', () => createJwksKeyResolver({ timeoutMs: 0 }), RangeError],
    ['createJwksKeyResolver with a fractional maxBytes', () => createJwksKeyResolver({ maxBytes: 1.5 }), RangeError],
    ['composeKeyResolvers with a non-resolver', () => composeKeyResolvers(createPinnedKeyResolver([ed]), {} as never), TypeError],
    ['createVerificationCache with maxEntries 0', () => createVerificationCache({ maxEntries: 0 }), RangeError],
    ['createVerificationCache with a NaN ttl', () => createVerificationCache({ ttlMs: Number.NaN }), RangeError],
    ['createAllowlistIdentityResolver with a bad id', () => createAllowlistIdentityResolver(['x']), TypeError],
    ['createAllowAllIdentityResolver with a negative maxRecorded', () => createAllowAllIdentityResolver({ maxRecorded: -1 }), RangeError],
    [
      'createAllowAllIdentityResolver with a non-function onAllow',
      () => createAllowAllIdentityResolver({ onAllow: 'log' as never }),
      TypeError,
    ],
    ['createHmacWebhookSigner with an empty secret', () => createHmacWebhookSigner(''), TypeError],
    ['createEd25519WebhookSigner with an ES256 key', () => createEd25519WebhookSigner(es), TypeError],
    ['createEd25519WebhookSigner with a public key', () => createEd25519WebhookSigner(toVerificationKey(ed) as KeyPair), TypeError],
    ['createWebhookVerifier with neither secret nor key', () => createWebhookVerifier({}), TypeError],
    ['createWebhookVerifier with a 3-byte key', () => createWebhookVerifier({ ed25519PublicKey: new Uint8Array(3) }), TypeError],
    ['createWebhookVerifier with a P-256 key', () => createWebhookVerifier({ ed25519PublicKey: toVerificationKey(es) }), TypeError],
    ['createWebhookVerifier with a negative tolerance', () => createWebhookVerifier({ hmacSecret: 's', toleranceSeconds: -1 }), RangeError],
    ['a webhook signer with a fractional timestamp', () => createHmacWebhookSigner('s').sign('{}', { timestamp: 1.5 }), RangeError],
    ['a webhook signer with a numeric body', () => createHmacWebhookSigner('s').sign(1 as never), TypeError],
  ];

  it.each(cases)('%s', (_name, run, type) => {
    let thrown: unknown;
    try {
      run();
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(type);
    expect((thrown as Error).message).toMatch(EXPECTED_GOT);
  });
});
