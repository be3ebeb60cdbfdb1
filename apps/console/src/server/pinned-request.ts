import { request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIPv6 } from 'node:net';
import { sendError } from './http-helpers.js';

interface PinnedCall {
  url: string;
  method: string;
  headers: Record<string, string>;
  body: Buffer | undefined;
  /** Addresses vetted by the SSRF check: the connection goes to one of these, never a fresh DNS answer. */
  addresses: string[];
  timeoutMs: number;
  idleTimeoutMs: number;
  maxResponseBytes: number;
}

type LookupCallback = (error: Error | null, address: string | { address: string; family: number }[], family?: number) => void;

/**
 * Sends one call to the agent over node:http(s), pinned to vetted addresses (the URL's host name
 * stays for Host and TLS), and pipes the answer into `res`: status, the `passBack` headers, the body
 * up to `maxResponseBytes`. A redirect is answered 502, not followed. `open` holds a cutter while
 * the call runs (server shutdown).
 */
export function pinnedRequest(call: PinnedCall, res: ServerResponse, passBack: readonly string[], open: Set<() => void>): Promise<void> {
  return new Promise((resolve) => {
    const url = new URL(call.url);
    const pinned = call.addresses.map((address) => ({ address, family: isIPv6(address) ? 6 : 4 }));
    const lookup = (_hostname: string, options: { all?: boolean }, callback: LookupCallback) => {
      if (options?.all) callback(null, pinned);
      else callback(null, pinned[0]?.address ?? '', pinned[0]?.family ?? 4);
    };
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    let upstream: IncomingMessage | undefined;
    let done = false;
    const finish = (failure?: { status: number; message: string }) => {
      if (done) return;
      done = true;
      clearTimeout(deadline);
      open.delete(cut);
      if (failure && !res.headersSent) sendError(res, failure.status, failure.message);
      else if (failure || !res.writableEnded) res.destroy();
      resolve();
    };
    const cut = () => {
      req.destroy();
      upstream?.destroy();
    };
    open.add(cut);
    const headers = { ...call.headers, ...(call.body ? { 'content-length': String(call.body.length) } : {}) };
    const req = send(url, { method: call.method, headers, lookup: lookup as never, agent: false }, (response) => {
      upstream = response;
      clearTimeout(deadline);
      const status = response.statusCode ?? 502;
      if (status >= 300 && status < 400) {
        response.destroy();
        return finish({ status: 502, message: `the agent answered ${status} (a redirect); the relay does not follow redirects` });
      }
      const out: Record<string, string> = {};
      for (const name of passBack) {
        const value = response.headers[name];
        if (typeof value === 'string') out[name] = value;
      }
      res.writeHead(status, out);
      let seen = 0;
      response.setTimeout(call.idleTimeoutMs, () => response.destroy());
      response.on('data', (chunk: Buffer) => {
        seen += chunk.length;
        if (seen > call.maxResponseBytes) return response.destroy();
        res.write(chunk);
      });
      response.on('end', () => {
        res.end();
        finish();
      });
      response.on('error', () => finish());
      response.on('close', () => finish());
    });
    const deadline = setTimeout(() => {
      req.destroy();
      finish({ status: 504, message: `the agent did not answer within ${call.timeoutMs} ms` });
    }, call.timeoutMs);
    req.on('error', () => finish({ status: 502, message: 'the agent could not be reached' }));
    // The UI went away (a cancelled stream): hang up on the agent too.
    res.on('close', () => {
      if (!res.writableEnded) cut();
    });
    req.end(call.body);
  });
}
