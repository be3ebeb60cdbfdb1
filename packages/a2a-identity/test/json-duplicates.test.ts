import { describe, expect, it } from 'vitest';
import { findDuplicateKey } from '../src/json-duplicates.js';
import {
  agentIdFromPublicKey,
  createPinnedKeyResolver,
  encodeBase64Url,
  generateKeyPair,
  signAgentCard,
  verifyAgentCard,
  withAgentIdExtension,
} from '../src/index.js';
import type { AgentCard } from '@a2aplane/a2a-types';
import { fullCard } from './fixtures.js';

describe('RFC 8785 §3.1 / RFC 7493 — duplicate member names', () => {
  it.each([
    ['{"a":1,"a":2}', 'a'],
    ['{"x":{"b":[1,{"c":1,"c":2}]}}', 'c'],
    ['{"a":1,"\\u0061":2}', 'a'],
    ['[{"k":1},{"k":1,"z":{"k":2},"k":3}]', 'k'],
  ])('finds the repeat in %s', (text, name) => {
    expect(findDuplicateKey(text)).toBe(name);
  });

  it.each([
    '{"a":1,"b":{"a":2},"c":[{"a":3}]}',
    '{"a":"a","b":"\\"a\\":{,}[]"}',
    '["a","a",{"a":"a"}]',
    '{"a\\\\":1,"a":2}',
    '{}',
    '"{\\"a\\":1,\\"a\\":2}"',
  ])('no false positive in %s', (text) => {
    expect(findDuplicateKey(text)).toBeUndefined();
  });

  const ed = generateKeyPair('EdDSA');
  const resolver = createPinnedKeyResolver([ed]);

  it('a signed card with a smuggled duplicate member is malformed, not valid', async () => {
    const json = signAgentCard(fullCard(), ed).json;
    // JSON.parse keeps the last "name" (the signed one); a first-wins parser would read "Evil".
    const smuggled = `{"name":"Evil",${json.slice(1)}`;
    expect(await verifyAgentCard(smuggled, resolver)).toMatchObject({ status: 'malformed' });
  });

  it('a protected header with a repeated parameter is malformed', async () => {
    const signed = signAgentCard(fullCard(), ed);
    const sig = signed.card.signatures![0]!;
    const header = encodeBase64Url(new TextEncoder().encode(`{"alg":"none","alg":"EdDSA","typ":"JOSE","kid":"${ed.kid}"}`));
    const card = { ...signed.card, signatures: [{ ...sig, protected: header }] };
    expect((await verifyAgentCard(JSON.stringify(card), resolver)).status).toBe('malformed');
  });
});

describe('ADR-159 r2 — reported AgentID with several Ed25519 signatures', () => {
  it('prefers the signature whose key matches the declared agent_id', async () => {
    const rotatedOut = generateKeyPair('EdDSA');
    const identity = generateKeyPair('EdDSA');
    const card = withAgentIdExtension(fullCard() as unknown as AgentCard, agentIdFromPublicKey(identity.publicKey));
    const json = signAgentCard(card, [rotatedOut, identity]).json;
    const result = await verifyAgentCard(json, createPinnedKeyResolver([rotatedOut, identity]));
    expect(result).toMatchObject({ status: 'valid', kid: identity.kid, agentId: agentIdFromPublicKey(identity.publicKey) });
  });
});
