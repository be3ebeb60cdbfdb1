import type { PublicJwk } from '@a2aplane/a2a-identity/verify';
import { authFor } from '../../lib/auth.js';
import { type Inspection, inspectAgent } from '../../lib/inspect.js';
import { runtime } from '../../lib/runtime.js';
import { type ConsoleScheme, schemesOf } from '../../lib/schemes.js';
import { credentialStore, type StoredCredential } from '../../lib/secrets.js';
import { interfaceOrigins } from '../../lib/session.js';
import type { ConnectRequest } from './connect-bar.js';

/** The pinned keys typed in: one JWK, a JWKS, or nothing. */
export function readPinnedKeys(text: string): PublicJwk[] {
  if (!text.trim()) return [];
  const parsed = JSON.parse(text) as { keys?: PublicJwk[] } & PublicJwk;
  return Array.isArray(parsed.keys) ? parsed.keys : [parsed];
}

/** Sets which header and query names hold this agent's secret (redacted in the raw log). */
export function noteSecretNames(schemes: ConsoleScheme[]): void {
  runtime.state.secretHeaders = new Set(
    schemes.flatMap((s) => (s.kind === 'apiKey' && s.location === 'header' ? [s.param.toLowerCase()] : [])),
  );
  runtime.state.secretParams = new Set(schemes.flatMap((s) => (s.kind === 'apiKey' && s.location === 'query' ? [s.param] : [])));
}

export interface OpenedAgent {
  inspection: Inspection;
  schemes: ConsoleScheme[];
  origin: string;
  credential: StoredCredential | undefined;
  /** Origins the relay refused (the SSRF rules): reachable directly only. */
  relayRefused: { url: string; reason: string }[];
}

/**
 * Opens an agent: lets the relay reach what the user entered, discovers and verifies the card
 * (with the stored credential, bound to the entered origin), then lets the relay reach the card's
 * interfaces too.
 */
export async function openAgent(request: ConnectRequest): Promise<OpenedAgent> {
  runtime.state.mode = request.mode;
  const origin = new URL(request.url).origin;
  const relayRefused: OpenedAgent['relayRefused'] = [];
  const allow = async (urls: string[]) => {
    try {
      relayRefused.push(...(await runtime.allowRelay(urls)).refused);
    } catch (error) {
      relayRefused.push(...urls.map((url) => ({ url, reason: (error as Error).message })));
    }
  };
  await allow([request.url]);
  const credential = credentialStore.load(origin);
  const inspection = await inspectAgent(request.url, {
    fetch: runtime.fetch,
    allowInsecureLoopback: request.allowInsecureLoopback,
    pinnedKeys: readPinnedKeys(request.pinnedKey),
  });
  const others = interfaceOrigins(inspection.discovered.card).filter((o) => o !== origin);
  if (others.length > 0) await allow(others.map((o) => `${o}/`));
  const schemes = schemesOf(inspection.discovered.card, inspection.raw);
  noteSecretNames(schemes);
  return { inspection, schemes, origin, credential, relayRefused };
}

/** The auth provider for the opened agent and credential (bound to the entered origin). */
export function authForOpened(agent: OpenedAgent, credential: StoredCredential | undefined, allowInsecureLoopback: boolean) {
  const scheme = agent.schemes.find((s) => s.name === credential?.scheme);
  return authFor(scheme, credential, new Set([agent.origin]), runtime.fetch, allowInsecureLoopback);
}
