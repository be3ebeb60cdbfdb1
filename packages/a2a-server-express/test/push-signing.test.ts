import {
  createEd25519WebhookSigner,
  createHmacWebhookSigner,
  createWebhookVerifier,
  generateKeyPair,
  type WebhookSigner as IdentityWebhookSigner,
} from '@a2aplane/a2a-identity';
import type { StreamResponse } from '@a2aplane/a2a-types';
import { afterEach, describe, expect, it } from 'vitest';
import { createPushSender, type PushDeliveryEvent, pushConfigSecret, type WebhookSigner } from '../src/push/index.js';
import { type Receiver, startReceiver } from './push-receiver.js';

// Compile-time check: the signers of a2a-identity fit the sender's local signer type.
const fits: (signer: IdentityWebhookSigner) => WebhookSigner = (signer) => signer;
void fits;

const payload: StreamResponse = {
  statusUpdate: { taskId: 'task-9', contextId: 'ctx-9', status: { state: 'TASK_STATE_COMPLETED' } },
};

let receiver: Receiver | undefined;
afterEach(async () => {
  await receiver?.close();
  receiver = undefined;
});

async function deliverSigned(signer: WebhookSigner, replies: { status: number }[] = []) {
  receiver = await startReceiver(replies);
  const events: PushDeliveryEvent[] = [];
  const sender = createPushSender({
    signer,
    ssrf: { allowLoopback: true, allowHttp: true },
    onEvent: (event) => events.push(event),
    sleep: async () => undefined,
  });
  sender.notify({ config: { id: 'c', url: receiver.url }, payload, taskId: 'task-9' });
  await sender.flush();
  return { receiver, events };
}

describe('push sender with @a2aplane/a2a-identity signers (ADR-159 M4 push_signing, push_ed25519)', () => {
  it('HMAC-SHA256 (default algorithm): the receiver verifies the signature over the exact body', async () => {
    const { receiver, events } = await deliverSigned(createHmacWebhookSigner('whsec-test-secret'));
    expect(events.map((e) => e.type)).toEqual(['delivered']);
    const [request] = receiver.requests;
    const verifier = createWebhookVerifier({ hmacSecret: 'whsec-test-secret' });
    expect(verifier.verify(request?.headers ?? {}, request?.body ?? '')).toMatchObject({ ok: true, algorithm: 'hmac-sha256' });
    // A different secret or a changed body does not verify.
    expect(createWebhookVerifier({ hmacSecret: 'other' }).verify(request?.headers ?? {}, request?.body ?? '').ok).toBe(false);
    expect(verifier.verify(request?.headers ?? {}, `${request?.body} `).ok).toBe(false);
  });

  it('Ed25519 (opt-in): the receiver verifies with the public key', async () => {
    const keys = generateKeyPair('EdDSA');
    const { receiver, events } = await deliverSigned(createEd25519WebhookSigner(keys));
    expect(events.map((e) => e.type)).toEqual(['delivered']);
    const [request] = receiver.requests;
    const verifier = createWebhookVerifier({ ed25519PublicKey: keys.publicKey });
    expect(verifier.verify(request?.headers ?? {}, request?.body ?? '')).toMatchObject({ ok: true, algorithm: 'ed25519' });
    const stranger = generateKeyPair('EdDSA');
    expect(createWebhookVerifier({ ed25519PublicKey: stranger.publicKey }).verify(request?.headers ?? {}, request?.body ?? '').ok).toBe(
      false,
    );
  });

  it('every retry carries a fresh, valid signature and the same Idempotency-Key', async () => {
    const { receiver, events } = await deliverSigned(createHmacWebhookSigner('s'), [{ status: 503 }, { status: 200 }]);
    expect(events.map((e) => e.type)).toEqual(['retrying', 'delivered']);
    const verifier = createWebhookVerifier({ hmacSecret: 's' });
    for (const request of receiver.requests) expect(verifier.verify(request.headers, request.body).ok).toBe(true);
    expect(new Set(receiver.requests.map((r) => r.headers['idempotency-key'])).size).toBe(1);
  });
});

describe('per-registration webhook secrets (issue 15 item 5)', () => {
  it("HMAC keyed by each push config's own token: a receiver cannot verify (or forge) another's notifications", async () => {
    const alice = await startReceiver();
    const bob = await startReceiver();
    try {
      const sender = createPushSender({
        signer: (config) => {
          const secret = pushConfigSecret(config);
          return secret === undefined ? undefined : createHmacWebhookSigner(secret);
        },
        ssrf: { allowLoopback: true, allowHttp: true },
        sleep: async () => undefined,
      });
      sender.notify({ config: { id: 'a', url: alice.url, token: 'alice-secret' }, payload, taskId: 'task-9' });
      sender.notify({
        config: { id: 'b', url: bob.url, authentication: { scheme: 'Bearer', credentials: 'bob-secret' } },
        payload,
        taskId: 'task-9',
      });
      sender.notify({ config: { id: 'c', url: bob.url }, payload, taskId: 'task-9' });
      await sender.flush();
      const [toAlice] = alice.requests;
      // Two lanes to one receiver run side by side: tell the deliveries apart by their headers.
      const toBob = bob.requests.find((r) => r.headers.authorization !== undefined);
      const unsigned = bob.requests.find((r) => r.headers.authorization === undefined);
      expect(bob.requests).toHaveLength(2);
      const verify = (secret: string, request: typeof toAlice) =>
        createWebhookVerifier({ hmacSecret: secret }).verify(request?.headers ?? {}, request?.body ?? '').ok;
      expect(verify('alice-secret', toAlice)).toBe(true);
      expect(verify('bob-secret', toAlice)).toBe(false);
      expect(verify('bob-secret', toBob)).toBe(true);
      expect(verify('alice-secret', toBob)).toBe(false);
      // A config with no secret of its own is sent unsigned, never with someone else's key.
      expect(unsigned?.headers['x-a2a-signature']).toBeUndefined();
    } finally {
      await alice.close();
      await bob.close();
    }
  });

  it('pushConfigSecret: the token first, then the authentication credentials', () => {
    expect(pushConfigSecret({ url: 'https://h', token: 't', authentication: { scheme: 'Bearer', credentials: 'c' } })).toBe('t');
    expect(pushConfigSecret({ url: 'https://h', authentication: { scheme: 'Bearer', credentials: 'c' } })).toBe('c');
    expect(pushConfigSecret({ url: 'https://h' })).toBeUndefined();
  });
});
