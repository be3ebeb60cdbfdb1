import type { TaskPushNotificationConfig } from '@a2aplane/a2a-types';

/**
 * A push config as Get/List return it: without its secrets (`token`, `authentication.credentials`;
 * A2A#1988). The caller set them and has them; anyone else reading the config (a leaked API key,
 * a log of responses) must not get a way to forge or receive notifications. The scheme stays, so
 * a client can see how the webhook authenticates.
 */
export function redactPushConfig<T extends TaskPushNotificationConfig>(config: T): T {
  const { token: _token, authentication, ...rest } = config;
  if (authentication === undefined) return rest as T;
  const { credentials: _credentials, ...scheme } = authentication;
  return { ...rest, authentication: scheme } as T;
}
