import type { AuthProvider } from '@a2aplane/a2a-client';
import { A2A_PROTOCOL_VERSION } from '@a2aplane/a2a-types';
import { Metadata } from '@grpc/grpc-js';
import type { GrpcOperation } from './codec.js';
import { A2A_VERSION_METADATA_KEY, LAST_EVENT_ID_METADATA_KEY } from './metadata.js';
import type { GrpcTransportCallOptions } from './transport-options.js';

/** Headers of the HTTP bindings that are not metadata (gRPC sets its own content type). */
const HTTP_ONLY_HEADERS = new Set(['content-type', 'accept', 'user-agent', 'host', 'content-length', 'connection', 'te']);

/**
 * The call's headers (and those the auth provider adds) as metadata. The provider sees the call
 * as an HTTP request: POST to `http://<target><method path>` with the serialized request message
 * as its body, so a request signer (RFC 9421) covers the method path and the message's digest.
 */
export async function callMetadata(
  auth: AuthProvider | undefined,
  target: string,
  operation: GrpcOperation,
  message: Buffer,
  options: GrpcTransportCallOptions,
): Promise<Metadata> {
  let headers: Iterable<[string, string]> = Object.entries(options.headers ?? {});
  if (auth) {
    const request = {
      method: 'POST',
      url: new URL(`http://${target}${operation.path}`),
      headers: new Headers(options.headers ?? {}),
      body: message,
    };
    await auth.apply(request);
    headers = request.headers.entries();
  }
  const metadata = new Metadata();
  for (const [key, value] of headers) {
    // HTTP-only headers have no meaning on a gRPC call.
    if (HTTP_ONLY_HEADERS.has(key)) continue;
    metadata.set(key, value);
  }
  if (metadata.get(A2A_VERSION_METADATA_KEY).length === 0) metadata.set(A2A_VERSION_METADATA_KEY, A2A_PROTOCOL_VERSION);
  if (options.lastEventId !== undefined) metadata.set(LAST_EVENT_ID_METADATA_KEY, options.lastEventId);
  return metadata;
}
