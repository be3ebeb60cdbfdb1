import { once } from 'node:events';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';

/**
 * Runs a Web `fetch` handler on node:http with Node's own `Request` and `Response` (what
 * `@hono/node-server` and similar adapters do): the body streams in, the response streams out with
 * backpressure, and the request's signal aborts when the client goes away before the response ends.
 */
export function nodeFetchListener(
  fetchHandler: (request: Request) => Promise<Response>,
): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    const controller = new AbortController();
    res.once('close', () => {
      if (!res.writableFinished) controller.abort();
    });
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) {
      if (value === undefined) continue;
      for (const one of Array.isArray(value) ? value : [value]) headers.append(name, one);
    }
    const hasBody = req.method !== 'GET' && req.method !== 'HEAD';
    const request = new Request(`http://${req.headers.host ?? '127.0.0.1'}${req.url ?? '/'}`, {
      method: req.method ?? 'GET',
      headers,
      signal: controller.signal,
      ...(hasBody ? { body: Readable.toWeb(req) as ReadableStream<Uint8Array>, duplex: 'half' } : {}),
    } as RequestInit);
    void (async () => {
      const response = await fetchHandler(request);
      res.writeHead(response.status, Object.fromEntries(response.headers));
      if (response.body === null) {
        res.end();
        return;
      }
      const reader = response.body.getReader();
      res.once('close', () => void reader.cancel().catch(() => undefined));
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        if (!res.write(value)) await Promise.race([once(res, 'drain'), once(res, 'close')]);
        if (res.destroyed) break;
      }
      res.end();
    })().catch(() => res.destroy());
  };
}
