import { credentials } from '@grpc/grpc-js';
import { describe, expect, it } from 'vitest';
import { createGrpcA2AClient, createGrpcTransport, GrpcA2AClient, GrpcTransport } from '../src/index.js';

describe('createGrpcA2AClient and createGrpcTransport (the classes stay as deprecated aliases for one minor)', () => {
  it('makes the same objects, with the same option checks', () => {
    const client = createGrpcA2AClient({ target: '127.0.0.1:1', credentials: credentials.createInsecure() });
    expect(client).toBeInstanceOf(GrpcA2AClient);
    client.transport.close();
    const transport = createGrpcTransport({ target: '127.0.0.1:1', credentials: credentials.createInsecure() });
    expect(transport).toBeInstanceOf(GrpcTransport);
    transport.close();
    expect(() => createGrpcTransport({ target: '', credentials: credentials.createInsecure() })).toThrow(TypeError);
  });
});
