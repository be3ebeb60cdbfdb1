import { checkWebhookUrl, type WebhookUrlOptions } from '@a2aplane/a2a-server-express';

/** What an outbound fetch of the registry (enrollment, prober) may reach: the push sender's SSRF rules. */
export interface OutboundOptions {
  fetch?: typeof fetch;
  /** Loopback agents (tests, one-machine demos). Default false. */
  allowLoopback?: boolean;
  /** Agents on private networks (10/8, 172.16/12, 192.168/16…). Default false. */
  allowPrivate?: boolean;
  /** Plain http to a non-loopback host. Default false. */
  allowHttp?: boolean;
  /** Host name resolution for the SSRF check (tests). */
  resolve?: WebhookUrlOptions['resolve'];
}

type FetchTextResult =
  | { ok: true; status: number; text: string; contentType: string }
  | { ok: false; kind: 'unsafe' | 'network' | 'too-large'; detail: string };

/** The SSRF verdict on `url` under `options` (scheme, credentials, every resolved address). */
export async function checkOutboundUrl(url: string, options: OutboundOptions): Promise<{ ok: true } | { ok: false; reason: string }> {
  const check = await checkWebhookUrl(url, {
    allowLoopback: options.allowLoopback === true,
    allowPrivate: options.allowPrivate === true,
    allowHttp: options.allowHttp === true,
    ...(options.resolve ? { resolve: options.resolve } : {}),
  });
  return check.ok ? { ok: true } : { ok: false, reason: check.reason };
}

/**
 * One bounded request: SSRF-checked first, redirects refused (a redirect could leave the enrolled
 * origin), a timeout, and at most `maxBytes` of body read. Never throws.
 */
export async function fetchText(
  url: string,
  init: { method?: string; headers?: Record<string, string>; body?: string; timeoutMs: number; maxBytes: number; signal?: AbortSignal },
  options: OutboundOptions,
): Promise<FetchTextResult> {
  const check = await checkOutboundUrl(url, options);
  if (!check.ok) return { ok: false, kind: 'unsafe', detail: check.reason };
  const doFetch = options.fetch ?? globalThis.fetch;
  const timeout = AbortSignal.timeout(init.timeoutMs);
  const signal = init.signal ? AbortSignal.any([init.signal, timeout]) : timeout;
  try {
    const response = await doFetch(url, {
      method: init.method ?? 'GET',
      ...(init.headers ? { headers: init.headers } : {}),
      ...(init.body !== undefined ? { body: init.body } : {}),
      redirect: 'error',
      signal,
    });
    const text = await readLimited(response, init.maxBytes);
    if (text === undefined) return { ok: false, kind: 'too-large', detail: `response larger than ${init.maxBytes} bytes` };
    return { ok: true, status: response.status, text, contentType: response.headers.get('content-type') ?? '' };
  } catch (error) {
    const detail = timeout.aborted ? `no answer within ${init.timeoutMs} ms` : error instanceof Error ? error.message : String(error);
    return { ok: false, kind: 'network', detail };
  }
}

/** The body as UTF-8 text, or `undefined` past `maxBytes` (the rest is not read). */
async function readLimited(response: Response, maxBytes: number): Promise<string | undefined> {
  const declared = Number(response.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > maxBytes) {
    await response.body?.cancel().catch(() => undefined);
    return undefined;
  }
  if (!response.body) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => undefined);
      return undefined;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}
