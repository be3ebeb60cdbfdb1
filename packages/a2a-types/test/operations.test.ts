import { describe, expect, it } from 'vitest';
import {
  A2A_METHODS,
  A2A_PROTOCOL_VERSION,
  A2A_VERSION_HEADER,
  DEFAULT_JSON_RPC_PATH,
  DEFAULT_REST_PATH,
  OPERATIONS,
  PROTOCOL_BINDING,
  WELL_KNOWN_AGENT_CARD_PATH,
  isA2AMethod,
  parseOperationParams,
} from '../src/index.js';

describe('route table (spec §5.3)', () => {
  it('has one descriptor per method, keyed by its own name', () => {
    expect(A2A_METHODS).toHaveLength(11);
    for (const method of A2A_METHODS) expect(OPERATIONS[method].method).toBe(method);
  });
  it('exactly the two streaming operations stream', () => {
    expect(A2A_METHODS.filter((method) => OPERATIONS[method].streaming).sort()).toEqual(['SendStreamingMessage', 'SubscribeToTask']);
  });
  it('POST routes carry a body; GET and DELETE do not', () => {
    for (const method of A2A_METHODS) {
      const { verb, body } = OPERATIONS[method].rest;
      expect(body).toBe(verb === 'POST');
    }
  });
  it('isA2AMethod', () => {
    expect(isA2AMethod('GetTask')).toBe(true);
    expect(isA2AMethod('tasks/get')).toBe(false);
    expect(isA2AMethod(1)).toBe(false);
  });
  it('parseOperationParams treats missing params as {}', () => {
    expect(parseOperationParams('GetExtendedAgentCard', undefined)).toEqual({ success: true, data: {} });
    const missing = parseOperationParams('GetTask', undefined);
    expect(missing.success ? [] : missing.error.violations.map((v) => v.field)).toEqual(['id']);
  });
  it('constants (spec §3.6, §8.2)', () => {
    expect(A2A_PROTOCOL_VERSION).toBe('1.0');
    expect(A2A_VERSION_HEADER).toBe('A2A-Version');
    expect(WELL_KNOWN_AGENT_CARD_PATH).toBe('/.well-known/agent-card.json');
    expect(PROTOCOL_BINDING).toEqual({ jsonRpc: 'JSONRPC', httpJson: 'HTTP+JSON', grpc: 'GRPC' });
    expect(DEFAULT_JSON_RPC_PATH).toBe('/a2a/jsonrpc');
    expect(DEFAULT_REST_PATH).toBe('/a2a/rest');
  });
});
