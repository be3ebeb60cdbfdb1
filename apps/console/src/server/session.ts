import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

/** The header the UI sends its session token in (a custom header: cross-origin pages must preflight, and get no CORS answer). */
export const TOKEN_HEADER = 'x-a2a-console-token';

export function newSessionToken(): string {
  return randomBytes(24).toString('base64url');
}

/** Constant-time check of the request's token header. */
export function hasSessionToken(req: IncomingMessage, token: string): boolean {
  const given = req.headers[TOKEN_HEADER];
  if (typeof given !== 'string') return false;
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * Whether the Host header names the console itself (loopback names or the bound host): a page of
 * another site that rebinds its DNS name to 127.0.0.1 sends its own name and is refused.
 */
export function isOwnHost(req: IncomingMessage, boundHost: string): boolean {
  const host = req.headers.host;
  if (typeof host !== 'string') return false;
  let hostname: string;
  try {
    hostname = new URL(`http://${host}`).hostname;
  } catch {
    return false;
  }
  return hostname === '127.0.0.1' || hostname === 'localhost' || hostname === '[::1]' || hostname === boundHost;
}
