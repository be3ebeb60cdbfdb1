import { type AuthProvider, apiKeyAuth, bearerAuth, type FetchLike, oauthClientCredentials } from '@a2aplane/a2a-client';
import type { ConsoleScheme } from './schemes.js';
import type { StoredCredential } from './secrets.js';

/**
 * `provider` limited to requests for `origins` (the agent the credential was typed for): a card
 * whose interfaces point elsewhere gets its calls sent there without the secret.
 */
export function boundToOrigins(provider: AuthProvider, origins: ReadonlySet<string>): AuthProvider {
  const bound: AuthProvider = {
    apply(request) {
      if (origins.has(request.url.origin)) return provider.apply(request);
    },
  };
  if (provider.onUnauthorized) bound.onUnauthorized = () => provider.onUnauthorized?.() ?? false;
  if (provider.forPeer) bound.forPeer = (peer) => boundToOrigins(provider.forPeer?.(peer) ?? provider, origins);
  return bound;
}

/** The client's auth provider for the chosen scheme and what the user typed; undefined when nothing applies. */
export function authFor(
  scheme: ConsoleScheme | undefined,
  credential: StoredCredential | undefined,
  origins: ReadonlySet<string>,
  fetch: FetchLike,
  allowInsecureLoopback = false,
): AuthProvider | undefined {
  if (!scheme || !credential) return undefined;
  let provider: AuthProvider;
  switch (scheme.kind) {
    case 'apiKey':
      if (!credential.value) return undefined;
      provider = apiKeyAuth({ name: scheme.param, location: scheme.location, value: credential.value });
      break;
    case 'bearer': {
      const token = credential.value;
      if (!token) return undefined;
      provider = bearerAuth({ getToken: () => token });
      break;
    }
    case 'oauth2':
      if (!credential.clientId || credential.clientSecret === undefined) return undefined;
      provider = oauthClientCredentials({
        clientId: credential.clientId,
        clientSecret: credential.clientSecret,
        scopes: scheme.scopes,
        schemeName: scheme.name,
        ...(scheme.tokenUrl ? { tokenUrl: scheme.tokenUrl } : {}),
        allowInsecureLoopback,
        fetch: fetch as typeof globalThis.fetch,
      });
      break;
    default:
      return undefined;
  }
  return boundToOrigins(provider, origins);
}
