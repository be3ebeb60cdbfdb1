import { type AuthProvider, oauthClientCredentials } from '@a2aplane/a2a-client';
import { flag, type ParsedArgs, stringValue } from '../args.js';
import { usageError } from '../errors.js';
import type { CliIo } from '../io.js';

export const OAUTH_OPTIONS = {
  'oauth-client-id': { type: 'string' },
  'oauth-client-secret': { type: 'string' },
  'oauth-scope': { type: 'string', multiple: true },
  'oauth-token-url': { type: 'string' },
} as const;

export const OAUTH_HELP = `  --oauth-client-id <id>
                       get a bearer token with the OAuth 2 client-credentials grant from the
                       agent card's oauth2 or openIdConnect scheme (cached, renewed before expiry)
  --oauth-client-secret <s>
                       its secret (default: the A2A_OAUTH_CLIENT_SECRET environment variable,
                       which keeps it out of the process list)
  --oauth-scope <s>    a scope to ask for (repeatable)
  --oauth-token-url <url>
                       the token endpoint, instead of the card's (https; loopback http with
                       --allow-insecure)`;

/** `--oauth-client-id`: a client-credentials token provider; `{}` without it. */
export function oauthOf(command: string, args: ParsedArgs, io: Pick<CliIo, 'env' | 'fetch'>): { auth?: AuthProvider } {
  const clientId = stringValue(args, 'oauth-client-id');
  const others = ['oauth-client-secret', 'oauth-scope', 'oauth-token-url'].filter((name) => args.values[name] !== undefined);
  if (clientId === undefined) {
    if (others.length > 0) throw usageError(`${command}: --${others[0]} needs --oauth-client-id`);
    return {};
  }
  const clientSecret = stringValue(args, 'oauth-client-secret') ?? io.env.A2A_OAUTH_CLIENT_SECRET;
  if (clientSecret === undefined || clientSecret === '') {
    throw usageError(`${command}: --oauth-client-id needs --oauth-client-secret or A2A_OAUTH_CLIENT_SECRET`);
  }
  const tokenUrl = stringValue(args, 'oauth-token-url');
  try {
    return {
      auth: oauthClientCredentials({
        clientId,
        clientSecret,
        scopes: (args.values['oauth-scope'] as string[] | undefined) ?? [],
        allowInsecureLoopback: flag(args, 'allow-insecure'),
        fetch: io.fetch,
        ...(tokenUrl === undefined ? {} : { tokenUrl }),
      }),
    };
  } catch (error) {
    throw usageError(`${command}: ${(error as Error).message}`);
  }
}
