import { describe, expect, it } from 'vitest';
import {
  createEd25519WebhookSigner,
  createHmacWebhookSigner,
  createWebhookVerifier,
  generateKeyPair,
  type WebhookSigner,
  WEBHOOK_SIGNATURE_HEADER,
  WEBHOOK_TIMESTAMP_HEADER,
} from '../src/index.js';

const NOW = 1_767_225_600; // fixed clock, Unix seconds
const clock = () => NOW * 1000;
const body = JSON.stringify({ statusUpdate: { taskId: 't1', status: { state: 'TASK_STATE_COMPLETED' } } });
const key = generateKeyPair('EdDSA');

const setups: Array<
  [string, () => WebhookSigner, () => ReturnType<typeof createWebhookVerifier>, () => ReturnType<typeof createWebhookVerifier>]
> = [
  [
    'hmac-sha256',
    () => createHmacWebhookSigner('s3cret'),
    () => createWebhookVerifier({ hmacSecret: 's3cret', clock }),
    () => createWebhookVerifier({ hmacSecret: 'other', clock }),
  ],
  [
    'ed25519',
    () => createEd25519WebhookSigner(key),
    () => createWebhookVerifier({ ed25519PublicKey: key.publicKey, clock }),
    () => createWebhookVerifier({ ed25519PublicKey: generateKeyPair('EdDSA').publicKey, clock }),
  ],
];

describe.each(setups)('webhook signatures (%s)', (algorithm, signer, verifier, wrongVerifier) => {
  it('valid signature -> ok', () => {
    const headers = signer().sign(body, { timestamp: NOW });
    expect(headers[WEBHOOK_TIMESTAMP_HEADER]).toBe(String(NOW));
    expect(headers[WEBHOOK_SIGNATURE_HEADER]).toMatch(new RegExp(`^alg=${algorithm},(kid=[0-9a-f]{64},)?sig=[A-Za-z0-9_-]+$`));
    expect(verifier().verify(headers, body)).toEqual({ ok: true, algorithm, timestamp: NOW });
  });

  it('works with a Headers object, lower-case names and byte bodies', () => {
    const signed = signer().sign(new TextEncoder().encode(body), { timestamp: NOW });
    expect(verifier().verify(new Headers(signed), body).ok).toBe(true);
    const lower = Object.fromEntries(Object.entries(signed).map(([k, v]) => [k.toLowerCase(), [v]]));
    expect(verifier().verify(lower, new TextEncoder().encode(body)).ok).toBe(true);
  });

  it('wrong secret / key -> bad-signature', () => {
    expect(wrongVerifier().verify(signer().sign(body, { timestamp: NOW }), body)).toEqual({ ok: false, reason: 'bad-signature' });
  });

  it('modified body -> bad-signature', () => {
    expect(verifier().verify(signer().sign(body, { timestamp: NOW }), body.replace('t1', 't2'))).toEqual({
      ok: false,
      reason: 'bad-signature',
    });
  });

  it('timestamp swapped to a fresh one -> bad-signature (the timestamp is signed)', () => {
    const headers = signer().sign(body, { timestamp: NOW - 1000 });
    expect(verifier().verify({ ...headers, [WEBHOOK_TIMESTAMP_HEADER]: String(NOW) }, body)).toEqual({
      ok: false,
      reason: 'bad-signature',
    });
  });

  it('replayed outside the window -> expired; inside -> ok', () => {
    expect(verifier().verify(signer().sign(body, { timestamp: NOW - 301 }), body)).toEqual({ ok: false, reason: 'expired' });
    expect(verifier().verify(signer().sign(body, { timestamp: NOW - 300 }), body).ok).toBe(true);
  });

  it('future timestamp -> future-timestamp', () => {
    expect(verifier().verify(signer().sign(body, { timestamp: NOW + 301 }), body)).toEqual({ ok: false, reason: 'future-timestamp' });
  });
});

describe('webhook verifier — malformed input never throws', () => {
  const verifier = createWebhookVerifier({ hmacSecret: 's3cret', clock });
  const good = createHmacWebhookSigner('s3cret').sign(body, { timestamp: NOW });
  it.each([
    ['no headers', {}, 'missing-signature'],
    ['no timestamp', { [WEBHOOK_SIGNATURE_HEADER]: good[WEBHOOK_SIGNATURE_HEADER] }, 'malformed'],
    ['timestamp not a number', { ...good, [WEBHOOK_TIMESTAMP_HEADER]: '1e9' }, 'malformed'],
    ['no alg', { ...good, [WEBHOOK_SIGNATURE_HEADER]: 'sig=abc' }, 'malformed'],
    ['garbage', { ...good, [WEBHOOK_SIGNATURE_HEADER]: 'garbage' }, 'malformed'],
    ['duplicate field', { ...good, [WEBHOOK_SIGNATURE_HEADER]: `${good[WEBHOOK_SIGNATURE_HEADER]},alg=hmac-sha256` }, 'malformed'],
    ['bad base64url', { ...good, [WEBHOOK_SIGNATURE_HEADER]: 'alg=hmac-sha256,sig=a+b/' }, 'malformed'],
    [
      'two signature headers',
      { ...good, [WEBHOOK_SIGNATURE_HEADER]: [good[WEBHOOK_SIGNATURE_HEADER]!, good[WEBHOOK_SIGNATURE_HEADER]!] },
      'malformed',
    ],
    ['unknown alg', { ...good, [WEBHOOK_SIGNATURE_HEADER]: 'alg=hmac-sha1,sig=AAAA' }, 'unsupported-algorithm'],
    ['ed25519 when only HMAC is configured', { ...good, [WEBHOOK_SIGNATURE_HEADER]: 'alg=ed25519,sig=AAAA' }, 'unsupported-algorithm'],
    ['truncated MAC', { ...good, [WEBHOOK_SIGNATURE_HEADER]: good[WEBHOOK_SIGNATURE_HEADER]!.slice(0, -3) }, 'bad-signature'],
  ] as const)('%s -> %j', (_name, headers, reason) => {
    expect(verifier.verify(headers as Record<string, string | string[]>, body)).toEqual({ ok: false, reason });
  });

  it('non-object headers / body -> malformed', () => {
    expect(verifier.verify(null as never, body)).toEqual({ ok: false, reason: 'malformed' });
    expect(verifier.verify(good, 42 as never)).toEqual({ ok: false, reason: 'malformed' });
  });

  it('configuration errors throw for the programmer', () => {
    expect(() => createWebhookVerifier({})).toThrow(TypeError);
    expect(() => createWebhookVerifier({ ed25519PublicKey: new Uint8Array(3) })).toThrow(TypeError);
    expect(() => createWebhookVerifier({ hmacSecret: 'x', toleranceSeconds: -1 })).toThrow(RangeError);
    expect(() => createHmacWebhookSigner('')).toThrow(TypeError);
    expect(() => createEd25519WebhookSigner(generateKeyPair('ES256'))).toThrow(TypeError);
    expect(() => createHmacWebhookSigner('x').sign(body, { timestamp: 1.5 })).toThrow(RangeError);
  });

  it('one verifier can accept both algorithms', () => {
    const both = createWebhookVerifier({ hmacSecret: 's3cret', ed25519PublicKey: key, clock });
    expect(both.verify(good, body)).toMatchObject({ ok: true, algorithm: 'hmac-sha256' });
    expect(both.verify(createEd25519WebhookSigner(key).sign(body, { timestamp: NOW }), body)).toMatchObject({
      ok: true,
      algorithm: 'ed25519',
    });
  });

  it('HMAC vector: HMAC-SHA256("s3cret", "1767225600.{}") in base64url', () => {
    // Derived independently: node -e 'console.log(require("node:crypto").createHmac("sha256","s3cret").update("1767225600.{}").digest("base64url"))'
    const headers = createHmacWebhookSigner('s3cret').sign('{}', { timestamp: NOW });
    expect(headers[WEBHOOK_SIGNATURE_HEADER]).toBe(`alg=hmac-sha256,sig=${HMAC_VECTOR}`);
  });
});

const HMAC_VECTOR = 'Ke4FV4_vIXiOJdAO4ycN-SqeRUofuCvCwi0iaccpiSs';
