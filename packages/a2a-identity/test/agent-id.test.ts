import type { AgentCard } from '@a2aplane/a2a-types';
import { RUVECTOR_EXTENSION_URI, readRuvectorCardParams } from '@a2aplane/a2a-types';
import { describe, expect, it } from 'vitest';
import {
  agentIdFromPublicKey,
  checkCardAgentId,
  generateKeyPair,
  isAgentId,
  keyPairFromPrivateKey,
  toVerificationKey,
  withAgentIdExtension,
} from '../src/index.js';

const hex = (text: string) => Uint8Array.from(text.match(/../g)!.map((h) => Number.parseInt(h, 16)));

/**
 * ADR-159 r2: AgentID = SHAKE-256(pubkey_ed25519), 32 bytes, lowercase hex. Expected values were
 * derived once, independently of this code, with Node's OpenSSL binding:
 *   node -e 'const c=require("node:crypto");
 *            console.log(c.createHash("shake256",{outputLength:32}).update(Buffer.from(HEX,"hex")).digest("hex"))'
 */
const VECTORS: Array<[string, string, string]> = [
  ['32 zero bytes', '00'.repeat(32), 'f5977c8283546a63723bc31d2619124f11db4658643336741df81757d5ad3062'],
  [
    'bytes 0x00..0x1f',
    Array.from({ length: 32 }, (_, i) => i.toString(16).padStart(2, '0')).join(''),
    '69f07c8840ce80024db30939882c3d5bbc9c98b3e31e4513ebd2ca9b4503cdd3',
  ],
  [
    'RFC 8032 TEST 1 public key',
    'd75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a',
    '7cb16e94954c73e793776b730c4fa20fe747987ce43b49c66deb6b4aa49be50d',
  ],
];

function baseCard(): AgentCard {
  return {
    name: 'a',
    description: 'b',
    version: '1',
    supportedInterfaces: [{ url: 'https://a.example', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
    capabilities: {},
    defaultInputModes: [],
    defaultOutputModes: [],
    skills: [],
  };
}

describe('ADR-159 r2 — AgentID', () => {
  it.each(VECTORS)('%s', (_name, key, expected) => {
    expect(agentIdFromPublicKey(hex(key))).toBe(expected);
    expect(isAgentId(expected)).toBe(true);
  });

  it('same key, same id; the Ed25519 default kid is the AgentID', () => {
    const pair = keyPairFromPrivateKey('EdDSA', hex('9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60'));
    expect(pair.kid).toBe(VECTORS[2]![2]);
  });

  it.each([
    ['uppercase', 'F'.repeat(64)],
    ['short', 'a'.repeat(63)],
    ['number', 1],
    ['null', null],
  ])('isAgentId rejects %s', (_n, v) => {
    expect(isAgentId(v)).toBe(false);
  });

  it('refuses keys that are not 32 bytes', () => {
    expect(() => agentIdFromPublicKey(new Uint8Array(65))).toThrow(TypeError);
  });
});

describe('ADR-159 r2 — card ↔ key binding', () => {
  const key = generateKeyPair('EdDSA');
  const id = agentIdFromPublicKey(key.publicKey);

  it('withAgentIdExtension adds the ruvector extension that a2a-types reads back', () => {
    const card = withAgentIdExtension(baseCard(), id, { webhook_algos: ['hmac-sha256', 'ed25519'] });
    expect(readRuvectorCardParams(card)).toEqual({ agent_id: id, webhook_algos: ['hmac-sha256', 'ed25519'] });
    expect(checkCardAgentId(card, key)).toEqual({ ok: true, agentId: id });
  });

  it('merges into an existing ruvector extension and keeps other extensions', () => {
    const card = baseCard();
    card.capabilities.extensions = [
      { uri: 'urn:other', params: { a: 1 } },
      { uri: RUVECTOR_EXTENSION_URI, params: { artifact_kind_versions_supported: ['1'], agent_id: 'f'.repeat(64) } },
    ];
    const out = withAgentIdExtension(card, id);
    expect(out.capabilities.extensions).toHaveLength(2);
    expect(out.capabilities.extensions![1]!.params).toEqual({ artifact_kind_versions_supported: ['1'], agent_id: id });
    expect(card.capabilities.extensions![1]!.params!.agent_id).toBe('f'.repeat(64)); // input untouched
    expect(() => withAgentIdExtension(card, 'nope')).toThrow(TypeError);
  });

  it('reports missing, mismatch and not-ed25519', () => {
    expect(checkCardAgentId(baseCard(), key)).toEqual({ ok: false, reason: 'missing', expected: id });
    const other = withAgentIdExtension(baseCard(), agentIdFromPublicKey(generateKeyPair('EdDSA').publicKey));
    expect(checkCardAgentId(other, toVerificationKey(key))).toMatchObject({ ok: false, reason: 'mismatch', expected: id });
    expect(checkCardAgentId(other, generateKeyPair('ES256'))).toMatchObject({ ok: false, reason: 'not-ed25519' });
  });

  it.each([
    ['null', null],
    ['a string', 'card'],
    ['no capabilities', {}],
    ['extensions not an array', { capabilities: { extensions: 1 } }],
  ])('never throws on an untrusted card: %s', (_n, card) => {
    expect(checkCardAgentId(card, key)).toMatchObject({ ok: false, reason: 'missing' });
  });

  it('a non-string agent_id is a mismatch, not a crash', () => {
    const card = { capabilities: { extensions: [{ uri: RUVECTOR_EXTENSION_URI, params: { agent_id: 42 } }] } };
    expect(checkCardAgentId(card, key)).toMatchObject({ ok: false, reason: 'mismatch', found: '42' });
  });
});

describe('the ruvector extension URI', () => {
  it('is the one a2a-types defines (a2a-identity keeps its own copy, see agent-id.ts)', async () => {
    const { RUVECTOR_EXTENSION_URI: local } = await import('../src/agent-id.js');
    expect(local).toBe(RUVECTOR_EXTENSION_URI);
  });
});
