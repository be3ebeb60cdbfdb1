import type { IncomingMessage, ServerResponse } from 'node:http';

/** Thrown by `readJsonBody`: the caller answers `status` with `message` (never a stack trace). */
export class ConsoleRequestError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'ConsoleRequestError';
  }
}

/** Writes a JSON answer with `cache-control: no-store` (API answers may carry what an agent said). */
export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    'cache-control': 'no-store',
  });
  res.end(text);
}

/** An error answer in the console API's one shape: `{ error: { message } }`. */
export function sendError(res: ServerResponse, status: number, message: string): void {
  sendJson(res, status, { error: { message } });
}

/** The request body as bytes, refused with 413 past `limitBytes`. */
export async function readBody(req: IncomingMessage, limitBytes: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length'] ?? Number.NaN);
  if (Number.isFinite(declared) && declared > limitBytes) throw new ConsoleRequestError(413, `body over ${limitBytes} bytes`);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limitBytes) throw new ConsoleRequestError(413, `body over ${limitBytes} bytes`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/** The request body parsed as JSON (400 when it is not), at most `limitBytes` (default 64 KiB). */
export async function readJsonBody(req: IncomingMessage, limitBytes = 64 * 1024): Promise<unknown> {
  const bytes = await readBody(req, limitBytes);
  try {
    return JSON.parse(bytes.toString('utf8')) as unknown;
  } catch {
    throw new ConsoleRequestError(400, 'body is not JSON');
  }
}
