/** A gRPC endpoint the registry may dial: `host:port`, and whether to use TLS. */
export interface GrpcTarget {
  target: string;
  tls: boolean;
}

/** `host:port` or `[ipv6]:port`, what gRPC clients dial (a2a-grpc's `grpcInterface`). */
const TARGET = /^(\[[0-9a-f:.]+\]|[a-z0-9.-]+):(\d{1,5})$/i;

/**
 * Where a GRPC interface's `url` points, if it is on the enrolled origin's host: `host:port`, or an
 * http(s) URL as the spec's examples write it (its path is not used: gRPC paths are the service's).
 * The port may differ from the origin's (gRPC listens on its own); TLS follows the enrolled origin's
 * scheme for a bare target, the URL's scheme otherwise.
 */
export function grpcTargetOf(url: string, origin: string): GrpcTarget | undefined {
  const enrolled = new URL(origin);
  let host: string;
  let port: number;
  let tls = enrolled.protocol === 'https:';
  const bare = TARGET.exec(url);
  if (bare) {
    host = (bare[1] as string).toLowerCase();
    port = Number(bare[2]);
  } else if (/^https?:\/\//i.test(url) && URL.canParse(url)) {
    const parsed = new URL(url);
    tls = parsed.protocol === 'https:';
    host = parsed.hostname;
    port = parsed.port === '' ? (tls ? 443 : 80) : Number(parsed.port);
  } else return undefined;
  if (host !== enrolled.hostname || port < 1 || port > 65_535) return undefined;
  return { target: `${host}:${port}`, tls };
}
