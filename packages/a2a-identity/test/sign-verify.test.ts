import { ed25519 } from '@noble/curves/ed25519';
import { hmac } from '@noble/hashes/hmac';
import { sha256 } from '@noble/hashes/sha2';
import { AgentCardSchema } from '@a2aplane/a2a-types';
import { describe, expect, it } from 'vitest';
import {
  agentIdFromPublicKey,
  type CardVerificationResult,
  canonicalCardPayload,
  createPinnedKeyResolver,
  createVerificationCache,
  decodeBase64Url,
  encodeBase64Url,
  generateKeyPair,
  keyPairFromPrivateKey,
  type KeyPair,
  type KeyResolver,
  signAgentCard,
  toVerificationKey,
  verifyAgentCard,
} from '../src/index.js';
import { fullCard, RFC8032_TEST1_SEED, SPEC_SAMPLE_CARD_JSON } from './fixtures.js';

// The key whose AgentID fullCard() declares.
const ed = keyPairFromPrivateKey('EdDSA', RFC8032_TEST1_SEED);
const es = generateKeyPair('ES256');
const trusted = createPinnedKeyResolver([ed, es]);
const enc = new TextEncoder();

function decodeHeader(protectedB64: string): unknown {
  return JSON.parse(new TextDecoder().decode(decodeBase64Url(protectedB64)!));
}

/** A hand-built JWS entry over the card's canonical payload, for algorithm-confusion attempts. */
function forgeSignature(card: Record<string, unknown>, header: Record<string, unknown>, sign: (input: Uint8Array) => Uint8Array) {
  const protectedB64 = encodeBase64Url(enc.encode(JSON.stringify(header)));
  const input = enc.encode(`${protectedB64}.${encodeBase64Url(canonicalCardPayload(card))}`);
  return { protected: protectedB64, signature: encodeBase64Url(sign(input)) };
}

/** `fullCard()` without the ruvector extension, so it declares no AgentID. */
function cardWithoutAgentId(): Record<string, unknown> {
  const card = fullCard();
  const capabilities = card.capabilities as Record<string, unknown>;
  return { ...card, capabilities: { ...capabilities, extensions: [] } };
}

/** Raw Ed25519 signing with `key`, whatever the header claims. */
function signWith(key: KeyPair) {
  return (input: Uint8Array) => ed25519.sign(input, key.privateKey);
}

describe('spec §8.4.2 — signature format', () => {
  it.each([
    ['EdDSA', ed],
    ['ES256', es],
  ] as const)('signs with %s: protected header {alg, typ: JOSE, kid, jku}', async (alg, key) => {
    // A P-256 key cannot stand for an Ed25519 AgentID: that card declares none.
    const card = alg === 'EdDSA' ? fullCard() : cardWithoutAgentId();
    const signed = signAgentCard(card, key, { jku: 'https://full.example.com/jwks.json' });
    expect(signed.card.signatures).toHaveLength(1);
    const sig = signed.card.signatures![0]!;
    expect(decodeHeader(sig.protected)).toEqual({ alg, typ: 'JOSE', kid: key.kid, jku: 'https://full.example.com/jwks.json' });
    expect(decodeBase64Url(sig.signature)).toHaveLength(64);
    expect(signed.json).toBe(JSON.stringify(signed.card));
    expect(signed.canonicalPayload).toEqual(canonicalCardPayload(card));
    const result = await verifyAgentCard(signed.json, trusted);
    expect(result).toMatchObject({ status: 'valid', kid: key.kid, algorithm: alg });
  });

  it('reports the AgentID of an Ed25519 signing key, and the key', async () => {
    const result = await verifyAgentCard(signAgentCard(fullCard(), ed).json, trusted);
    expect(result).toEqual({
      status: 'valid',
      kid: ed.kid,
      algorithm: 'EdDSA',
      agentId: agentIdFromPublicKey(ed.publicKey),
      publicKey: encodeBase64Url(ed.publicKey),
    });
  });

  it('several keys produce several signatures; keepExisting appends', () => {
    const both = signAgentCard(fullCard(), [ed, es]);
    expect(both.card.signatures!.map((s) => (decodeHeader(s.protected) as { kid: string }).kid)).toEqual([ed.kid, es.kid]);
    const resigned = signAgentCard(both.card, ed);
    expect(resigned.card.signatures).toHaveLength(1);
    const appended = signAgentCard(both.card, ed, { keepExisting: true });
    expect(appended.card.signatures).toHaveLength(3);
  });

  it('verifies a parsed object as well as JSON text', async () => {
    expect((await verifyAgentCard(JSON.parse(signAgentCard(cardWithoutAgentId(), es).json), trusted)).status).toBe('valid');
  });

  it('signature survives re-serialization with other member order and whitespace', async () => {
    const parsed = JSON.parse(signAgentCard(fullCard(), ed).json) as Record<string, unknown>;
    const reordered = JSON.stringify(Object.fromEntries(Object.entries(parsed).reverse()), null, 2);
    expect((await verifyAgentCard(reordered, trusted)).status).toBe('valid');
  });

  it('signature survives adding or dropping default-valued non-required fields (§8.4.1)', async () => {
    const parsed = JSON.parse(signAgentCard(fullCard(), ed).json) as Record<string, unknown>;
    parsed.securityRequirements = [...(parsed.securityRequirements as unknown[])];
    (parsed.capabilities as Record<string, unknown[]>).extensions![0] = {
      ...((parsed.capabilities as Record<string, unknown[]>).extensions![0] as object),
      required: undefined,
    };
    (parsed.supportedInterfaces as Array<Record<string, unknown>>)[1]!.tenant = '';
    expect((await verifyAgentCard(JSON.stringify(parsed), trusted)).status).toBe('valid');
  });

  it('rejects bad arguments from the programmer', () => {
    expect(() => signAgentCard(null as never, ed)).toThrow(TypeError);
    expect(() => signAgentCard(fullCard(), [])).toThrow(RangeError);
    expect(() => signAgentCard(fullCard(), toVerificationKey(ed) as KeyPair)).toThrow(TypeError);
  });
});

/** Every path to a value in a JSON tree, with the value. */
function leafPaths(value: unknown, path: Array<string | number> = []): Array<Array<string | number>> {
  if (Array.isArray(value)) return [path, ...value.flatMap((item, i) => leafPaths(item, [...path, i]))];
  if (typeof value === 'object' && value !== null) {
    return [path, ...Object.entries(value).flatMap(([k, v]) => leafPaths(v, [...path, k]))];
  }
  return [path];
}

function getAt(root: unknown, path: Array<string | number>): unknown {
  return path.reduce<unknown>((node, key) => (node as Record<string | number, unknown>)[key], root);
}

function mutate(root: Record<string, unknown>, path: Array<string | number>): void {
  const parent = getAt(root, path.slice(0, -1)) as Record<string | number, unknown>;
  const key = path[path.length - 1]!;
  const value = parent[key];
  if (typeof value === 'string') parent[key] = `${value}x`;
  else if (typeof value === 'number') parent[key] = value + 1;
  else if (typeof value === 'boolean') parent[key] = !value;
  else if (value === null) parent[key] = 0;
  else if (Array.isArray(value)) value.push('extra');
  else (value as Record<string, unknown>).injected = 'extra';
}

describe('spec §8.4.3 — tampering with any field of a signed card', () => {
  const signed = signAgentCard(fullCard(), ed);
  const paths = leafPaths(fullCard()).filter((p) => p.length > 0);
  it('covers every key path of the full card', () => {
    expect(paths.length).toBeGreaterThan(60);
  });
  it.each(paths.map((p) => [p.join('.'), p] as const))('modifying %s -> tampered', async (_name, path) => {
    const card = JSON.parse(signed.json) as Record<string, unknown>;
    mutate(card, path);
    const result = await verifyAgentCard(JSON.stringify(card), trusted);
    expect(result.status).toBe('tampered');
  });
  it('adding a top-level member -> tampered', async () => {
    const card = { ...(JSON.parse(signed.json) as Record<string, unknown>), extra: 1 };
    expect((await verifyAgentCard(JSON.stringify(card), trusted)).status).toBe('tampered');
  });
  it('removing a top-level member -> tampered', async () => {
    for (const key of Object.keys(fullCard())) {
      const card = JSON.parse(signed.json) as Record<string, unknown>;
      delete card[key];
      expect((await verifyAgentCard(JSON.stringify(card), trusted)).status, key).toBe('tampered');
    }
  });
  it('changing the signature bytes -> tampered', async () => {
    const card = JSON.parse(signed.json) as { signatures: Array<{ signature: string }> };
    const bytes = decodeBase64Url(card.signatures[0]!.signature)!;
    bytes[10]! ^= 1;
    card.signatures[0]!.signature = encodeBase64Url(bytes);
    expect((await verifyAgentCard(JSON.stringify(card), trusted)).status).toBe('tampered');
  });
  it('changing the protected header (kid kept) -> tampered', async () => {
    const card = JSON.parse(signed.json) as { signatures: Array<{ protected: string }> };
    card.signatures[0]!.protected = encodeBase64Url(enc.encode(JSON.stringify({ alg: 'EdDSA', kid: ed.kid, typ: 'JOSE', x: 1 })));
    expect((await verifyAgentCard(JSON.stringify(card), trusted)).status).toBe('tampered');
  });
});

describe('spec §8.4.3 — trust and algorithm confusion', () => {
  it('a card signed by an unknown key -> untrusted-key', async () => {
    const other = generateKeyPair('EdDSA');
    const result = await verifyAgentCard(signAgentCard(fullCard(), other).json, trusted);
    expect(result).toEqual({ status: 'untrusted-key', kids: [other.kid] });
  });

  it('the spec §8.5 sample (key-1 unknown here) -> untrusted-key', async () => {
    expect(await verifyAgentCard(SPEC_SAMPLE_CARD_JSON, trusted)).toEqual({ status: 'untrusted-key', kids: ['key-1'] });
    const sample = JSON.parse(SPEC_SAMPLE_CARD_JSON) as { signatures: Array<{ protected: string }> };
    expect(decodeHeader(sample.signatures[0]!.protected)).toEqual({
      alg: 'ES256',
      typ: 'JOSE',
      kid: 'key-1',
      jku: 'https://example.com/agent/jwks.json',
    });
  });

  const card = fullCard();
  const attempts: Array<[string, () => { protected: string; signature: string }]> = [
    ['alg none', () => forgeSignature(card, { alg: 'none', typ: 'JOSE', kid: ed.kid }, () => new Uint8Array(0))],
    [
      'HS256 keyed with the Ed25519 public key',
      () => forgeSignature(card, { alg: 'HS256', typ: 'JOSE', kid: ed.kid }, (i) => hmac(sha256, ed.publicKey, i)),
    ],
    [
      'HS256 keyed with the P-256 public key',
      () => forgeSignature(card, { alg: 'HS256', typ: 'JOSE', kid: es.kid }, (i) => hmac(sha256, es.publicKey, i)),
    ],
    ['RS256', () => forgeSignature(card, { alg: 'RS256', typ: 'JOSE', kid: ed.kid }, () => new Uint8Array(256))],
    ['ES256 header naming an Ed25519 key', () => forgeSignature(card, { alg: 'ES256', typ: 'JOSE', kid: ed.kid }, signWith(ed))],
    ['EdDSA header naming a P-256 key', () => forgeSignature(card, { alg: 'EdDSA', typ: 'JOSE', kid: es.kid }, signWith(ed))],
    ['unknown crit extension', () => forgeSignature(card, { alg: 'EdDSA', typ: 'JOSE', kid: ed.kid, crit: ['exp'], exp: 1 }, signWith(ed))],
  ];
  it.each(attempts)('%s -> unsupported-algorithm', async (_name, forge) => {
    const result = await verifyAgentCard({ ...card, signatures: [forge()] }, trusted);
    expect(result.status).toBe('unsupported-algorithm');
  });

  it('an unsupported signature next to a valid one does not block it, but never validates alone', async () => {
    const valid = signAgentCard(card, ed).card.signatures![0]!;
    const none = attempts[0]![1]();
    expect((await verifyAgentCard({ ...card, signatures: [none, valid] }, trusted)).status).toBe('valid');
    expect((await verifyAgentCard({ ...card, signatures: [none] }, trusted)).status).toBe('unsupported-algorithm');
  });

  it('crit in the unprotected header next to a valid signature -> unsupported-algorithm (RFC 7515 §4.1.11)', async () => {
    const valid = signAgentCard(card, ed).card.signatures![0]!;
    const result = await verifyAgentCard({ ...card, signatures: [{ ...valid, header: { crit: ['exp'], exp: 1 } }] }, trusted);
    expect(result.status).toBe('unsupported-algorithm');
  });

  it('a parameter repeated in the unprotected header -> malformed (RFC 7515 §7.2.1); other unprotected members are ignored', async () => {
    const valid = signAgentCard(card, ed).card.signatures![0]!;
    const other = generateKeyPair('EdDSA');
    for (const header of [{ alg: 'none' }, { kid: other.kid }, { typ: 'JWT' }]) {
      expect((await verifyAgentCard({ ...card, signatures: [{ ...valid, header }] }, trusted)).status, JSON.stringify(header)).toBe(
        'malformed',
      );
    }
    expect((await verifyAgentCard({ ...card, signatures: [{ ...valid, header: 'x' }] }, trusted)).status).toBe('malformed');
    // An unprotected jku never steers key resolution: only the protected header is trusted.
    const ignored = { note: 'unsigned', jku: 'https://evil.example/jwks.json' };
    expect(await verifyAgentCard({ ...card, signatures: [{ ...valid, header: ignored }] }, trusted)).toMatchObject({
      status: 'valid',
      kid: ed.kid,
    });
  });

  it('a correctly signed crit header is still refused (RFC 7515 §4.1.11)', async () => {
    const result = await verifyAgentCard({ ...card, signatures: [attempts[6]![1]()] }, trusted);
    expect(result).toMatchObject({ status: 'unsupported-algorithm' });
  });
});

describe('AgentID binding (ADR-159 r2): the declared agent_id must belong to a signing key', () => {
  const attacker = generateKeyPair('EdDSA');
  const both = createPinnedKeyResolver([ed, attacker, es]);

  it("a card declaring another agent's AgentID, signed with the attacker's own (trusted) key -> agent-id-mismatch", async () => {
    const result = await verifyAgentCard(signAgentCard(fullCard(), attacker).json, both);
    expect(result).toEqual({
      status: 'agent-id-mismatch',
      declared: agentIdFromPublicKey(ed.publicKey),
      signers: [agentIdFromPublicKey(attacker.publicKey)],
    });
  });

  it('a P-256 signature cannot vouch for a declared AgentID', async () => {
    expect((await verifyAgentCard(signAgentCard(fullCard(), es).json, both)).status).toBe('agent-id-mismatch');
  });

  it('with several valid signatures, the one whose key hashes to the declared AgentID is reported, in either order', async () => {
    for (const keys of [
      [attacker, ed],
      [ed, attacker],
    ]) {
      expect(await verifyAgentCard(signAgentCard(fullCard(), keys).json, both)).toMatchObject({
        status: 'valid',
        kid: ed.kid,
        agentId: agentIdFromPublicKey(ed.publicKey),
      });
    }
  });

  it('a mismatch is never cached as valid', async () => {
    const cache = createVerificationCache();
    const json = signAgentCard(fullCard(), attacker).json;
    expect((await verifyAgentCard(json, both, { cache })).status).toBe('agent-id-mismatch');
    expect((await verifyAgentCard(json, both, { cache })).status).toBe('agent-id-mismatch');
  });
});

describe('spec §8.4.3 — key rotation', () => {
  // A new key is a new AgentID: these cards declare none, so only the signatures are at stake.
  const oldKey = generateKeyPair('EdDSA');
  const newKey = generateKeyPair('ES256');

  it('old key no longer trusted + new key trusted -> valid', async () => {
    const signed = signAgentCard(cardWithoutAgentId(), [oldKey, newKey]);
    const result = await verifyAgentCard(signed.json, createPinnedKeyResolver([newKey]));
    expect(result).toMatchObject({ status: 'valid', kid: newKey.kid });
  });

  it('one stale signature (over an older card) + one valid -> valid, in either order', async () => {
    const stale = signAgentCard({ ...cardWithoutAgentId(), version: '1.0.0' }, oldKey).card.signatures![0]!;
    const current = signAgentCard(cardWithoutAgentId(), newKey).card.signatures![0]!;
    const resolver = createPinnedKeyResolver([oldKey, newKey]);
    for (const signatures of [
      [stale, current],
      [current, stale],
    ]) {
      expect(await verifyAgentCard({ ...cardWithoutAgentId(), signatures }, resolver)).toMatchObject({ status: 'valid', kid: newKey.kid });
    }
    expect((await verifyAgentCard({ ...cardWithoutAgentId(), signatures: [stale] }, resolver)).status).toBe('tampered');
  });
});

describe('spec §8.4.3 — verification runs over the card as received', () => {
  it('members a typed model drops are signed: the received text verifies, a re-serialized parsed model does not', async () => {
    // `x-vendor` is not in the v1.0 AgentCard; a schema parse drops it, exactly the loss §8.4.1 warns about.
    const json = signAgentCard(fullCard(), ed).json;
    expect((await verifyAgentCard(json, trusted)).status).toBe('valid');
    const model = AgentCardSchema.parse(JSON.parse(json));
    expect(model).not.toHaveProperty('x-vendor');
    expect((await verifyAgentCard(JSON.stringify(model), trusted)).status).toBe('tampered');
  });

  it('an explicitly present optional field at its default is part of the signed bytes', async () => {
    const card = { ...fullCard(), capabilities: { ...(fullCard().capabilities as object), pushNotifications: false } };
    const json = signAgentCard(card, ed).json;
    const withoutField = JSON.parse(json) as { capabilities: Record<string, unknown> };
    delete withoutField.capabilities.pushNotifications;
    expect((await verifyAgentCard(json, trusted)).status).toBe('valid');
    expect((await verifyAgentCard(JSON.stringify(withoutField), trusted)).status).toBe('tampered');
  });
});

describe('spec §8.4.3 — inputs that are not signed cards', () => {
  it.each([
    ['no signatures member', { ...fullCard() }],
    ['empty signatures', { ...fullCard(), signatures: [] }],
    ['null signatures', { ...fullCard(), signatures: null }],
  ])('%s -> no-signature', async (_name, card) => {
    expect(await verifyAgentCard(JSON.stringify(card), trusted)).toEqual({ status: 'no-signature' });
  });

  const validSig = signAgentCard(fullCard(), ed).card.signatures![0]!;
  it.each([
    ['not JSON', '{"name":'],
    ['a JSON array', '[]'],
    ['a JSON string', '"card"'],
    ['JSON null', 'null'],
    ['signatures not an array', JSON.stringify({ ...fullCard(), signatures: {} })],
    ['a signature that is not an object', JSON.stringify({ ...fullCard(), signatures: [42] })],
    ['a signature without protected', JSON.stringify({ ...fullCard(), signatures: [{ signature: validSig.signature }] })],
    ['padding in base64url', JSON.stringify({ ...fullCard(), signatures: [{ ...validSig, signature: `${validSig.signature}==` }] })],
    [
      'standard base64 alphabet',
      JSON.stringify({ ...fullCard(), signatures: [{ ...validSig, protected: `+/${validSig.protected.slice(2)}` }] }),
    ],
    [
      'protected header not JSON',
      JSON.stringify({ ...fullCard(), signatures: [{ ...validSig, protected: encodeBase64Url(enc.encode('{alg')) }] }),
    ],
    [
      'protected header without alg',
      JSON.stringify({ ...fullCard(), signatures: [{ ...validSig, protected: encodeBase64Url(enc.encode('{"kid":"k"}')) }] }),
    ],
    ['a lone surrogate in the card', `{"name":"\\ud800","signatures":${JSON.stringify([validSig])}}`],
  ])('%s -> malformed', async (_name, json) => {
    expect((await verifyAgentCard(json, trusted)).status).toBe('malformed');
  });

  it('a throwing or misbehaving resolver -> untrusted-key, not an exception', async () => {
    const json = signAgentCard(fullCard(), ed).json;
    const throwing: KeyResolver = {
      resolve: () => {
        throw new Error('boom');
      },
    };
    const rejecting: KeyResolver = { resolve: () => Promise.reject(new Error('boom')) };
    const notArray = { resolve: async () => 'nope' } as unknown as KeyResolver;
    for (const resolver of [throwing, rejecting, notArray]) {
      expect((await verifyAgentCard(json, resolver)).status).toBe('untrusted-key');
    }
  });

  it('random corruptions of a signed card never throw', async () => {
    const json = signAgentCard(fullCard(), ed).json;
    let seed = 7;
    const next = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed;
    };
    const statuses = new Set<CardVerificationResult['status']>();
    for (let i = 0; i < 300; i++) {
      const at = next() % json.length;
      const corrupted = json.slice(0, at) + String.fromCharCode(next() % 128) + json.slice(at + 1 + (next() % 3));
      const result = await verifyAgentCard(corrupted, trusted);
      statuses.add(result.status);
    }
    expect(
      [...statuses].every((s) => ['valid', 'tampered', 'untrusted-key', 'unsupported-algorithm', 'no-signature', 'malformed'].includes(s)),
    ).toBe(true);
    expect(statuses.has('malformed')).toBe(true);
  });
});

describe('verification cache (cheap verify-on-discover)', () => {
  function countingResolver(keys: KeyPair[]) {
    const inner = createPinnedKeyResolver(keys);
    const counter = { calls: 0 };
    const resolver: KeyResolver = {
      resolve: (header) => {
        counter.calls++;
        return inner.resolve(header);
      },
    };
    return { resolver, counter };
  }

  it('caches valid results: a second discovery does no key resolution or curve math', async () => {
    const { resolver, counter } = countingResolver([ed]);
    const cache = createVerificationCache();
    const json = signAgentCard(fullCard(), ed).json;
    const first = await verifyAgentCard(json, resolver, { cache });
    const second = await verifyAgentCard(json, resolver, { cache });
    expect(second).toEqual(first);
    expect(counter.calls).toBe(1);
  });

  it('does not cache failures, and a tampered card misses the cache', async () => {
    const { resolver, counter } = countingResolver([ed]);
    const cache = createVerificationCache();
    const json = signAgentCard(fullCard(), ed).json;
    await verifyAgentCard(json, resolver, { cache });
    const tampered = json.replace('Full Agent', 'Evil Agent');
    expect((await verifyAgentCard(tampered, resolver, { cache })).status).toBe('tampered');
    expect((await verifyAgentCard(tampered, resolver, { cache })).status).toBe('tampered');
    expect(counter.calls).toBe(3);
  });

  it("a cache shared between resolvers never lends one resolver's trust to another", async () => {
    const cache = createVerificationCache();
    const json = signAgentCard(fullCard(), ed).json;
    expect((await verifyAgentCard(json, createPinnedKeyResolver([ed]), { cache })).status).toBe('valid');
    expect((await verifyAgentCard(json, createPinnedKeyResolver([es]), { cache })).status).toBe('untrusted-key');
  });

  it('is bounded (LRU) and expires entries', async () => {
    let now = 0;
    const cache = createVerificationCache({ maxEntries: 1, ttlMs: 1000, clock: () => now });
    const valid: CardVerificationResult = { status: 'valid', kid: 'k', algorithm: 'EdDSA' };
    cache.set('a', valid);
    cache.set('b', valid);
    expect(cache.get('a')).toBeUndefined();
    expect(cache.get('b')).toEqual(valid);
    now = 1000;
    expect(cache.get('b')).toBeUndefined();
    cache.set('c', { status: 'no-signature' });
    expect(cache.get('c')).toBeUndefined();
    expect(() => createVerificationCache({ maxEntries: 0 })).toThrow(RangeError);
  });
});
