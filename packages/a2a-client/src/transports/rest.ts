import {
  type A2AMethod,
  fromRestError,
  MEDIA_TYPE_A2A_JSON,
  MEDIA_TYPE_EVENT_STREAM,
  MEDIA_TYPE_JSON,
  paramsToRestRequest,
  parseRetryAfter,
} from '@a2aplane/a2a-types';
import { A2ATransportError } from '../errors.js';
import { createHeaderSets, type HttpCall, type HttpContext, readText, sendHttp, statusError, tryParseJson } from '../http.js';
import { responseInfoOf } from '../response-info.js';
import { markObservedStatus } from '../retry.js';
import { invalidFrame, openEventStream } from './stream.js';
import type { Transport, TransportCallOptions } from './types.js';

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

// Constant objects, by kind of call: the header sets are looked up by identity (createHeaderSets).
// Replies may be application/a2a+json (§11.1, v1.0.1) or application/json (older servers); both are read.
const ACCEPT_EITHER_JSON = `${MEDIA_TYPE_A2A_JSON}, ${MEDIA_TYPE_JSON}`;
const ACCEPT_JSON: Readonly<Record<string, string>> = { accept: ACCEPT_EITHER_JSON };
const ACCEPT_JSON_WITH_BODY: Readonly<Record<string, string>> = { accept: ACCEPT_EITHER_JSON, 'content-type': MEDIA_TYPE_JSON };
const ACCEPT_STREAM: Readonly<Record<string, string>> = { accept: MEDIA_TYPE_EVENT_STREAM };
const ACCEPT_STREAM_WITH_BODY: Readonly<Record<string, string>> = { accept: MEDIA_TYPE_EVENT_STREAM, 'content-type': MEDIA_TYPE_JSON };

/** The HTTP+JSON binding (spec §11): one route per operation, `google.rpc.Status` errors. */
export function createRestTransport(baseUrl: string, http: HttpContext): Transport {
  const base = baseUrl.replace(/\/+$/, '');
  const headerSet = createHeaderSets();

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

  const errorFor = (response: Response, text: string, url: string): Error => {
    const parsed = tryParseJson(text);
    if (parsed.ok && isObject(parsed.value) && isObject(parsed.value.error)) {
      const error = fromRestError(response.status, parsed.value);
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
      if (!response.ok) throw errorFor(response, text, call.url);
      const parsed = text.trim() === '' ? { ok: true as const, value: {} } : tryParseJson(text);
      if (!parsed.ok)
        throw new A2ATransportError(`Response from ${call.url} is not valid JSON`, { status: response.status, url: call.url });
      options.onResponse?.(responseInfoOf(response.headers));
      return parsed.value;
    },
    open(method, params, options) {
      const call = buildCall(method, params, options, true);
      return openEventStream(
        http,
        call,
        (text, response) => {
          if (!response.ok) throw errorFor(response, text, call.url);
        },
        (data) => {
          const parsed = tryParseJson(data);
          if (!parsed.ok) throw invalidFrame(call.url, 'frame is not valid JSON');
          if (isObject(parsed.value) && isObject(parsed.value.error)) throw fromRestError(500, parsed.value);
          return parsed.value;
        },
        options,
      );
    },
  };
}
