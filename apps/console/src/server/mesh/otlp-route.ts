import type { IncomingMessage, ServerResponse } from 'node:http';
import { promisify } from 'node:util';
import { gunzip } from 'node:zlib';
import { OtlpReadError, readOtlpTraces } from '@a2aplane/a2a-otel/read';
import { ConsoleRequestError, readBody, sendError, sendJson } from '../http-helpers.js';
import type { ConsoleRoute } from '../types.js';
import type { TraceStore } from './trace-store.js';

export const OTLP_TRACES_PATH = '/v1/traces';

export interface OtlpRouteOptions {
  /** Largest request body, compressed or not (and its size once gunzipped). Default 4 MiB. */
  maxBodyBytes?: number;
  /** Spans in one request; more is refused with 400. Default 5000. */
  maxSpansPerRequest?: number;
}

const gunzipAsync = promisify(gunzip);

/** The media type of a Content-Type header, lower case, without parameters. */
const mediaType = (header: string | undefined): string => (header ?? '').split(';')[0]?.trim().toLowerCase() ?? '';

async function decoded(req: IncomingMessage, maxBodyBytes: number): Promise<Buffer> {
  const encoding = (req.headers['content-encoding'] ?? 'identity').trim().toLowerCase();
  if (encoding !== 'identity' && encoding !== 'gzip')
    throw new ConsoleRequestError(415, `content-encoding ${encoding} is not supported (gzip or none)`);
  const body = await readBody(req, maxBodyBytes);
  if (encoding === 'identity') return body;
  try {
    return await gunzipAsync(body, { maxOutputLength: maxBodyBytes });
  } catch (error) {
    const tooLarge = (error as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE';
    throw new ConsoleRequestError(tooLarge ? 413 : 400, tooLarge ? `body over ${maxBodyBytes} bytes once gunzipped` : 'body is not gzip');
  }
}

/**
 * OTLP/HTTP trace intake (`POST /v1/traces`), the endpoint the standard OpenTelemetry exporter
 * posts to: JSON only (protobuf gets a 415 that says how to switch), optionally gzipped, bounded,
 * every field checked by `readOtlpTraces` before a span is kept. Answers an OTLP
 * `ExportTraceServiceResponse` (`partialSuccess` when the store dropped spans of a full trace).
 */
export function createOtlpRoute(store: TraceStore, options: OtlpRouteOptions = {}): ConsoleRoute {
  const maxBodyBytes = options.maxBodyBytes ?? 4 * 1024 * 1024;
  const maxSpans = options.maxSpansPerRequest ?? 5000;
  return {
    method: '*',
    prefix: OTLP_TRACES_PATH,
    async handle(req: IncomingMessage, res: ServerResponse) {
      const pathname = new URL(req.url ?? '/', 'http://console').pathname;
      if (pathname !== OTLP_TRACES_PATH) return sendError(res, 404, 'not found');
      if (req.method !== 'POST') {
        res.setHeader('allow', 'POST');
        return sendError(res, 405, 'OTLP traces are POSTed');
      }
      const type = mediaType(req.headers['content-type']);
      if (type === 'application/x-protobuf' || type === 'application/protobuf') {
        return sendError(
          res,
          415,
          'this console accepts OTLP/HTTP JSON only: set the exporter to http/json (OTEL_EXPORTER_OTLP_TRACES_PROTOCOL=http/json, or the JSON exporter @opentelemetry/exporter-trace-otlp-http)',
        );
      }
      if (type !== 'application/json') return sendError(res, 415, 'OTLP traces must be application/json');
      const body = await decoded(req, maxBodyBytes);
      let parsed: unknown;
      try {
        parsed = JSON.parse(body.toString('utf8'));
      } catch {
        return sendError(res, 400, 'body is not JSON');
      }
      let spans: ReturnType<typeof readOtlpTraces>;
      try {
        spans = readOtlpTraces(parsed, { maxSpans });
      } catch (error) {
        if (error instanceof OtlpReadError) return sendError(res, 400, error.message);
        throw error;
      }
      const { dropped } = store.add(spans);
      sendJson(
        res,
        200,
        dropped === 0
          ? {}
          : { partialSuccess: { rejectedSpans: String(dropped), errorMessage: 'the trace is over the console’s span limit' } },
      );
    },
  };
}
