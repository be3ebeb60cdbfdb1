import {
  type A2AMethod,
  createJsonRpcRequest,
  MEDIA_TYPE_EVENT_STREAM,
  MEDIA_TYPE_JSON,
  readJsonRpcResponse,
} from '@a2aplane/a2a-types';
import { A2ATransportError } from '../errors.js';
import { type HttpCall, type HttpContext, readText, sendHttp, statusError, tryParseJson } from '../http.js';
import { markObservedStatus } from '../retry.js';
import { invalidFrame, readEventStream } from './stream.js';
import type { StreamItem, Transport, TransportCallOptions } from './types.js';

function newRequestId(): string {
  return globalThis.crypto.randomUUID();
}

/** The JSON-RPC 2.0 binding (spec §9): one POST per call, results in a JSON-RPC envelope. */
export function createJsonRpcTransport(url: string, http: HttpContext): Transport {
  const buildCall = (method: A2AMethod, params: Record<string, unknown>, options: TransportCallOptions, stream: boolean) => {
    const id = newRequestId();
    const headers = new Headers(options.headers);
    headers.set('Content-Type', MEDIA_TYPE_JSON);
    headers.set('Accept', stream ? MEDIA_TYPE_EVENT_STREAM : MEDIA_TYPE_JSON);
    if (options.lastEventId !== undefined) headers.set('Last-Event-ID', options.lastEventId);
    const call: HttpCall = {
      method: 'POST',
      url,
      headers,
      body: JSON.stringify(createJsonRpcRequest(id, method, params)),
      streaming: stream,
      ...(options.signal ? { signal: options.signal } : {}),
      ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
    };
    return { id, call };
  };

  // Reads a non-stream JSON-RPC body: result, typed error, or a transport problem.
  const readBody = (text: string, status: number, response: Response, id: string): unknown => {
    const parsed = tryParseJson(text);
    if (!parsed.ok) {
      if (status < 200 || status >= 300) throw statusError(response, url);
      throw new A2ATransportError(`Response from ${url} is not valid JSON`, { status, url });
    }
    const outcome = readJsonRpcResponse(parsed.value, id);
    if (outcome.kind === 'error') throw markObservedStatus(outcome.error, status);
    if (status < 200 || status >= 300) throw statusError(response, url);
    if (outcome.kind === 'invalid') {
      throw new A2ATransportError(`Invalid JSON-RPC response from ${url}: ${outcome.reason}`, { status, url });
    }
    return outcome.result;
  };

  return {
    binding: 'JSONRPC',
    url,
    async call(method, params, options) {
      const { id, call } = buildCall(method, params, options, false);
      const http_ = await sendHttp(http, call);
      const text = await readText(http_, call);
      return readBody(text, http_.response.status, http_.response, id);
    },
    async open(method, params, options): Promise<AsyncIterable<StreamItem>> {
      const { id, call } = buildCall(method, params, options, true);
      const http_ = await sendHttp(http, call);
      const { response } = http_;
      const contentType = response.headers.get('Content-Type') ?? '';
      if (!response.ok || !contentType.includes(MEDIA_TYPE_EVENT_STREAM)) {
        const text = await readText(http_, call);
        readBody(text, response.status, response, id);
        throw new A2ATransportError(`Expected an event stream from ${url}, got ${contentType || 'no content type'}`, {
          status: response.status,
          url,
        });
      }
      return readEventStream(
        http_,
        call,
        (data) => {
          const outcome = readJsonRpcResponse(data, id);
          if (outcome.kind === 'error') throw outcome.error;
          if (outcome.kind === 'invalid') throw invalidFrame(url, outcome.reason);
          return outcome.result;
        },
        options.maxEventBytes,
      );
    },
  };
}
