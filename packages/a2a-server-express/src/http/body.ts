import { type A2AError, InvalidRequestError, JSONParseError, MEDIA_TYPE_JSON } from '@a2aplane/a2a-types';
import type { HttpExchange } from './exchange.js';

type JsonBody = { ok: true; value: unknown; raw?: Uint8Array } | { ok: false; error: A2AError; status: number };

/** The parsed body and the bytes it was parsed from (`raw` is absent when a framework parsed it first). */
export async function readJsonBody(exchange: HttpExchange, limit: number): Promise<JsonBody> {
  const read = await exchange.readBody(limit);
  switch (read.kind) {
    case 'parsed':
      return { ok: true, value: read.value };
    case 'too-large':
      return { ok: false, status: 413, error: new InvalidRequestError({ message: `Request body exceeds ${limit} bytes` }) };
    case 'unreadable':
      return { ok: false, status: 400, error: new InvalidRequestError({ message: 'Request body could not be read' }) };
  }
  if (read.raw.length === 0) return { ok: true, value: undefined, raw: read.raw };
  try {
    return { ok: true, value: JSON.parse(read.text), raw: read.raw };
  } catch {
    return { ok: false, status: 400, error: new JSONParseError() };
  }
}

/** The media type of the request body, lower case, without parameters. */
export function mediaTypeOf(exchange: HttpExchange): string {
  const raw = exchange.header('content-type');
  if (raw === MEDIA_TYPE_JSON) return raw;
  return (raw ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
}
