import { describe, expect, it } from 'vitest';
import { verifyBytes } from '../src/jws.js';
import {
  createJwks,
  decodeBase64Url,
  encodeBase64Url,
  exportPrivateJwk,
  exportPublicJwk,
  generateKeyPair,
  importJwk,
  isKeyPair,
  jwkThumbprint,
  keyPairFromPrivateKey,
  type PublicJwk,
} from '../src/index.js';

const enc = new TextEncoder();

/** RFC 8037 Appendix A.1 Ed25519 key (same key as RFC 8032 §7.1 TEST 1). */
const RFC8037_JWK = {
  kty: 'OKP',
  crv: 'Ed25519',
  d: 'nWGxne_9WmC6hEr0kuwsxERJxWl7MmkZcDusAxyuf2A',
  x: '11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo',
};
/** Public part of the RFC 7515 Appendix A.3 ES256 key. */
const RFC7515_ES256_PUBLIC = {
  kty: 'EC',
  crv: 'P-256',
  x: 'f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU',
  y: 'x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0',
};
/**
 * A P-256 key pair whose public point and the signature below were produced with node:crypto
 * (`createECDH('prime256v1').setPrivateKey(d)`, `sign('sha256', …, { dsaEncoding: 'ieee-p1363' })`).
 */
const NODE_ES256_JWK = {
  kty: 'EC',
  crv: 'P-256',
  x: '1ZvVuLG3azWCQkZC3PI0yfiNF2LoSdbmWcFGwzp0fZg',
  y: '8dFJG6h0EKvxb6b7vaxAjcISKsl9_Qq6gMA8NX8OqJY',
  d: 'jpsQnnGQmL-YBIffH1136cLNYDbAlfyHIsBl5vLjkKA',
};

describe('base64url (RFC 7515 §2)', () => {
  it('round-trips every length', () => {
    for (let n = 0; n < 20; n++) {
      const bytes = Uint8Array.from({ length: n }, (_, i) => (i * 37 + n) & 0xff);
      expect(decodeBase64Url(encodeBase64Url(bytes))).toEqual(bytes);
    }
  });
  it('encodes like the RFC 4648 §10 vectors, url-safe and unpadded', () => {
    expect(encodeBase64Url(enc.encode('foobar'))).toBe('Zm9vYmFy');
    expect(encodeBase64Url(enc.encode('fo'))).toBe('Zm8');
    expect(encodeBase64Url(Uint8Array.of(0xfb, 0xff))).toBe('-_8');
  });
  // 'Zm9' has non-zero unused bits: a second spelling of "fo" ('Zm8'), refused.
  it.each(['Zm8=', 'Zm9v YmFy', '+/8', 'Z', 'Zm9'])('rejects %j', (text) => {
    expect(decodeBase64Url(text)).toBeUndefined();
  });
});

describe('keys and JWK (RFC 7517, RFC 8037, RFC 7638)', () => {
  it('RFC 8037 A.3: thumbprint of the Ed25519 key', () => {
    const imported = importJwk(RFC8037_JWK);
    expect(imported.ok).toBe(true);
    expect(jwkThumbprint(exportPublicJwk(imported.ok ? imported.key : (undefined as never)))).toBe(
      'kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k',
    );
  });

  it('RFC 8037 A.4: Ed25519 signature of "Example of Ed25519 signing"', () => {
    const imported = importJwk(RFC8037_JWK);
    if (!imported.ok || !isKeyPair(imported.key)) throw new Error('expected a key pair');
    const signingInput = enc.encode('eyJhbGciOiJFZERTQSJ9.RXhhbXBsZSBvZiBFZDI1NTE5IHNpZ25pbmc');
    const expected = 'hgyY0il_MGCjP0JzlnLWG1PPOt7-09PGcvMg3AIbQR6dWbhijcNR4ki4iylGjg5BhVsPt9g7sVvpAr_MuM0KAg';
    expect(verifyBytes('EdDSA', imported.key, signingInput, decodeBase64Url(expected)!)).toBe(true);
  });

  it('RFC 7515 A.3 public key imports with its RFC 7638 thumbprint as default kid', () => {
    const imported = importJwk(RFC7515_ES256_PUBLIC);
    if (!imported.ok) throw new Error(imported.reason);
    expect(imported.key.publicKey).toHaveLength(65);
    // Derived independently: node:crypto sha256 over '{"crv":"P-256","kty":"EC","x":"…","y":"…"}'.
    expect(imported.key.kid).toBe('oKIywvGUpTVTyxMQ3bwIIeQUudfr_CkLMjCE19ECD-U');
  });

  it('ES256 interop: a node:crypto signature verifies; a d from another key is refused', () => {
    const imported = importJwk(NODE_ES256_JWK);
    if (!imported.ok || !isKeyPair(imported.key)) throw new Error('expected a key pair');
    expect(imported.key.kid).toBe('j9VE6dxiqmv7PvR8lwa37gla2669taHVba4az4zcOuI');
    const sig = decodeBase64Url('_SjdqeQ-lozFyV0P0xRO3s3cwcCUbYvCmwIIOKOJF6ntlHc-zYIk2BMZhgYZLqrXZzA9h2NCzizqjtSS1mfDmA')!;
    expect(verifyBytes('ES256', imported.key, enc.encode('eyJhbGciOiJFUzI1NiJ9.aGVsbG8'), sig)).toBe(true);
    expect(verifyBytes('ES256', imported.key, enc.encode('eyJhbGciOiJFUzI1NiJ9.aGVsbG9'), sig)).toBe(false);
    expect(importJwk({ ...RFC7515_ES256_PUBLIC, d: NODE_ES256_JWK.d })).toEqual({ ok: false, reason: 'd does not match the public key' });
  });

  it.each(['EdDSA', 'ES256'] as const)('%s: generate -> export private/public -> import round trip', (alg) => {
    const pair = generateKeyPair(alg, { kid: 'my-key' });
    expect(pair.kid).toBe('my-key');
    const priv = exportPrivateJwk(pair);
    const back = importJwk(JSON.parse(JSON.stringify(priv)));
    expect(back).toEqual({ ok: true, key: pair });
    const pub = exportPublicJwk(pair);
    expect(pub).not.toHaveProperty('d');
    expect(pub).toMatchObject({ kid: 'my-key', alg, use: 'sig' });
    expect(importJwk(pub)).toEqual({ ok: true, key: { algorithm: alg, kid: 'my-key', publicKey: pair.publicKey } });
  });

  it('default kids: AgentID for Ed25519, thumbprint for P-256', () => {
    const edKey = generateKeyPair('EdDSA');
    expect(edKey.kid).toMatch(/^[0-9a-f]{64}$/);
    const esKey = generateKeyPair('ES256');
    expect(esKey.kid).toBe(jwkThumbprint(exportPublicJwk(esKey)));
  });

  it('createJwks publishes public parts only', () => {
    const a = generateKeyPair('EdDSA');
    const b = generateKeyPair('ES256');
    const jwks = createJwks([a, b]);
    expect(jwks.keys.map((k) => k.kid)).toEqual([a.kid, b.kid]);
    expect(JSON.stringify(jwks)).not.toContain('"d"');
  });

  const edPub = exportPublicJwk(generateKeyPair('EdDSA'));
  const esPub = exportPublicJwk(generateKeyPair('ES256')) as Extract<PublicJwk, { kty: 'EC' }>;
  it.each([
    ['null', null],
    ['a string', 'jwk'],
    ['an array', []],
    ['RSA', { kty: 'RSA', n: 'AQAB', e: 'AQAB' }],
    ['oct (symmetric)', { kty: 'oct', k: 'c2VjcmV0' }],
    ['X25519', { ...edPub, crv: 'X25519' }],
    ['P-384', { ...esPub, crv: 'P-384' }],
    ['short x', { ...edPub, x: 'AAAA' }],
    ['x not base64url', { ...edPub, x: '!!' }],
    ['alg mismatch on OKP', { ...edPub, alg: 'ES256' }],
    ['alg mismatch on EC', { ...esPub, alg: 'EdDSA' }],
    ['use enc', { ...edPub, use: 'enc' }],
    ['numeric kid', { ...edPub, kid: 7 }],
    ['EC point not on the curve', { ...esPub, y: esPub.x }],
    ['d that does not match x', { ...edPub, d: exportPrivateJwk(generateKeyPair('EdDSA')).d }],
    ['short d', { ...edPub, d: 'AAAA' }],
  ])('importJwk refuses %s without throwing', (_name, jwk) => {
    const result = importJwk(jwk);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.reason).toBeTypeOf('string');
  });

  it('keyPairFromPrivateKey matches RFC 8032 §7.1 TEST 1', () => {
    const seed = Uint8Array.from(
      '9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60'.match(/../g)!.map((h) => Number.parseInt(h, 16)),
    );
    const pair = keyPairFromPrivateKey('EdDSA', seed);
    expect(encodeBase64Url(pair.publicKey)).toBe(RFC8037_JWK.x);
    expect(() => keyPairFromPrivateKey('EdDSA', new Uint8Array(31))).toThrow(TypeError);
    expect(() => generateKeyPair('RS256' as never)).toThrow(TypeError);
  });
});
