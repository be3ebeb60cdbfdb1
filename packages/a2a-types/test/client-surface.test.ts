import { describe, expect, it } from 'vitest';
import {
  isA2AError,
  OPERATION_MESSAGES,
  paramsToRestRequest,
  parseTraceparent,
  renameProtoFields,
  taskContextFromWire,
  traceparentFor,
  withTaskContext,
} from '../src/index.js';

// What the client imports from the root: the renamer, the REST request builder and the lineage writer.
describe('the root functions the client uses', () => {
  it('proto-rename: renames proto names at any depth and reports a field sent under both names', () => {
    const violations: { field: string; description: string }[] = [];
    const type = OPERATION_MESSAGES.GetTask.result;
    expect(type).toBe('Task');
    const renamed = renameProtoFields('Task', { id: 't', context_id: 'c', status: { message: { message_id: 'm' } } }, '', violations);
    expect(renamed).toEqual({ id: 't', contextId: 'c', status: { message: { messageId: 'm' } } });
    expect(violations).toEqual([]);
    renameProtoFields('Task', { context_id: 'c', contextId: 'c' }, 'result', violations);
    expect(violations.map((v) => v.field)).toEqual(['result.context_id']);
  });

  it('rest-routes: builds the REST request of an operation', () => {
    const parts = paramsToRestRequest('GetTask', { id: 't 1', historyLength: 2 });
    expect(parts.verb).toBe('GET');
    expect(parts.path).toBe('/tasks/t%201');
    expect(parts.query.toString()).toBe('historyLength=2');
  });

  it('task-context: withTaskContext writes the lineage into a copy of the message metadata; traceparentFor reads either case', () => {
    const context = { traceId: '4bf92f3577b34da6a3ce929d0e0e4736', depth: 2, rootAgentId: 'root', visitedAgents: ['root', 'a'] };
    const request = { message: { messageId: 'm', role: 'ROLE_USER' as const, parts: [{ text: 'x' }], metadata: { keep: 1 } } };
    const sent = withTaskContext(request, context);
    expect(sent.message.metadata?.keep).toBe(1);
    const wire = (sent.message.metadata as unknown as { ruvector: { context: Parameters<typeof taskContextFromWire>[0] } }).ruvector
      .context;
    expect(taskContextFromWire(wire)).toMatchObject({ traceId: context.traceId, depth: 2 });
    expect(request.message.metadata).toEqual({ keep: 1 });

    const header = traceparentFor(context.traceId.toUpperCase());
    expect(parseTraceparent(header ?? '')?.traceId).toBe(context.traceId);
    expect(traceparentFor('not-a-trace-id')).toBeUndefined();
    expect(traceparentFor('0'.repeat(32))).toBeUndefined();
  });
});

// The converters are built over the root's classes (convert-core.ts): the same typed errors as the root's own.
describe('the error converters over the root classes', () => {
  it('build the same typed errors as the root, and readJsonRpcResult keeps the error object as sent', async () => {
    const { createErrorConverters } = await import('../src/errors/convert-core.js');
    const root = await import('../src/index.js');
    const converters = createErrorConverters({ A2AError: root.A2AError, classes: root.ERROR_CLASSES, table: root.ERROR_CODE_TABLE });
    const sent = { code: -32001, message: 'no such task', data: [{ '@type': 'type.example/Other', x: 1 }] };
    const outcome = root.readJsonRpcResult({ jsonrpc: '2.0', id: 'r-1', error: sent }, 'r-1');
    expect(outcome).toEqual({ kind: 'error', id: 'r-1', error: sent });
    const error = converters.fromJsonRpcError(sent);
    expect(error).toBeInstanceOf(root.TaskNotFoundError);
    expect(error).toEqual(root.fromJsonRpcError(sent));
    expect(error.details).toEqual([{ '@type': 'type.example/Other', x: 1 }]);
    const rest = converters.fromRestError(429, { error: { message: 'slow down' } });
    expect(rest).toBeInstanceOf(root.RateLimitedError);
    expect(rest.message).toBe('slow down');
    expect(root.readJsonRpcResponse({ jsonrpc: '2.0', id: 'r-1', error: sent }, 'r-1')).toMatchObject({ kind: 'error', error });
  });
});

// `isA2AError`, the class-free `A2AError.isInstance`, and the JSON-RPC reader the client uses.
describe('isA2AError and readJsonRpcResult', () => {
  it('isA2AError holds for every A2AError (any class, any copy by brand) and nothing else', async () => {
    const { A2AError, InvalidAgentResponseError, TaskNotFoundError } = await import('../src/index.js');
    expect(isA2AError(new TaskNotFoundError())).toBe(true);
    expect(isA2AError(new InvalidAgentResponseError({ message: 'x' }))).toBe(true);
    expect(isA2AError(new A2AError('INTERNAL'))).toBe(true);
    expect(isA2AError(new Error('x'))).toBe(false);
    expect(isA2AError({ reason: 'INTERNAL', code: -32603 })).toBe(false);
    expect(isA2AError(null)).toBe(false);
    // Another copy's error: branded with the same global symbol.
    const copy = new Error('other copy');
    Object.defineProperty(copy, Symbol.for('@a2aplane/a2a-types/A2AError'), { value: true });
    expect(isA2AError(copy)).toBe(true);
  });

  it('readJsonRpcResult (json-rpc-core) reads a result, an error object and a mismatched id', async () => {
    const { readJsonRpcResult, createJsonRpcRequest } = await import('../src/index.js');
    expect(createJsonRpcRequest('1', 'GetTask', { id: 't' })).toEqual({ jsonrpc: '2.0', id: '1', method: 'GetTask', params: { id: 't' } });
    expect(readJsonRpcResult({ jsonrpc: '2.0', id: '1', result: 7 }, '1')).toEqual({ kind: 'success', id: '1', result: 7 });
    expect(readJsonRpcResult('{"jsonrpc":"2.0","error":{"code":-32001,"message":"m"}}', '1')).toEqual({
      kind: 'error',
      id: null,
      error: { code: -32001, message: 'm', data: undefined },
    });
    expect(readJsonRpcResult({ jsonrpc: '2.0', id: '2', result: 7 }, '1')).toEqual({
      kind: 'invalid',
      reason: 'response id does not match the request id',
    });
  });
});
