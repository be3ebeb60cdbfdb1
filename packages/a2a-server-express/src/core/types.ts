import type { StreamResponse, TaskPushNotificationConfig } from '@a2aplane/a2a-types';

/** Who made a request. Tasks belong to the principal (and tenant) that created them. */
export interface Principal {
  id: string;
  scheme: string;
  claims?: Record<string, unknown>;
}

/** What an authenticator sees of a request: binding-neutral. */
export interface AuthenticationRequest {
  headers: Record<string, string | undefined>;
  query: URLSearchParams;
  method: string;
}

/** Resolves `undefined` for an anonymous caller; rejects with `UnauthenticatedError` for bad credentials. */
export type Authenticator = (request: AuthenticationRequest) => Promise<Principal | undefined>;

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

/** One event of a server stream: `id` is the SSE event id (the per-task sequence number). */
export interface StreamEvent {
  id: string;
  data: StreamResponse;
}
