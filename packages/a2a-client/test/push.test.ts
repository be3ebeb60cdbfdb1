import { createHmacWebhookSigner, createWebhookVerifier } from '@a2aplane/a2a-identity';
import { describe, expect, it } from 'vitest';
import { parsePushNotification, type WebhookVerifierLike } from '../src/index.js';

const body = JSON.stringify({ statusUpdate: { taskId: 't-1', contextId: 'c', status: { state: 'TASK_STATE_COMPLETED' } } });

describe('parsePushNotification (spec §4.3.3 push delivery)', () => {
  it('returns the typed StreamResponse when the signature verifies', async () => {
    const verifier: WebhookVerifierLike = { verify: async (_h, b) => ({ valid: b === body }) };
    const result = await parsePushNotification({ 'x-signature': 'sig' }, body, { verifier });
    expect(result).toMatchObject({ ok: true, verified: true, event: { statusUpdate: { taskId: 't-1' } } });
  });

  it('refuses a bad signature without throwing', async () => {
    const verifier: WebhookVerifierLike = { verify: async () => ({ valid: false, reason: 'bad-signature' }) };
    await expect(parsePushNotification(new Headers(), body, { verifier })).resolves.toMatchObject({
      ok: false,
      reason: 'signature-invalid',
      message: 'bad-signature',
    });
  });

  it('a throwing verifier is a refusal, not a crash', async () => {
    const verifier: WebhookVerifierLike = {
      verify: async () => {
        throw new Error('boom');
      },
    };
    await expect(parsePushNotification({}, body, { verifier })).resolves.toMatchObject({ ok: false, reason: 'signature-invalid' });
  });

  it('reports invalid JSON and invalid payloads', async () => {
    await expect(parsePushNotification({}, '{nope')).resolves.toMatchObject({ ok: false, reason: 'invalid-json' });
    await expect(parsePushNotification({}, new TextEncoder().encode('{"task":{}}'))).resolves.toMatchObject({
      ok: false,
      reason: 'invalid-payload',
    });
  });

  it("accepts a2a-identity's synchronous webhook verifier as it is", async () => {
    const signer = createHmacWebhookSigner('shared-secret');
    const verifier = createWebhookVerifier({ hmacSecret: 'shared-secret' });
    const signed = await parsePushNotification(signer.sign(body), body, { verifier });
    expect(signed).toMatchObject({ ok: true, verified: true });
    const forged = await parsePushNotification(createHmacWebhookSigner('wrong').sign(body), body, { verifier });
    expect(forged).toMatchObject({ ok: false, reason: 'signature-invalid' });
  });
});
