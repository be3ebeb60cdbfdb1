import type { AuthenticationRequest } from '@a2aplane/a2a-server-express';
import type { Metadata, ServerUnaryCall } from '@grpc/grpc-js';

/** Metadata keys of the A2A service parameters over gRPC (spec §10: headers become metadata). */
export const A2A_VERSION_METADATA_KEY = 'a2a-version';
export const A2A_EXTENSIONS_METADATA_KEY = 'a2a-extensions';
/**
 * SubscribeToTask resumes after this event id, as `Last-Event-ID` does over SSE; each streamed
 * `StreamResponse` carries its id in a field a2a.proto does not declare (codec.ts, decision 0030).
 */
export const LAST_EVENT_ID_METADATA_KEY = 'last-event-id';

const EMPTY_QUERY = new URLSearchParams();

/** The first text value of a metadata key. */
export function metadataText(metadata: Metadata, key: string): string | undefined {
  const value = metadata.get(key)[0];
  return typeof value === 'string' ? value : undefined;
}

/** Every text value of a metadata key (repeated keys are separate values). */
export function metadataTexts(metadata: Metadata, key: string): string[] {
  return metadata.get(key).filter((value): value is string => typeof value === 'string');
}

/** What {@link authRequestOf} reads of a grpc-js server call. */
export type AuthCallView = Pick<ServerUnaryCall<Buffer, Buffer>, 'metadata' | 'getHost' | 'getPath' | 'request'>;

/**
 * What the authenticator sees of a gRPC call: text metadata as lower-case headers (repeated keys
 * joined with ", " as HTTP does), an empty query and the method `POST` (gRPC runs on HTTP/2 POST).
 * Binary (`-bin`) metadata is left out. Given the call (not only its metadata), also what request
 * signatures (RFC 9421) cover: `host` is the call's `:authority` (as the host of an http URL: a
 * port 80 is left out, as the client's signer does; a `host` metadata entry never stands in for
 * it), `target` the method path and `body` the serialized request message.
 */
export function authRequestOf(source: Metadata | AuthCallView): AuthenticationRequest {
  const call = typeof (source as AuthCallView).getHost === 'function' ? (source as AuthCallView) : undefined;
  const metadata = call ? call.metadata : (source as Metadata);
  const headers: Record<string, string | undefined> = {};
  for (const [key, values] of Object.entries(metadata.toJSON())) {
    if (key.endsWith('-bin')) continue;
    const texts = values.filter((value): value is string => typeof value === 'string');
    if (texts.length > 0) headers[key] = texts.join(', ');
  }
  if (!call) return { headers, query: EMPTY_QUERY, method: 'POST' };
  headers.host = authorityOf(call.getHost());
  return { headers, query: EMPTY_QUERY, method: 'POST', target: call.getPath(), body: call.request };
}

function authorityOf(host: string): string | undefined {
  try {
    return new URL(`http://${host}`).host || undefined;
  } catch {
    return undefined;
  }
}

/** The remote address of a peer string such as `127.0.0.1:5000` or `[::1]:5000` (the port is dropped). */
export function peerAddress(peer: string): string {
  const withoutScheme = peer.replace(/^ipv[46]:/, '');
  const colon = withoutScheme.lastIndexOf(':');
  const host = colon > 0 && /^\d+$/.test(withoutScheme.slice(colon + 1)) ? withoutScheme.slice(0, colon) : withoutScheme;
  return host.replace(/^\[(.*)\]$/, '$1');
}
