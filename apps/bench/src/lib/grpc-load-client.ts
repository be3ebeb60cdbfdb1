import { connectH2Grpc, type H2GrpcClient, type RequestTemplate } from './grpc-h2.js';
import { connectRawGrpc } from './grpc-raw.js';

/**
 * The gRPC suite's two load generators (decision 0051): `raw`, HTTP/2 framed by hand on a socket
 * (lib/grpc-raw.ts, the default), and `http2`, a `node:http2` session (lib/grpc-h2.ts, decision
 * 0035), kept to compare with: `A2A_GRPC_LOADGEN=http2`.
 */
export type GrpcLoadGenerator = 'raw' | 'http2';

export function grpcLoadGenerator(text = process.env.A2A_GRPC_LOADGEN ?? 'raw'): GrpcLoadGenerator {
  if (text === 'raw' || text === 'http2') return text;
  throw new RangeError(`A2A_GRPC_LOADGEN: expected raw or http2, got ${JSON.stringify(text)}`);
}

/** One connection of `generator` to `authority` (`host:port`) for calls carrying `template` and `metadata`. */
export function connectGrpcLoadClient(
  generator: GrpcLoadGenerator,
  authority: string,
  template: RequestTemplate,
  metadata: Record<string, string>,
): Promise<H2GrpcClient> {
  return generator === 'raw' ? connectRawGrpc(authority, template, { metadata }) : connectH2Grpc(authority, template, metadata);
}
