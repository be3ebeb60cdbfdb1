import {
  type A2AMethod,
  type A2ARequestMap,
  createJsonRpcRequest,
  type JsonRpcResultOutcome,
  MEDIA_TYPE_EVENT_STREAM,
  MEDIA_TYPE_JSON,
  readJsonRpcResult,
} from '@a2aplane/a2a-types';
import { A2ATransportError } from '../errors.js';
import { createHeaderSets, type HttpCall, type HttpContext, readText, sendHttp, statusError, tryParseJson } from '../http.js';
import { invalidAgentResponse, jsonRpcError } from '../error-responses.js';
import { responseInfoOf } from '../response-info.js';
import { invalidFrame, openEventStream } from './stream.js';
import type { V03Translators } from '../v0_3-loader.js';
import type { Transport, TransportCallOptions } from './types.js';

// Constant objects: the header sets are looked up by identity (createHeaderSets).
const UNARY_HEADERS: Readonly<Record<string, string>> = { 'content-type': MEDIA_TYPE_JSON, accept: MEDIA_TYPE_JSON };
const STREAM_HEADERS: Readonly<Record<string, string>> = { 'content-type': MEDIA_TYPE_JSON, accept: MEDIA_TYPE_EVENT_STREAM };

function newRequestId(): string {
  return globalThis.crypto.randomUUID();
}

interface JsonRpcTransportOptions {
  /** Speak A2A v0.3: its method names and shapes, through these a2a-types v0.3 translators. */
  v03?: V03Translators['V03_OPERATIONS'];
}

type V03Operations = V03Translators['V03_OPERATIONS'];

/** v0.3 params and results, translated at the edge so the rest of the client only sees v1.0. */
function toWire(method: A2AMethod, params: Record<string, unknown>, v03: V03Operations | undefined): { name: string; params: unknown } {
  if (!v03) return { name: method, params };
  // The table is typed per method; indexed by the union of methods its entries are not callable.
  const translator = v03[method] as unknown as {
    v03Method: string;
    paramsToV03(p: A2ARequestMap[A2AMethod]): unknown;
  };
  // (and its params are the union of every method's params).
  return { name: translator.v03Method, params: translator.paramsToV03(params as unknown as A2ARequestMap[A2AMethod]) };
}

function fromWire(method: A2AMethod, result: unknown, v03: V03Operations | undefined): unknown {
  if (!v03) return result;
  // As in toWire: the entry of one method, read through the union.
  const parsed = (
    v03[method] as unknown as { resultFromV03(r: unknown): { success: boolean; data?: unknown; error?: { message: string } } }
  ).resultFromV03(result);
  if (!parsed.success) throw invalidAgentResponse(`Invalid v0.3 ${method} result: ${parsed.error?.message ?? 'unknown'}`);
  return parsed.data;
}

/** The JSON-RPC 2.0 binding (spec §9): one POST per call, results in a JSON-RPC envelope. */
export function createJsonRpcTransport(url: string, http: HttpContext, transportOptions: JsonRpcTransportOptions = {}): Transport {
  const v03 = transportOptions.v03;
  const headerSet = createHeaderSets();
  const buildCall = (method: A2AMethod, params: Record<string, unknown>, options: TransportCallOptions, stream: boolean) => {
    const id = newRequestId();
    const wire = toWire(method, params, v03);
    const fixed = headerSet(options.headers, stream ? STREAM_HEADERS : UNARY_HEADERS);
    // A resumed stream's event id changes every time: a one-off object, not one more cached set.
    const headers = options.lastEventId === undefined ? fixed : { ...fixed, 'last-event-id': options.lastEventId };
    const call: HttpCall = {
      method: 'POST',
      url,
      headers,
      body: JSON.stringify(createJsonRpcRequest(id, wire.name, wire.params)),
      ...(options.signal ? { signal: options.signal } : {}),
    };
    return { id, call };
  };

  // Reads a non-stream JSON-RPC body: the result or the error object the agent sent; a transport
  // problem throws. (The error object becomes its typed class in `jsonRpcError`.)
  const readBody = (text: string, status: number, response: Response, id: string): Exclude<JsonRpcResultOutcome, { kind: 'invalid' }> => {
    const parsed = tryParseJson(text);
    if (!parsed.ok) {
      if (status < 200 || status >= 300) throw statusError(response, url);
      throw new A2ATransportError(`Response from ${url} is not valid JSON`, { status, url });
    }
    const outcome = readJsonRpcResult(parsed.value, id);
    if (outcome.kind === 'error') return outcome;
    if (status < 200 || status >= 300) throw statusError(response, url);
    if (outcome.kind === 'invalid') {
      throw new A2ATransportError(`Invalid JSON-RPC response from ${url}: ${outcome.reason}`, { status, url });
    }
    return outcome;
  };

  return {
    binding: 'JSONRPC',
    url,
    async call(method, params, options) {
      const { id, call } = buildCall(method, params, options, false);
      const http_ = await sendHttp(http, call);
      const text = await readText(http_, call);
      const { status } = http_.response;
      const outcome = readBody(text, status, http_.response, id);
      if (outcome.kind === 'error') throw jsonRpcError(outcome.error, status);
      const result = fromWire(method, outcome.result, v03);
      options.onResponse?.(responseInfoOf(http_.response.headers));
      return result;
    },
    open(method, params, options) {
      const { id, call } = buildCall(method, params, options, true);
      return openEventStream(
        http,
        call,
        (text, response) => {
          const outcome = readBody(text, response.status, response, id);
          if (outcome.kind === 'error') throw jsonRpcError(outcome.error, response.status);
        },
        (data) => {
          const outcome = readJsonRpcResult(data, id);
          if (outcome.kind === 'error') throw jsonRpcError(outcome.error);
          if (outcome.kind === 'invalid') throw invalidFrame(url, outcome.reason);
          return fromWire(method, outcome.result, v03);
        },
        options,
      );
    },
  };
}
