import type { A2AMethod } from '@a2aplane/a2a-types';
// Inlined into this chunk (tsup `noExternal`): the route table and request builder import nothing.
import { paramsToRestRequest } from '@a2aplane/a2a-types/rest-routes';
import type { loadErrorConverters } from '../error-responses.js';
import type { A2ATransportError } from '../errors.js';
import type { createHeaderSets, HttpCall, HttpContext, readText, sendHttp, statusError, tryParseJson } from '../http.js';
import type { markObservedStatus, parseRetryAfter } from '../retry.js';
import type { invalidFrame, openEventStream } from './stream.js';
import type { Transport, TransportCallOptions } from './types.js';

/**
 * What the REST transport uses from the rest of the client, handed over by the registry. This
 * module is a chunk loaded when the first HTTP+JSON interface is bound (decision 0050): it imports
 * nothing at run time, so that bundlers do not cut a chunk shared with the initial code
 * (decision 0038), and agents reached over JSON-RPC never download it.
 */
export interface RestKit {
  sendHttp: typeof sendHttp;
  readText: typeof readText;
  tryParseJson: typeof tryParseJson;
  statusError: typeof statusError;
  createHeaderSets: typeof createHeaderSets;
  markObservedStatus: typeof markObservedStatus;
  parseRetryAfter: typeof parseRetryAfter;
  openEventStream: typeof openEventStream;
  invalidFrame: typeof invalidFrame;
  loadErrorConverters: typeof loadErrorConverters;
  A2ATransportError: typeof A2ATransportError;
}

// MEDIA_TYPE_JSON and EVENT_STREAM of a2a-types, spelled out: this chunk imports nothing.
const JSON_TYPE = 'application/json';
const EVENT_STREAM = 'text/event-stream';

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

// Constant objects, by kind of call: the header sets are looked up by identity (createHeaderSets).
const ACCEPT_JSON: Readonly<Record<string, string>> = { accept: JSON_TYPE };
const ACCEPT_JSON_WITH_BODY: Readonly<Record<string, string>> = { accept: JSON_TYPE, 'content-type': JSON_TYPE };
const ACCEPT_STREAM: Readonly<Record<string, string>> = { accept: EVENT_STREAM };
const ACCEPT_STREAM_WITH_BODY: Readonly<Record<string, string>> = { accept: EVENT_STREAM, 'content-type': JSON_TYPE };

/** The HTTP+JSON binding (spec §11): one route per operation, `google.rpc.Status` errors. */
export function createRestTransport(baseUrl: string, http: HttpContext, kit: RestKit): Transport {
  const {
    sendHttp,
    readText,
    tryParseJson,
    statusError,
    markObservedStatus,
    parseRetryAfter,
    openEventStream,
    invalidFrame,
    loadErrorConverters,
    A2ATransportError,
  } = kit;
  const base = baseUrl.replace(/\/+$/, '');
  const headerSet = kit.createHeaderSets();

  const buildCall = (method: A2AMethod, params: Record<string, unknown>, options: TransportCallOptions, stream: boolean) => {
    const parts = paramsToRestRequest(method, params);
    const query = parts.query.toString();
    const withBody = parts.body !== undefined;
    const extra = stream ? (withBody ? ACCEPT_STREAM_WITH_BODY : ACCEPT_STREAM) : withBody ? ACCEPT_JSON_WITH_BODY : ACCEPT_JSON;
    const fixed = headerSet(options.headers, extra);
    // A resumed stream's event id changes every time: a one-off object, not one more cached set.
    const headers = options.lastEventId === undefined ? fixed : { ...fixed, 'last-event-id': options.lastEventId };
    const call: HttpCall = {
      method: parts.verb,
      url: `${base}${parts.path}${query ? `?${query}` : ''}`,
      headers,
      ...(parts.body === undefined ? {} : { body: JSON.stringify(parts.body) }),
      ...(options.signal ? { signal: options.signal } : {}),
    };
    return call;
  };

  const errorFor = async (response: Response, text: string, url: string): Promise<Error> => {
    const parsed = tryParseJson(text);
    if (parsed.ok && isObject(parsed.value) && isObject(parsed.value.error)) {
      const error = (await loadErrorConverters()).fromRestError(response.status, parsed.value);
      const retryAfterMs = parseRetryAfter(response.headers.get('Retry-After'));
      if (retryAfterMs !== undefined && error.retryAfterSeconds === undefined) {
        Object.defineProperty(error, 'retryAfterSeconds', { value: retryAfterMs / 1000 });
      }
      return markObservedStatus(error, response.status);
    }
    return statusError(response, url);
  };

  return {
    binding: 'HTTP+JSON',
    url: base,
    async call(method, params, options) {
      const call = buildCall(method, params, options, false);
      const http_ = await sendHttp(http, call);
      const text = await readText(http_, call);
      const { response } = http_;
      if (!response.ok) throw await errorFor(response, text, call.url);
      if (text.trim() === '') return {};
      const parsed = tryParseJson(text);
      if (!parsed.ok)
        throw new A2ATransportError(`Response from ${call.url} is not valid JSON`, { status: response.status, url: call.url });
      return parsed.value;
    },
    open(method, params, options) {
      const call = buildCall(method, params, options, true);
      return openEventStream(
        http,
        call,
        async (text, response) => {
          if (!response.ok) throw await errorFor(response, text, call.url);
        },
        (data) => {
          const parsed = tryParseJson(data);
          if (!parsed.ok) throw invalidFrame(call.url, 'frame is not valid JSON');
          if (isObject(parsed.value) && isObject(parsed.value.error)) {
            const body = parsed.value;
            return loadErrorConverters().then((converters) => Promise.reject(converters.fromRestError(500, body)));
          }
          return parsed.value;
        },
        options,
      );
    },
  };
}
