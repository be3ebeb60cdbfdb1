import { resolveHost } from '../net/resolve-host.js';
import { type AddressClass, classifyAddress } from './ip-ranges.js';

export interface WebhookUrlOptions {
  /** Allow 127.0.0.0/8, ::1 and `localhost` (tests, sidecars). */
  allowLoopback?: boolean;
  /** Allow 10/8, 172.16/12, 192.168/16, 100.64/10 and fc00::/7. */
  allowPrivate?: boolean;
  /** Allow plain `http:` to any allowed host (by default only to loopback when `allowLoopback`). */
  allowHttp?: boolean;
  /** Resolves a host name to IP literals; defaults to `node:dns` lookup of all addresses. */
  resolve?: (hostname: string) => Promise<string[]>;
  /** A host that has not resolved by then is refused (the check runs on the request path). Default 2000 ms. */
  resolveTimeoutMs?: number;
}

export type WebhookUrlCheckResult = { ok: true; addresses: string[] } | { ok: false; reason: string };

/** Host names that must never be reached whatever they resolve to. */
const METADATA_HOSTS = new Set(['metadata.google.internal', 'metadata', 'instance-data', 'instance-data.ec2.internal']);

function refusal(kind: AddressClass, address: string): string {
  return `${kind} address ${address} is not allowed`;
}

/**
 * Checks a push-notification URL against SSRF (spec §13.2): scheme, embedded credentials,
 * and every address the host resolves to. A host with one bad address is refused as a whole,
 * since DNS may hand out any of them. Returns the vetted addresses so the caller can connect
 * to exactly those (closing the DNS-rebinding window).
 */
export async function checkWebhookUrl(url: string, options: WebhookUrlOptions = {}): Promise<WebhookUrlCheckResult> {
  if (typeof url !== 'string') return { ok: false, reason: 'URL must be a string' };
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { ok: false, reason: 'URL is not a valid absolute URL' };
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') {
    return { ok: false, reason: `scheme ${parsed.protocol.replace(/:$/, '')} is not allowed (expected https)` };
  }
  if (parsed.username !== '' || parsed.password !== '') {
    return { ok: false, reason: 'credentials in the URL are not allowed' };
  }
  const hostname = parsed.hostname.toLowerCase().replace(/\.$/, '');
  if (hostname === '') return { ok: false, reason: 'URL has no host' };
  if (METADATA_HOSTS.has(hostname)) return { ok: false, reason: `metadata host ${hostname} is not allowed` };

  let addresses: string[];
  const literal = hostname.startsWith('[') ? hostname.slice(1, -1) : hostname;
  if (classifyAddress(literal) !== 'invalid') {
    addresses = [literal];
  } else if (hostname === 'localhost' || hostname.endsWith('.localhost')) {
    // RFC 6761: localhost names are loopback whatever a resolver says.
    if (!options.allowLoopback) return { ok: false, reason: `loopback host ${hostname} is not allowed` };
    addresses = options.resolve ? await safeResolve(options.resolve, hostname, options.resolveTimeoutMs) : ['127.0.0.1', '::1'];
    if (addresses.length === 0) return { ok: false, reason: `host ${hostname} did not resolve` };
  } else {
    addresses = await safeResolve(options.resolve ?? resolveHost, hostname, options.resolveTimeoutMs);
    if (addresses.length === 0) return { ok: false, reason: `host ${hostname} did not resolve` };
  }

  let allLoopback = true;
  for (const address of addresses) {
    const kind = classifyAddress(address);
    if (kind !== 'loopback') allLoopback = false;
    if (kind === 'public') continue;
    if (kind === 'loopback' && options.allowLoopback) continue;
    if (kind === 'private' && options.allowPrivate) continue;
    return { ok: false, reason: kind === 'invalid' ? `resolver returned a non-IP value` : refusal(kind, address) };
  }
  if (parsed.protocol === 'http:' && !options.allowHttp && !(allLoopback && options.allowLoopback)) {
    return { ok: false, reason: 'plain http is not allowed (expected https)' };
  }
  return { ok: true, addresses };
}

/** A resolver's answer, or none: on failure, on a non-array, or when it takes longer than `timeoutMs`. */
async function safeResolve(resolve: (hostname: string) => Promise<string[]>, hostname: string, timeoutMs = 2000): Promise<string[]> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('DNS lookup timed out')), timeoutMs);
    timer.unref?.();
  });
  try {
    const result = await Promise.race([resolve(hostname), timedOut]);
    return Array.isArray(result) ? result.filter((entry): entry is string => typeof entry === 'string') : [];
  } catch {
    return [];
  } finally {
    clearTimeout(timer);
  }
}

/**
 * `checkWebhookUrl` with fixed options, in the shape `createA2AServer({ checkWebhookUrl })` takes:
 * the server refuses a push config at creation time, the sender checks again at every delivery.
 */
export function createWebhookUrlGuard(options: WebhookUrlOptions = {}): (url: string) => Promise<WebhookUrlCheckResult> {
  return (url) => checkWebhookUrl(url, options);
}
