import { credentials } from '@grpc/grpc-js';
import { describe, expect, it } from 'vitest';
import { createGrpcTransport, GrpcTransport } from '../src/index.js';

describe('createGrpcTransport (the class stays exported)', () => {
  it('makes a GrpcTransport with the same option checks', () => {
    const transport = createGrpcTransport({ target: '127.0.0.1:1', credentials: credentials.createInsecure() });
    expect(transport).toBeInstanceOf(GrpcTransport);
    transport.close();
    expect(() => createGrpcTransport({ target: '', credentials: credentials.createInsecure() })).toThrow(TypeError);
  });
});
