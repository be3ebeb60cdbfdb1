import { createHmac } from 'node:crypto';
import type { TaskPushNotificationConfig } from '@a2aplane/a2a-types';
import type { WebhookSigner } from './push-types.js';

/**
 * The sender's default signature: `hmac-sha256` of the webhook format of docs/identity.md
 * (`X-A2A-Timestamp`, `X-A2A-Signature` over `<timestamp>.<body>`), keyed per config with the
 * secret its receiver supplied. The same bytes as a2a-identity's `createHmacWebhookSigner`, which
 * this package does not depend on; a test verifies these signatures with a2a-identity's verifier.
 */
function hmacSigner(secret: string): WebhookSigner {
  return {
    algorithm: 'hmac-sha256',
    sign(body, { timestamp }) {
      const mac = createHmac('sha256', secret).update(`${timestamp}.`).update(body).digest('base64url');
      return { 'X-A2A-Timestamp': String(timestamp), 'X-A2A-Signature': `alg=hmac-sha256,sig=${mac}` };
    },
  };
}

/**
 * The secret a push config carries for its receiver: its `token`, else its `authentication`
 * credentials. Key a per-config HMAC signer with it, so no receiver can forge another's notifications.
 */
export function pushConfigSecret(config: TaskPushNotificationConfig): string | undefined {
  if (typeof config?.token === 'string' && config.token !== '') return config.token;
  const credentials = config?.authentication?.credentials;
  return typeof credentials === 'string' && credentials !== '' ? credentials : undefined;
}

/** The default signer of a config: HMAC keyed by its secret; a config without one goes unsigned. */
export function defaultSignerFor(config: TaskPushNotificationConfig): WebhookSigner | undefined {
  const secret = pushConfigSecret(config);
  return secret === undefined ? undefined : hmacSigner(secret);
}
