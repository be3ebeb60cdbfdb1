import { parseStreamResponse, type StreamResponse } from '@a2aplane/a2a-types';

/** Structurally a2a-identity's `createWebhookVerifier(...)`: checks a webhook's signature headers. */
/** A verifier's verdict: a2a-identity's `createWebhookVerifier` returns the `ok` form. */
type WebhookCheck = { valid: boolean; reason?: string; [key: string]: unknown } | { ok: boolean; reason?: string; [key: string]: unknown };

export interface WebhookVerifierLike {
  verify(headers: Headers | Record<string, string | string[] | undefined>, body: string | Uint8Array): WebhookCheck | Promise<WebhookCheck>;
}

export type PushNotificationResult =
  | { ok: true; event: StreamResponse; verified: boolean }
  | { ok: false; reason: 'signature-invalid' | 'invalid-json' | 'invalid-payload'; message: string; detail?: unknown };

export interface ParsePushNotificationOptions {
  /** When given, the signature must verify or the notification is refused. */
  verifier?: WebhookVerifierLike;
}

/**
 * Reads a push notification delivered to a webhook (spec §4.3.3): verifies its signature through
 * the injected verifier, then parses the StreamResponse payload. Never throws.
 */
export async function parsePushNotification(
  headers: Headers | Record<string, string | string[] | undefined>,
  body: string | Uint8Array,
  options: ParsePushNotificationOptions = {},
): Promise<PushNotificationResult> {
  if (options.verifier) {
    let outcome: Record<string, unknown>;
    try {
      outcome = (await options.verifier.verify(headers, body)) as Record<string, unknown>;
    } catch (error) {
      return { ok: false, reason: 'signature-invalid', message: 'Webhook verifier failed', detail: error };
    }
    const valid = outcome.valid === true || outcome.ok === true;
    if (!valid) {
      const reason = typeof outcome.reason === 'string' ? outcome.reason : 'signature did not verify';
      return { ok: false, reason: 'signature-invalid', message: reason, detail: outcome };
    }
  }
  const text = typeof body === 'string' ? body : new TextDecoder().decode(body);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { ok: false, reason: 'invalid-json', message: 'Push notification body is not valid JSON' };
  }
  const parsed = parseStreamResponse(json);
  if (!parsed.success) {
    return { ok: false, reason: 'invalid-payload', message: parsed.error.message, detail: parsed.error.violations };
  }
  return { ok: true, event: parsed.data, verified: options.verifier !== undefined };
}
