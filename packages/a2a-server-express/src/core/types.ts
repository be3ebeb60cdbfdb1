import type { StreamResponse, TaskPushNotificationConfig } from '@a2aplane/a2a-types';

// Defined once, with the authenticator that produces them; tasks belong to the principal
// (and tenant) that created them.
export type { Authenticator, AuthRequest as AuthenticationRequest, Principal } from '../auth/types.js';

export interface RateLimiter {
  take(key: string): { ok: true } | { ok: false; retryAfterSeconds: number };
}

/** Fire-and-forget push delivery with its own retries. */
export interface PushSender {
  notify(input: { config: TaskPushNotificationConfig; payload: StreamResponse; taskId: string }): void;
  close(): Promise<void>;
}

/** Checks a webhook URL when a push config is created (an SSRF guard). */
export type WebhookUrlCheck = (url: string) => Promise<{ ok: true } | { ok: false; reason: string }>;

/** One event of a server stream: `id` is the SSE event id (the event bus's id of the event, opaque). */
export interface StreamEvent {
  id: string;
  data: StreamResponse;
}
