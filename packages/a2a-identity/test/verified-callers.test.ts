import { ed25519 } from '@noble/curves/ed25519';
import { describe, expect, it } from 'vitest';
import {
  agentIdFromPublicKey,
  checkCardAgentId,
  createCallerKeyResolver,
  createHttpRequestSigner,
  createHttpSignatureVerifier,
  createNonceCache,
  createPinnedKeyResolver,
  encodeBase64Url,
  generateKeyPair,
  type HttpSignatureVerifierOptions,
  isAcceptableEd25519PublicKey,
  type NonceCache,
  readPublicJwk,
  toVerificationKey,
  type VerifiableRequest,
  type VerificationKey,
  withAgentIdExtension,
} from '../src/index.js';
import { verifyBytes } from '../src/jws.js';
import { verifySignature } from '../src/webcrypto.js';

// Issue 42: the replay window to the millisecond, the same refusal work for every failure, weak
// Ed25519 keys refused wherever a key enters, and nonces recorded only for allowed callers within
// a per-caller share of the cache.

const NOW = 1_800_000_000_000;
const caller = generateKeyPair('EdDSA');
const callerId = agentIdFromPublicKey(caller.publicKey);
const server = generateKeyPair('EdDSA');
const BODY = '{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{}}';
const utf8 = new TextEncoder();

async function signed(options: { key?: typeof caller; at?: number; fast?: boolean } = {}): Promise<VerifiableRequest> {
  const signer = createHttpRequestSigner({
    key: options.key ?? caller,
    clock: () => options.at ?? NOW,
    ...(options.fast ? { serverKey: toVerificationKey(server) } : {}),
  });
  const url = new URL('https://agent.example.com/a2a/jsonrpc');
  const headers = await signer.sign({ method: 'POST', url, body: BODY });
  return { method: 'POST', authority: url.host, target: url.pathname, headers, body: utf8.encode(BODY), authorities: [url.host] };
}

const verifierWith = (options: Partial<HttpSignatureVerifierOptions> & { clock: () => number }) =>
  createHttpSignatureVerifier({ resolveKey: createCallerKeyResolver({ keys: [caller] }), ownKey: server, ...options });

describe('issue 42, item 1: one millisecond bound for accepting a signature and holding its nonce', () => {
  it('a captured request replayed at every millisecond around the end of its window is never accepted again', async () => {
    let now = NOW;
    const v = verifierWith({ clock: () => now });
    const request = await signed();
    expect(await v.verify(request)).toMatchObject({ ok: true, created: NOW / 1000, expires: NOW / 1000 + 60 });
    // Accepted until (expires + skew) * 1000 exclusive: 90 s after signing with the defaults.
    const edge = (NOW / 1000 + 60 + 30) * 1000;
    // Each millisecond's answer must be `replayed` inside the window and `expired` from its end on.
    const wrong: string[] = [];
    for (now = edge - 1500; now <= edge + 1500; now++) {
      const result = await v.verify(request);
      const expected = now < edge ? 'replayed' : 'expired';
      if (result.ok || result.reason !== expected) wrong.push(`${now - edge}: ${result.ok ? 'accepted' : result.reason}`);
    }
    expect(wrong).toEqual([]);
  });

  it('a fresh signature is accepted up to the millisecond before (expires + skew) * 1000, and refused from it on', async () => {
    const edge = (NOW / 1000 + 60 + 30) * 1000;
    for (const [at, ok] of [
      [edge - 1, true],
      [edge, false],
      [edge + 999, false],
    ] as const) {
      const v = verifierWith({ clock: () => at });
      expect((await v.verify(await signed())).ok, `at edge ${at - edge} ms`).toBe(ok);
    }
    // And from (created - skew) * 1000 on, not before.
    const start = (NOW / 1000 - 30) * 1000;
    expect((await verifierWith({ clock: () => start }).verify(await signed())).ok).toBe(true);
    expect(await verifierWith({ clock: () => start - 1 }).verify(await signed())).toMatchObject({ ok: false, reason: 'not-yet-valid' });
  });

  it("records each nonce until that same bound, with the caller's AgentID as its owner", async () => {
    const added: Array<[string, number, string]> = [];
    const nonces: NonceCache = {
      add: (key, expiresAtMs, owner) => {
        added.push([key, expiresAtMs, owner]);
        return true;
      },
    };
    expect((await verifierWith({ clock: () => NOW, nonces }).verify(await signed())).ok).toBe(true);
    expect(added).toEqual([[expect.stringMatching(new RegExp(`^${callerId.slice(0, 16)}:`)), (NOW / 1000 + 90) * 1000, callerId]]);
  });

  it('a cache that answers later than the window is refused: a verification that ends past the bound fails closed', async () => {
    let now = (NOW / 1000 + 90) * 1000 - 5;
    const memory = createNonceCache({ clock: () => now });
    const late: NonceCache = {
      add: async (key, expiresAtMs, owner) => {
        now += 10; // the shared cache answered after the signature's last millisecond
        return memory.add(key, expiresAtMs, owner);
      },
    };
    expect(await verifierWith({ clock: () => now, nonces: late }).verify(await signed())).toMatchObject({ ok: false, reason: 'replayed' });
  });
});

describe('issue 42, item 2: every signature failure costs the same work', () => {
  const stranger = generateKeyPair('EdDSA');
  for (const fast of [false, true]) {
    it(`an unknown key is checked against a dummy key, as a bad signature is checked (${fast ? 'hmac-sha256' : 'ed25519'})`, async () => {
      const calls = { ed25519: 0, hmac: 0 };
      const v = verifierWith({
        clock: () => NOW,
        verifyEd25519: (publicKey, data, signature) => {
          calls.ed25519++;
          return ed25519.verify(signature, data, publicKey);
        },
        hmacSha256: (key, data) => {
          calls.hmac++;
          return new Uint8Array(32).fill(key[0] ?? 0).map((b, i) => b ^ (data[i] ?? 0));
        },
      });
      const unknown = await signed({ key: stranger, fast });
      const unknownResult = await v.verify(unknown);
      const afterUnknown = { ...calls };
      const tampered = await signed({ fast });
      const headers = tampered.headers as Record<string, string>;
      headers.signature = `a2a=:${headers.signature?.[5] === 'A' ? 'B' : 'A'}${headers.signature?.slice(6)}`;
      const tamperedResult = await v.verify(tampered);
      expect(unknownResult).toMatchObject({ ok: false, reason: 'unknown-key' });
      expect(tamperedResult).toMatchObject({ ok: false, reason: 'bad-signature' });
      const work = fast ? 'hmac' : 'ed25519';
      expect(afterUnknown[work]).toBe(1);
      expect(calls[work] - afterUnknown[work]).toBe(1);
    });
  }
});

// The points of small order of edwards25519 in every 32-byte encoding, canonical or not, and
// non-canonical encodings of ordinary points (y >= p), as RFC 8032 §5.1.3 and Wycheproof's
// eddsa tests list them; plus valid keys that must stay accepted.
const hex = (text: string) => Uint8Array.from(Buffer.from(text, 'hex'));
const SMALL_ORDER = [
  '0100000000000000000000000000000000000000000000000000000000000000', // identity
  'ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f', // order 2
  '0000000000000000000000000000000000000000000000000000000000000000', // order 4
  '0000000000000000000000000000000000000000000000000000000000000080', // order 4, other sign
  '26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05', // order 8
  '26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc85', // order 8
  'c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a', // order 8
  'c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac03fa', // order 8
  '0100000000000000000000000000000000000000000000000000000000000080', // identity, x = 0 with the sign bit set
  'ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff', // order 2, x = 0 with the sign bit set
];
const NON_CANONICAL = [
  'edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f', // y = p (0)
  'eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f', // y = p + 1 (1)
  'f0ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f', // y = p + 3
  'ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff', // y = 2^255 - 1, sign set
];
const VALID = [
  'd75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a', // RFC 8032 §7.1 TEST 1
  '3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c', // RFC 8032 §7.1 TEST 2
];
const weakKeys = [...SMALL_ORDER, ...NON_CANONICAL].map(hex);
const jwkOf = (bytes: Uint8Array) => ({ kty: 'OKP', crv: 'Ed25519', x: encodeBase64Url(bytes) });
const keyOf = (bytes: Uint8Array): VerificationKey => ({ algorithm: 'EdDSA', kid: 'k', publicKey: bytes });

describe('issue 42, item 3: small-order and non-canonical Ed25519 keys are refused wherever a key enters', () => {
  it('the list holds every small-order point (checked with curve arithmetic), and the valid keys pass', () => {
    const order8 = ed25519.Point.fromHex(SMALL_ORDER[4] as string);
    for (let i = 0n; i < 8n; i++) {
      const point = i === 0n ? ed25519.Point.ZERO : order8.multiplyUnsafe(i);
      expect(point.isSmallOrder()).toBe(true);
      expect(isAcceptableEd25519PublicKey(point.toBytes()), `[${i}]T`).toBe(false);
    }
    // Every listed encoding that decodes at all (ZIP-215 rules take non-canonical forms) is a small-order point.
    let decoded = 0;
    for (const text of SMALL_ORDER) {
      let point: ReturnType<typeof ed25519.Point.fromHex> | undefined;
      try {
        point = ed25519.Point.fromHex(hex(text), true);
      } catch {
        continue;
      }
      decoded++;
      expect(point.isSmallOrder(), text).toBe(true);
    }
    expect(decoded).toBeGreaterThanOrEqual(8);
    for (const text of VALID) expect(isAcceptableEd25519PublicKey(hex(text))).toBe(true);
    expect(isAcceptableEd25519PublicKey(caller.publicKey)).toBe(true);
    for (const bytes of weakKeys) expect(isAcceptableEd25519PublicKey(bytes), encodeBase64Url(bytes)).toBe(false);
    expect(isAcceptableEd25519PublicKey(new Uint8Array(31))).toBe(false);
  });

  it('readPublicJwk refuses them (and so importJwk, the JWKS and pinned resolvers)', () => {
    for (const bytes of weakKeys) expect(readPublicJwk(jwkOf(bytes)).ok, encodeBase64Url(bytes)).toBe(false);
    for (const text of VALID) expect(readPublicJwk(jwkOf(hex(text))).ok).toBe(true);
    for (const bytes of weakKeys) {
      expect(() => createPinnedKeyResolver([jwkOf(bytes) as never])).toThrow(TypeError);
      expect(() => createPinnedKeyResolver([keyOf(bytes)])).toThrow(TypeError);
    }
  });

  it('the caller-key resolver refuses to pin them, as a JWK or as a key', () => {
    for (const bytes of weakKeys) {
      expect(() => createCallerKeyResolver({ keys: [jwkOf(bytes) as never] })).toThrow(TypeError);
      expect(() => createCallerKeyResolver({ keys: [keyOf(bytes)] })).toThrow(TypeError);
    }
  });

  it('the verifier refuses a resolved small-order key: the forged signature R = identity, S = 0 does not pass', async () => {
    const identity = ed25519.Point.ZERO.toBytes();
    const weakId = agentIdFromPublicKey(identity);
    const forged = new Uint8Array(64);
    forged.set(identity, 0); // R = the identity point, S = 0: valid under the identity key for any message
    expect(ed25519.verify(forged, utf8.encode('any message'), identity)).toBe(true);
    const request: VerifiableRequest = {
      method: 'GET',
      authority: 'agent.example.com',
      target: '/a2a/rest/tasks',
      headers: {
        'signature-input': `a2a=("@method" "@authority" "@path" "@query");created=${NOW / 1000};expires=${NOW / 1000 + 60};nonce="abcdefghijklmnopqrstuv";alg="ed25519";keyid="${weakId}"`,
        signature: `a2a=:${Buffer.from(forged).toString('base64')}:`,
      },
      authorities: ['agent.example.com'],
    };
    for (const verifyEd25519 of [undefined, (k: Uint8Array, d: Uint8Array, s: Uint8Array) => ed25519.verify(s, d, k)]) {
      const v = createHttpSignatureVerifier({
        resolveKey: () => keyOf(identity),
        clock: () => NOW,
        ...(verifyEd25519 ? { verifyEd25519 } : {}),
      });
      expect(await v.verify(request)).toMatchObject({ ok: false, reason: 'unknown-key' });
    }
  });

  it("a card's signing key and the raw verifiers refuse them too", async () => {
    const identity = ed25519.Point.ZERO.toBytes();
    const card = withAgentIdExtension(
      {
        name: 'a',
        description: 'a',
        version: '1',
        supportedInterfaces: [],
        capabilities: {},
        defaultInputModes: [],
        defaultOutputModes: [],
        skills: [],
      } as never,
      agentIdFromPublicKey(identity),
    );
    expect(checkCardAgentId(card, keyOf(identity))).toMatchObject({ ok: false, reason: 'not-ed25519' });
    const forged = new Uint8Array(64);
    forged.set(identity, 0);
    expect(verifyBytes('EdDSA', keyOf(identity), utf8.encode('x'), forged)).toBe(false);
    expect(await verifySignature('EdDSA', keyOf(identity), utf8.encode('x'), forged)).toBe(false);
  });
});

describe('issue 42, item 4: nonces only for allowed callers, and a share per caller', () => {
  const other = generateKeyPair('EdDSA');
  const both = createCallerKeyResolver({ keys: [caller, other] });

  it('a caller with a known key but not allowed never takes room in the replay cache', async () => {
    const nonces = createNonceCache({ maxEntries: 4, clock: () => NOW });
    const allowed = new Set([agentIdFromPublicKey(other.publicKey)]);
    const v = createHttpSignatureVerifier({
      resolveKey: both,
      clock: () => NOW,
      nonces,
      identity: { isAllowed: (id) => allowed.has(id) },
    });
    for (let i = 0; i < 20; i++) expect(await v.verify(await signed())).toMatchObject({ ok: false, reason: 'not-allowed' });
    expect(nonces.size).toBe(0);
    for (let i = 0; i < 2; i++) expect((await v.verify(await signed({ key: other }))).ok).toBe(true);
    // An asynchronous identity check, and one that fails, refuse as well (fail closed).
    const rejecting = createHttpSignatureVerifier({
      resolveKey: both,
      clock: () => NOW,
      identity: { isAllowed: () => Promise.reject(new Error('down')) },
    });
    expect(await rejecting.verify(await signed({ key: other }))).toMatchObject({ ok: false, reason: 'not-allowed' });
    const later = createHttpSignatureVerifier({ resolveKey: both, clock: () => NOW, identity: { isAllowed: async () => true } });
    expect((await later.verify(await signed({ key: other }))).ok).toBe(true);
  });

  it('a caller that fills its share is refused, and every other caller is still served', async () => {
    const nonces = createNonceCache({ maxEntries: 10, maxEntriesPerOwner: 5, clock: () => NOW });
    const v = createHttpSignatureVerifier({ resolveKey: both, clock: () => NOW, nonces, authorities: 'any' });
    for (let i = 0; i < 5; i++) expect((await v.verify(await signed())).ok).toBe(true);
    expect(await v.verify(await signed())).toMatchObject({ ok: false, reason: 'replayed' });
    for (let i = 0; i < 5; i++) expect((await v.verify(await signed({ key: other }))).ok).toBe(true);
  });
});

describe('issue 33: verifications that interleave never share a buffer', () => {
  it('Ed25519 checks that read their input later and HMAC checks between them each verify their own base', async () => {
    // A check that reads its data a turn later, as WebCrypto does: had the verifier handed it a
    // view of a buffer the next verification writes, the HMAC checks in between would overwrite it.
    const deferred = async (publicKey: Uint8Array, data: Uint8Array, signature: Uint8Array) => {
      await new Promise((resolve) => setTimeout(resolve, 1));
      return ed25519.verify(signature, data, publicKey);
    };
    for (const verifyEd25519 of [undefined, deferred]) {
      const v = verifierWith({ clock: () => NOW, authorities: 'any', ...(verifyEd25519 ? { verifyEd25519 } : {}) });
      const requests: Array<{ request: VerifiableRequest; good: boolean }> = [];
      for (let i = 0; i < 40; i++) {
        const signer = createHttpRequestSigner({
          key: caller,
          clock: () => NOW,
          ...(i % 2 ? { serverKey: toVerificationKey(server) } : {}),
        });
        // Targets and bodies of several lengths, so each base differs from the next in length and bytes.
        const url = new URL(`https://agent.example.com/a2a/${'p'.repeat(i)}`);
        const body = `{"n":${i},"pad":"${'x'.repeat(i * 7)}"}`;
        const headers = await signer.sign({ method: 'POST', url, body });
        const good = i % 3 !== 0;
        if (!good) headers.signature = `a2a=:${headers.signature?.[5] === 'A' ? 'B' : 'A'}${headers.signature?.slice(6)}`;
        requests.push({ request: { method: 'POST', authority: url.host, target: url.pathname, headers, body: utf8.encode(body) }, good });
      }
      const results = await Promise.all(requests.map(({ request }) => v.verify(request)));
      expect(results.map((result) => result.ok)).toEqual(requests.map(({ good }) => good));
    }
  });
});
