export { classifyAddress } from './ip-ranges.js';
export type { AddressClass } from './ip-ranges.js';
export { createPushSender, IDEMPOTENCY_KEY_HEADER, PUSH_NOTIFICATION_TOKEN_HEADER, pushConfigSecret } from './push-sender.js';
export { createInMemoryPushOutbox } from './push-outbox.js';
export type { InMemoryPushOutboxOptions, PushOutbox, PushOutboxEntry, PushOutboxLease } from './push-outbox.js';
export type {
  PushDeliveryEvent,
  PushNotifyInput,
  PushSender,
  PushSenderOptions,
  PushSenderStats,
  WebhookSigner,
  WebhookSignerForConfig,
} from './push-sender.js';
export { checkWebhookUrl, createWebhookUrlGuard } from './webhook-url.js';
export type { WebhookUrlCheckResult, WebhookUrlOptions } from './webhook-url.js';
