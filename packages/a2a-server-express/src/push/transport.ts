import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIPv6 } from 'node:net';

export interface DeliveryResponse {
  status: number;
  /** The `Retry-After` header, when present. */
  retryAfter?: string;
}

interface DeliveryRequest {
  url: string;
  /** Vetted addresses; the connection goes to one of these, never to a fresh DNS answer. */
  addresses: string[];
  headers: Record<string, string>;
  body: string;
  /** The whole attempt, connection to response status. */
  timeoutMs: number;
  /** Connecting alone (built-in transport); default `timeoutMs`. */
  connectTimeoutMs?: number;
}

const MAX_DRAINED_BYTES = 64 * 1024;

/** Thrown (internally) when a delivery attempt exceeds its time limit. */
export class DeliveryTimeoutError extends Error {
  constructor(timeoutMs: number) {
    super(`timed out after ${timeoutMs} ms`);
    this.name = 'DeliveryTimeoutError';
  }
}

type LookupCallback = (error: Error | null, address: string | { address: string; family: number }[], family?: number) => void;

/**
 * POSTs with node:http(s), pinning the connection to addresses already checked for SSRF while
 * keeping the URL's host name for the Host header and TLS (SNI, certificate check).
 * Redirects are not followed: a 3xx is just a status.
 */
export function nodeDeliver(input: DeliveryRequest): Promise<DeliveryResponse> {
  return new Promise((resolve, reject) => {
    const url = new URL(input.url);
    const pinned = input.addresses.map((address) => ({ address, family: isIPv6(address) ? 6 : 4 }));
    const lookup = (_hostname: string, options: { all?: boolean }, callback: LookupCallback) => {
      if (options?.all) callback(null, pinned);
      else callback(null, pinned[0]?.address ?? '', pinned[0]?.family ?? 4);
    };
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const req = send(
      url,
      {
        method: 'POST',
        headers: { ...input.headers, 'content-length': String(Buffer.byteLength(input.body)) },
        lookup: lookup as never,
        timeout: input.timeoutMs,
        // A fresh connection per attempt: a pooled socket would skip the address pinning above.
        agent: false,
      },
      (res) => {
        // The body does not matter: read a little (so small replies finish cleanly), then hang up.
        let seen = 0;
        res.on('data', (chunk: Buffer) => {
          seen += chunk.length;
          if (seen > MAX_DRAINED_BYTES) res.destroy();
        });
        res.on('error', () => undefined);
        const retryAfter = res.headers['retry-after'];
        clearTimeout(deadline);
        clearTimeout(connectDeadline);
        resolve({ status: res.statusCode ?? 0, ...(typeof retryAfter === 'string' ? { retryAfter } : {}) });
      },
    );
    // A total deadline besides the socket idle timeout, so a slow trickle cannot hold a slot.
    const deadline = setTimeout(() => req.destroy(new DeliveryTimeoutError(input.timeoutMs)), input.timeoutMs);
    // A receiver that does not even accept the connection is given up on sooner.
    const connectLimit = Math.min(input.connectTimeoutMs ?? input.timeoutMs, input.timeoutMs);
    const connectDeadline = setTimeout(() => req.destroy(new DeliveryTimeoutError(connectLimit)), connectLimit);
    req.once('socket', (socket) => {
      if (!socket.connecting) clearTimeout(connectDeadline);
      else socket.once('connect', () => clearTimeout(connectDeadline));
    });
    req.on('timeout', () => req.destroy(new DeliveryTimeoutError(input.timeoutMs)));
    req.on('error', (error) => {
      clearTimeout(deadline);
      clearTimeout(connectDeadline);
      reject(error);
    });
    req.end(input.body);
  });
}

/** Delivery through a caller-supplied `fetch` (no address pinning: the fetch implementation resolves DNS itself). */
export async function fetchDeliver(fetchImpl: typeof fetch, input: DeliveryRequest): Promise<DeliveryResponse> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new DeliveryTimeoutError(input.timeoutMs)), input.timeoutMs);
  try {
    const response = await fetchImpl(input.url, {
      method: 'POST',
      headers: input.headers,
      body: input.body,
      redirect: 'manual',
      signal: controller.signal,
    });
    await response.body?.cancel().catch(() => undefined);
    const retryAfter = response.headers.get('retry-after');
    return { status: response.status, ...(retryAfter ? { retryAfter } : {}) };
  } catch (error) {
    if (controller.signal.aborted) throw new DeliveryTimeoutError(input.timeoutMs);
    throw error;
  } finally {
    clearTimeout(timer);
  }
}
