import {
  A2A_PROTOCOL_VERSION,
  A2AError,
  ExtensionSupportRequiredError,
  RateLimitedError,
  splitExtensionList,
  UnauthenticatedError,
  VersionNotSupportedError,
} from '@a2aplane/a2a-types';
import { cardAuthorities } from '../auth/http-signature.js';
import { trackActivations } from './extension-activation.js';
import type { CoreRequest, Principal, RateLimitVerdict } from './types.js';
import type { ServerContext } from './server-context.js';

export interface Caller {
  principal: Principal | undefined;
  owner: string;
  version: string;
  extensions: string[];
}

export { toA2AError } from './to-a2a-error.js';

/** `A2A-Version` negotiation (spec §3.6.2): missing means 0.3; `1.0`, `1` and `0.3` are served. */
export function negotiateVersion(raw: string | undefined): { ok: true; version: string } | { ok: false; error: A2AError } {
  const value = raw?.trim();
  if (value === undefined || value === '') return { ok: true, version: '0.3' };
  if (value === '1.0' || value === '1') return { ok: true, version: A2A_PROTOCOL_VERSION };
  if (value === '0.3') return { ok: true, version: '0.3' };
  return {
    ok: false,
    error: new VersionNotSupportedError({
      message: `A2A-Version ${value.slice(0, 16)} is not supported; supported: ${A2A_PROTOCOL_VERSION}, 0.3`,
      metadata: { supportedVersions: `${A2A_PROTOCOL_VERSION},0.3` },
    }),
  };
}

/** Authenticates, rate-limits and negotiates the caller of a request; the in-process caller of `stream`/`cancel`. */
export function createCallerResolver(ctx: ServerContext) {
  const { options, card } = ctx;
  const requiredExtensions = (card.capabilities.extensions ?? []).filter((e) => e.required && e.uri).map((e) => e.uri as string);
  // The names this server is reached by: signed requests made for another server are refused.
  const authContext = { authorities: cardAuthorities(card) };

  async function resolveCaller(request: CoreRequest): Promise<Caller> {
    const negotiated = negotiateVersion(request.version);
    if (!negotiated.ok) throw negotiated.error;
    const checkVerdict = (verdict: RateLimitVerdict): void => {
      if (!verdict.ok) throw new RateLimitedError({ retryAfterSeconds: verdict.retryAfterSeconds });
    };
    // Awaited only when the limiter is shared (answers with a promise): the in-process path stays synchronous.
    const takeToken = (key: string): Promise<void> | undefined => {
      const verdict = options.rateLimiter?.take(key);
      if (verdict instanceof Promise) return verdict.then(checkVerdict);
      if (verdict) checkVerdict(verdict);
      return undefined;
    };
    const clientKey = `client:${request.clientKey ?? 'anonymous'}`;
    let principal = request.principal;
    if (!principal && options.authenticate && request.auth) {
      try {
        principal = await options.authenticate(request.auth, authContext);
      } catch (error) {
        // Failed logins spend the client's tokens, so credentials cannot be guessed at full speed.
        await takeToken(clientKey);
        throw A2AError.isInstance(error) ? error : new UnauthenticatedError();
      }
    }
    const pending = takeToken(principal ? `principal:${principal.id}` : clientKey);
    if (pending) await pending;
    const extensions = splitExtensionList(request.extensions);
    const missing = requiredExtensions.filter((uri) => !extensions.includes(uri));
    if (missing.length > 0) {
      throw new ExtensionSupportRequiredError({
        message: `This agent requires the extension(s): ${missing.join(', ')}`,
        metadata: { extensions: missing.join(',') },
      });
    }
    trackActivations(request, extensions);
    return { principal, owner: principal?.id ?? '', version: negotiated.version, extensions };
  }

  /** The caller of an in-process call (`stream`, `cancel`). */
  const inProcessCaller = (principal: Principal | undefined): Caller => ({
    principal,
    owner: principal?.id ?? '',
    version: A2A_PROTOCOL_VERSION,
    extensions: [],
  });

  return { resolveCaller, inProcessCaller };
}
