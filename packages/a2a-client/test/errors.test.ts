import { describe, expect, it } from 'vitest';
import {
  A2AAbortError,
  A2ATimeoutError,
  A2ATransportError,
  AgentCardDiscoveryError,
  CardSignatureInvalidError,
  CircuitOpenError,
  SseEventTooLargeError,
  StreamResumeExhaustedError,
} from '../src/index.js';

const cause = new Error('root');
const ERRORS: [string, Error & { constructor: unknown }, { isInstance(value: unknown): boolean }][] = [
  ['A2ATransportError', new A2ATransportError('down', { status: 503, retryable: true, url: 'http://x', cause }), A2ATransportError],
  ['CircuitOpenError', new CircuitOpenError('http://x'), CircuitOpenError],
  ['A2ATimeoutError', new A2ATimeoutError(10, { cause }), A2ATimeoutError],
  ['A2AAbortError', new A2AAbortError({ cause }), A2AAbortError],
  ['AgentCardDiscoveryError', new AgentCardDiscoveryError('http', 'http://x', 'no card', { status: 500 }), AgentCardDiscoveryError],
  ['CardSignatureInvalidError', new CardSignatureInvalidError('http://x', { status: 'tampered' }), CardSignatureInvalidError],
  ['SseEventTooLargeError', new SseEventTooLargeError(5), SseEventTooLargeError],
  ['StreamResumeExhaustedError', new StreamResumeExhaustedError({ taskId: 't', attempts: 3, cause }), StreamResumeExhaustedError],
];

describe("the client's own errors", () => {
  it.each(ERRORS)('%s: name, instanceof, isInstance, and only its own class', (name, error, Class) => {
    expect(error.name).toBe(name);
    expect(error).toBeInstanceOf(Error);
    expect(error).toBeInstanceOf(Class as unknown as new () => Error);
    expect(Class.isInstance(error)).toBe(true);
    for (const [otherName, , Other] of ERRORS) {
      // A CircuitOpenError is an A2ATransportError too; no other pair is related.
      const related = otherName === name || (name === 'CircuitOpenError' && otherName === 'A2ATransportError');
      expect(Other.isInstance(error)).toBe(related);
    }
  });

  it('isInstance recognises an error from another copy of the package by its brand, and refuses look-alikes', () => {
    const copy = Object.assign(new Error('x'), { name: 'A2ATransportError' });
    expect(A2ATransportError.isInstance(copy)).toBe(false);
    Object.defineProperty(copy, Symbol.for('@a2aplane/a2a-client/A2ATransportError'), { value: true });
    expect(A2ATransportError.isInstance(copy)).toBe(true);
    expect(A2ATransportError.isInstance(null)).toBe(false);
    expect(A2ATransportError.isInstance('A2ATransportError')).toBe(false);
  });

  it('keeps fields, messages and causes', () => {
    const transport = new A2ATransportError('down', { status: 503, retryable: true, url: 'http://x', cause });
    expect([transport.status, transport.retryable, transport.retryAfterMs, transport.url, transport.cause]).toEqual([
      503,
      true,
      undefined,
      'http://x',
      cause,
    ]);
    expect(new A2ATransportError('plain')).not.toHaveProperty('cause');
    const circuit = new CircuitOpenError('http://x');
    expect([circuit.message, circuit.origin, circuit.retryable, circuit.url]).toEqual([
      'Circuit open for http://x',
      'http://x',
      false,
      'http://x',
    ]);
    expect(new A2ATimeoutError(10).message).toBe('A2A request timed out after 10 ms');
    expect(new A2AAbortError().message).toBe('A2A request was aborted');
    const discovery = new AgentCardDiscoveryError('http', 'http://x', 'no card', { status: 500 });
    expect([discovery.kind, discovery.url, discovery.status, discovery.violations]).toEqual(['http', 'http://x', 500, []]);
    const resume = new StreamResumeExhaustedError({ taskId: 't', attempts: 3, lastEventId: '7', cause });
    expect([resume.message, resume.taskId, resume.attempts, resume.lastEventId, resume.cause]).toEqual([
      'Stream for task t dropped; gave up after 3 resume attempts',
      't',
      3,
      '7',
      cause,
    ]);
  });
});
