import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createPinnedKeyResolver, importJwk, isKeyPair, signAgentCard, verifyAgentCard } from '../src/index.js';
import { SPEC_SAMPLE_CARD_JSON } from './fixtures.js';

/** RFC 8037 A.1 Ed25519 key; its AgentID is the default kid. */
const KEY = importJwk({
  kty: 'OKP',
  crv: 'Ed25519',
  d: 'nWGxne_9WmC6hEr0kuwsxERJxWl7MmkZcDusAxyuf2A',
  x: '11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo',
});

/**
 * Derived independently of this library with node:crypto: protected header
 * `{"alg":"EdDSA","typ":"JOSE","kid":"7cb16e94…be50d","jku":"https://example.com/agent/jwks.json"}`,
 * payload = the Python-derived canonical form of the §8.5 sample, `crypto.sign(null, input, key)`.
 * Ed25519 is deterministic, so the whole JWS must match byte for byte.
 */
const GOLDEN = {
  protected:
    'eyJhbGciOiJFZERTQSIsInR5cCI6IkpPU0UiLCJraWQiOiI3Y2IxNmU5NDk1NGM3M2U3OTM3NzZiNzMwYzRmYTIwZmU3NDc5ODdjZTQzYjQ5YzY2ZGViNmI0YWE0OWJlNTBkIiwiamt1IjoiaHR0cHM6Ly9leGFtcGxlLmNvbS9hZ2VudC9qd2tzLmpzb24ifQ',
  signature: 'c_Z-XLLexIqTWfz1ds7F8Kfo76o-_NI2UK1E0hdg16WBLK1K1n1L2ozL5LaYlVhE22h5cmoNKhpY51PxcLM6DA',
};

describe('spec §8.4.2 / §8.5 — golden EdDSA signature of the sample card', () => {
  it('signAgentCard reproduces the independently computed JWS', () => {
    if (!KEY.ok || !isKeyPair(KEY.key)) throw new Error('expected the RFC 8037 key pair');
    const signed = signAgentCard(JSON.parse(SPEC_SAMPLE_CARD_JSON), KEY.key, { jku: 'https://example.com/agent/jwks.json' });
    expect(signed.card.signatures).toEqual([GOLDEN]);
  });

  it('verifyAgentCard accepts the independently computed JWS on the card as published', async () => {
    if (!KEY.ok) throw new Error('expected the RFC 8037 key');
    const published = JSON.stringify({ ...JSON.parse(SPEC_SAMPLE_CARD_JSON), signatures: [GOLDEN] }, null, 2);
    expect(await verifyAgentCard(published, createPinnedKeyResolver([KEY.key]))).toEqual({
      status: 'valid',
      kid: '7cb16e94954c73e793776b730c4fa20fe747987ce43b49c66deb6b4aa49be50d',
      algorithm: 'EdDSA',
      agentId: '7cb16e94954c73e793776b730c4fa20fe747987ce43b49c66deb6b4aa49be50d',
      // RFC 8037 Appendix A.1's `x`: the key that signed it, for the request-signature fast path.
      publicKey: '11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo',
    });
  });
});

describe('browser and edge safety', () => {
  it('src uses no Node built-ins, Buffer or process', () => {
    const dir = join(import.meta.dirname, '..', 'src');
    for (const file of readdirSync(dir).filter((f) => f.endsWith('.ts'))) {
      const code = readFileSync(join(dir, file), 'utf8').replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, '');
      expect(code, file).not.toMatch(/from ['"]node:|require\(|\bBuffer\b|\bprocess\./);
    }
  });
});
