import { chunkLoader } from '../chunk-loader.js';
import { loadErrorConverters } from '../error-responses.js';
import { A2ATransportError } from '../errors.js';
import { createHeaderSets, readText, sendHttp, statusError, tryParseJson } from '../http.js';
import { markObservedStatus, parseRetryAfter } from '../retry.js';
import { createJsonRpcTransport } from './json-rpc.js';
import type { RestKit } from './rest.js';
import { invalidFrame, openEventStream } from './stream.js';
import type { Transport, TransportRegistry } from './types.js';

const REST_KIT: RestKit = {
  sendHttp,
  readText,
  tryParseJson,
  statusError,
  createHeaderSets,
  markObservedStatus,
  parseRetryAfter,
  openEventStream,
  invalidFrame,
  loadErrorConverters,
  A2ATransportError,
};

/**
 * A transport whose code loads on demand: loading starts when it is bound (so that it overlaps
 * whatever comes before the first call), and every call awaits it. A failed load fails the call
 * that needed it with a retryable transport error (nothing was sent); the next call loads again.
 */
function lazyTransport(binding: string, url: string, load: () => Promise<Transport>): Transport {
  const loaded = chunkLoader(load, `${binding} transport`);
  loaded().catch(() => undefined);
  return {
    binding,
    url,
    call: async (method, params, options) => (await loaded()).call(method, params, options),
    open: async (method, params, options) => (await loaded()).open(method, params, options),
  };
}

/**
 * The bindings built into the client. Register another one (such as `GRPC` from
 * `@a2aplane/a2a-grpc`) with `createA2AClient({ transports: { GRPC: factory } })`. The HTTP+JSON
 * transport is a chunk of its own, loaded when an agent's HTTP+JSON interface is first bound.
 */
export const defaultTransports: TransportRegistry = {
  JSONRPC: (agentInterface, context) => createJsonRpcTransport(agentInterface.url, context),
  'HTTP+JSON': ({ url }, context) =>
    lazyTransport('HTTP+JSON', url.replace(/\/+$/, ''), () =>
      import('./rest.js').then((module) => module.createRestTransport(url, context, REST_KIT)),
    ),
};
