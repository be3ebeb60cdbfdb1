import { describe, expect, it } from 'vitest';
import {
  agentIdFromPublicKey,
  createCallerKeyResolver,
  createHttpRequestSigner,
  createHttpSignatureVerifier,
  generateKeyPair,
  readHttpSignature,
  toVerificationKey,
  type VerifiableRequest,
} from '../src/index.js';
import { profileBase, profileTargetLines, readProfileInput } from '../src/signature-profile.js';

// The profile reader and base writer of decision 0049: the signer's exact form, read without the
// general structured-field parser, must give what that parser gives, and refuse everything else.

const NOW = 1_800_000_000_000;
const caller = generateKeyPair('EdDSA');
const callerId = agentIdFromPublicKey(caller.publicKey);
const server = generateKeyPair('EdDSA');
const body = '{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{}}';
const utf8 = new TextEncoder();

async function signed(url = 'https://agent.example.com/a2a/jsonrpc', method = 'POST', fast = true): Promise<VerifiableRequest> {
  const target = new URL(url);
  const signer = createHttpRequestSigner({ key: caller, clock: () => NOW, ...(fast ? { serverKey: toVerificationKey(server) } : {}) });
  const withBody = method !== 'GET';
  const headers = await signer.sign({ method, url: target, body: withBody ? body : undefined });
  return {
    method,
    authority: target.host,
    target: `${target.pathname}${target.search}`,
    headers: { 'content-type': 'application/json', ...headers },
    body: withBody ? utf8.encode(body) : undefined,
    authorities: [target.host],
  };
}

const headersOf = (request: VerifiableRequest) => request.headers as Record<string, string>;
const verifier = () =>
  createHttpSignatureVerifier({ resolveKey: createCallerKeyResolver({ keys: [caller] }), ownKey: server, clock: () => NOW });

describe('readProfileInput: the signer form only', () => {
  it("reads the signer's fields as the general parser reads them, with and without content-digest", async () => {
    for (const request of [await signed(), await signed('https://agent.example.com/a2a/rest/tasks?pageSize=2', 'GET')]) {
      const input = headersOf(request)['signature-input'] as string;
      const general = readHttpSignature({
        ...request,
        headers: { ...headersOf(request), 'signature-input': ` ${input}` },
      });
      const read = readProfileInput(input);
      expect(read).toEqual({
        withDigest: general.components.includes('content-digest'),
        created: general.params.get('created'),
        expires: general.params.get('expires'),
        nonce: general.params.get('nonce'),
        alg: general.params.get('alg'),
        keyid: general.params.get('keyid'),
      });
      expect(read?.keyid).toBe(callerId);
    }
  });

  it('refuses every other form (the general parser decides those)', async () => {
    const input = headersOf(await signed())['signature-input'] as string;
    const edits: Array<(text: string) => string> = [
      (text) => text.replace('created=', 'created=0'), // a leading zero
      (text) => text.replace(/created=\d+/, 'created=1234567890123456'), // 16 digits
      (text) => text.replace(/created=\d+/, 'created='), // no digits
      (text) => text.replace(/nonce="[^"]*"/, 'nonce="abcdefghijklmno"'), // 15 characters
      (text) => text.replace(/nonce="[^"]*"/, `nonce="${'a'.repeat(129)}"`), // 129 characters
      (text) => text.replace(/nonce="([^"]*)"/, 'nonce="$1+"'), // not base64url
      (text) => text.replace(/keyid="([0-9a-f]+)"/, (_, id: string) => `keyid="${id.toUpperCase()}"`),
      (text) => text.replace(/keyid="([0-9a-f]+)"/, (_, id: string) => `keyid="${id.slice(1)}"`),
      (text) => text.replace('alg="hmac-sha256"', 'alg="hmac-sha512"'),
      (text) => text.replace('alg="hmac-sha256"', 'alg="ed25519x"'),
      (text) => `${text};tag="x"`,
      (text) => `${text} `,
      (text) => text.slice(0, -1),
      (text) => text.replace('a2a=', 'sig='),
      (text) => text.replace('"@method" ', ''),
      (text) => text.replace(' "content-digest"', ' "content-type"'),
      (text) => text.replace(';expires=', ';expires= '),
      (text) => text.replace(/"$/, '"é'),
    ];
    expect(readProfileInput(input)).toBeDefined();
    for (const edit of edits) expect(readProfileInput(edit(input))).toBeUndefined();
  });
});

describe('profileBase: the signature base as bytes', () => {
  it('is the UTF-8 of the general base, with and without content-digest, and for a non-ASCII digest value', async () => {
    const cases: VerifiableRequest[] = [
      await signed(),
      await signed('https://agent.example.com/a2a/rest/tasks?pageSize=2', 'GET'),
      await signed('http://127.0.0.1:4000/a2a/jsonrpc'),
    ];
    const post = await signed();
    cases.push({ ...post, headers: { ...headersOf(post), 'content-digest': 'sha-256=:é:' } });
    for (const request of cases) {
      const general = readHttpSignature(request);
      const target = new URL(`https://${request.authority}${request.target}`);
      const lines = profileTargetLines(request.method, request.authority, target.pathname, target.search || '?');
      const digest = general.components.includes('content-digest') ? headersOf(request)['content-digest'] : undefined;
      const bytes = profileBase(lines, digest, headersOf(request)['signature-input'] as string);
      expect(new TextDecoder().decode(bytes)).toBe(general.base);
      expect([...bytes]).toEqual([...utf8.encode(general.base)]);
    }
  });

  it('a longer base than the buffer holds grows it; the next short one is still exact', async () => {
    const request = await signed();
    const general = readHttpSignature(request);
    const input = headersOf(request)['signature-input'] as string;
    const lines = profileTargetLines('POST', 'agent.example.com', `/${'p'.repeat(5000)}`, '?');
    expect(profileBase(lines, 'x'.repeat(3000), input).length).toBeGreaterThan(8000);
    const short = profileBase(
      profileTargetLines('POST', 'agent.example.com', '/a2a/jsonrpc', '?'),
      headersOf(request)['content-digest'],
      input,
    );
    expect(new TextDecoder().decode(short)).toBe(general.base);
  });
});

const BASE64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
/**
 * Another character for `value[i]`. A base64 digit gets its top bit flipped: its low bits may be pad
 * bits, which decoders ignore (RFC 8941 §4.2.7 says parsers should accept non-zero pad bits), and
 * the top bit of every digit is data. Anything else becomes 'A' (or 'B' if it was 'A').
 */
function changedChar(value: string, i: number): string {
  const digit = BASE64.indexOf(value.charAt(i));
  if (digit >= 0 && value.lastIndexOf(':', i) > 0) return BASE64.charAt(digit ^ 32);
  return value.charAt(i) === 'A' ? 'B' : 'A';
}

describe('the verifier over the profile reader', () => {
  it('keeps verifying as the target changes between requests (the per-target base lines follow it)', async () => {
    const v = verifier();
    const urls = [
      'https://agent.example.com/a2a/jsonrpc',
      'https://agent.example.com/a2a/rest/message:send',
      'https://other.example.com/a2a/jsonrpc',
      'https://agent.example.com/a2a/jsonrpc',
    ];
    for (const url of urls) expect(await v.verify(await signed(url))).toMatchObject({ ok: true, agentId: callerId, alg: 'hmac-sha256' });
    // Same authority and path, another method: the base lines are not the cached ones.
    expect(await v.verify(await signed('https://agent.example.com/a2a/jsonrpc', 'GET'))).toMatchObject({ ok: true });
  });

  it('a request signed for one target does not verify at another, right after that one verified', async () => {
    const v = verifier();
    expect((await v.verify(await signed('https://agent.example.com/a2a/jsonrpc'))).ok).toBe(true);
    const other = await signed('https://agent.example.com/a2a/rest/message:send');
    expect(await v.verify({ ...other, target: '/a2a/jsonrpc' })).toMatchObject({ ok: false, reason: 'bad-signature' });
    expect(await v.verify({ ...other, method: 'PUT' })).toMatchObject({ ok: false, reason: 'bad-signature' });
  });

  it('a byte changed anywhere in Signature-Input, Signature, Content-Digest or the body is refused', async () => {
    for (const fast of [true, false]) {
      const request = await signed(undefined, 'POST', fast);
      expect(await verifier().verify(request)).toMatchObject({ ok: true, alg: fast ? 'hmac-sha256' : 'ed25519' });
      for (const name of ['signature-input', 'signature', 'content-digest']) {
        const value = headersOf(request)[name] as string;
        for (let i = 0; i < value.length; i++) {
          const changed = `${value.slice(0, i)}${changedChar(value, i)}${value.slice(i + 1)}`;
          const result = await verifier().verify({ ...request, headers: { ...headersOf(request), [name]: changed } });
          expect(result.ok, `${name} at ${i}`).toBe(false);
        }
      }
      const bytes = utf8.encode(body);
      for (let i = 0; i < bytes.length; i += 7) {
        const altered = bytes.slice();
        altered[i] = (altered[i] as number) ^ 1;
        expect(await verifier().verify({ ...request, body: altered })).toMatchObject({ ok: false, reason: 'digest-mismatch' });
      }
    }
  });

  it('a covered content-digest that is missing is malformed, as the general parser says', async () => {
    const request = await signed();
    const { 'content-digest': _, ...headers } = headersOf(request);
    expect(await verifier().verify({ ...request, headers })).toMatchObject({ ok: false, reason: 'malformed' });
  });

  it('a key that arrives later (a promise) verifies; a rejected one is an unknown key; a throwing resolver too', async () => {
    const pinned = createCallerKeyResolver({ keys: [caller] });
    const later = createHttpSignatureVerifier({
      resolveKey: async (id) => pinned(id),
      ownKey: server,
      clock: () => NOW,
    });
    expect(await later.verify(await signed())).toMatchObject({ ok: true, agentId: callerId });
    const rejected = createHttpSignatureVerifier({ resolveKey: () => Promise.reject(new Error('down')), ownKey: server, clock: () => NOW });
    expect(await rejected.verify(await signed())).toMatchObject({ ok: false, reason: 'unknown-key' });
    const throwing = createHttpSignatureVerifier({
      resolveKey: () => {
        throw new Error('down');
      },
      ownKey: server,
      clock: () => NOW,
    });
    expect(await throwing.verify(await signed())).toMatchObject({ ok: false, reason: 'unknown-key' });
  });

  it('an asynchronous digest or Ed25519 check that rejects gives malformed, never a rejection', async () => {
    const failing = createHttpSignatureVerifier({
      resolveKey: createCallerKeyResolver({ keys: [caller] }),
      ownKey: server,
      clock: () => NOW,
      verifyEd25519: () => Promise.reject(new Error('no WebCrypto')),
    });
    await expect(failing.verify(await signed(undefined, 'POST', false))).resolves.toMatchObject({ ok: false, reason: 'malformed' });
    const slowDigest = createHttpSignatureVerifier({
      resolveKey: createCallerKeyResolver({ keys: [caller] }),
      ownKey: server,
      clock: () => NOW,
      sha256: (() => Promise.reject(new Error('no digest'))) as never,
    });
    await expect(slowDigest.verify(await signed())).resolves.toMatchObject({ ok: false, reason: 'malformed' });
  });
});
