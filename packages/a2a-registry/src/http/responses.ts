import type { IncomingMessage, ServerResponse } from 'node:http';

/** The registry's error body: a stable code and a one-line message, never a stack. */
export function sendError(res: ServerResponse, status: number, code: string, message: string): void {
  sendJson(res, status, { error: { code, message } });
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store', ...headers });
  res.end(text);
}

export class BodyError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * The JSON body of a POST, at most `limit` bytes (past it reading stops and the connection closes
 * after the 413), as `application/json` only.
 */
export function readJsonBody(req: IncomingMessage, res: ServerResponse, limit: number): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const type = (req.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
    if (type !== 'application/json') {
      res.setHeader('connection', 'close');
      reject(new BodyError(415, 'UNSUPPORTED_MEDIA_TYPE', 'expected Content-Type: application/json'));
      return;
    }
    const declared = Number(req.headers['content-length']);
    if (Number.isFinite(declared) && declared > limit) {
      res.setHeader('connection', 'close');
      reject(new BodyError(413, 'BODY_TOO_LARGE', `request body exceeds ${limit} bytes`));
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > limit) {
        req.off('data', onData);
        req.pause();
        res.setHeader('connection', 'close');
        reject(new BodyError(413, 'BODY_TOO_LARGE', `request body exceeds ${limit} bytes`));
        return;
      }
      chunks.push(chunk);
    };
    req.on('data', onData);
    req.on('error', () => reject(new BodyError(400, 'BAD_REQUEST', 'request body could not be read')));
    req.on('end', () => {
      try {
        resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')));
      } catch {
        reject(new BodyError(400, 'INVALID_JSON', 'request body is not JSON'));
      }
    });
  });
}
