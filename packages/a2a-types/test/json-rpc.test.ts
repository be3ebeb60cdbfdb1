import { describe, expect, it } from 'vitest';
import {
  A2A_METHODS,
  A2AError,
  InvalidParamsError,
  InvalidRequestError,
  JSONParseError,
  MethodNotFoundError,
  TaskNotFoundError,
  classifyJsonRpcRequest,
  createJsonRpcError,
  createJsonRpcRequest,
  createJsonRpcSuccess,
  readJsonRpcEnvelope,
  readJsonRpcResponse,
} from '../src/index.js';
import * as fx from './fixtures/objects.js';

const VALID_PARAMS: Record<(typeof A2A_METHODS)[number], unknown> = {
  SendMessage: fx.sendMessageRequest,
  SendStreamingMessage: { message: fx.message },
  GetTask: { id: 't-1', historyLength: 3 },
  ListTasks: { pageSize: 10 },
  CancelTask: { id: 't-1' },
  SubscribeToTask: { id: 't-1' },
  CreateTaskPushNotificationConfig: fx.pushConfig,
  GetTaskPushNotificationConfig: { taskId: 't-1', id: 'cfg-1' },
  ListTaskPushNotificationConfigs: { taskId: 't-1' },
  DeleteTaskPushNotificationConfig: { taskId: 't-1', id: 'cfg-1' },
  GetExtendedAgentCard: undefined,
};

describe('classifyJsonRpcRequest: malformed envelopes (JSON-RPC 2.0 §4, §5.1)', () => {
  const cases: [string, unknown, number, string | number | null][] = [
    ['invalid JSON text', '{"jsonrpc": "2.0",', -32700, null],
    ['empty body', '', -32700, null],
    ['array (batch)', [{ jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: 't' } }], -32600, null],
    ['batch as text', '[]', -32600, null],
    ['number', 42, -32600, null],
    ['null', 'null', -32600, null],
    ['missing jsonrpc', { id: 1, method: 'GetTask', params: { id: 't' } }, -32600, 1],
    ['jsonrpc "1.0"', { jsonrpc: '1.0', id: 1, method: 'GetTask', params: { id: 't' } }, -32600, 1],
    ['missing method', { jsonrpc: '2.0', id: 'a' }, -32600, 'a'],
    ['empty method', { jsonrpc: '2.0', id: 'a', method: '' }, -32600, 'a'],
    ['non-string method', { jsonrpc: '2.0', id: 'a', method: 7 }, -32600, 'a'],
    ['object id', { jsonrpc: '2.0', id: { x: 1 }, method: 'GetTask', params: { id: 't' } }, -32600, null],
    ['float id', { jsonrpc: '2.0', id: 1.5, method: 'GetTask', params: { id: 't' } }, -32600, null],
    ['boolean id', { jsonrpc: '2.0', id: true, method: 'GetTask', params: { id: 't' } }, -32600, null],
    ['too-long string id', { jsonrpc: '2.0', id: 'x'.repeat(257), method: 'GetTask', params: { id: 't' } }, -32600, null],
    ['params as string', { jsonrpc: '2.0', id: 2, method: 'GetTask', params: 'id=t' }, -32600, 2],
    ['params null', { jsonrpc: '2.0', id: 2, method: 'GetTask', params: null }, -32600, 2],
    ['params as array', { jsonrpc: '2.0', id: 2, method: 'GetTask', params: ['t'] }, -32602, 2],
    ['unknown method', { jsonrpc: '2.0', id: 3, method: 'message/send', params: {} }, -32601, 3],
    ['invalid params', { jsonrpc: '2.0', id: 4, method: 'GetTask', params: { historyLength: -1 } }, -32602, 4],
  ];
  it.each(cases)('%s', (_name, body, code, id) => {
    const outcome = classifyJsonRpcRequest(body);
    expect(outcome.kind).toBe('error');
    if (outcome.kind !== 'error') return;
    expect(outcome.error.code).toBe(code);
    expect(outcome.id).toEqual(id);
    expect(A2AError.isInstance(outcome.error)).toBe(true);
  });

  it('classes match the codes', () => {
    const parse = classifyJsonRpcRequest('{');
    expect(parse.kind === 'error' && JSONParseError.isInstance(parse.error)).toBe(true);
    const invalid = classifyJsonRpcRequest({ jsonrpc: '1.0', id: 1, method: 'GetTask' });
    expect(invalid.kind === 'error' && InvalidRequestError.isInstance(invalid.error)).toBe(true);
    const unknown = classifyJsonRpcRequest({ jsonrpc: '2.0', id: 1, method: 'Nope' });
    expect(unknown.kind === 'error' && MethodNotFoundError.isInstance(unknown.error)).toBe(true);
    expect(unknown.kind === 'error' && unknown.error.metadata.method).toBe('Nope');
  });

  it('a custom maxIdLength is honoured', () => {
    const body = { jsonrpc: '2.0', id: 'abcdef', method: 'GetTask', params: { id: 't' } };
    expect(classifyJsonRpcRequest(body, { maxIdLength: 5 }).kind).toBe('error');
    expect(classifyJsonRpcRequest(body, { maxIdLength: 6 }).kind).toBe('request');
  });

  it('invalid params carry every violation in a google.rpc.BadRequest detail, rooted at the params', () => {
    const outcome = classifyJsonRpcRequest({
      jsonrpc: '2.0',
      id: 9,
      method: 'SendMessage',
      params: { message: { role: 'ROLE_BOT', parts: [{}] } },
    });
    expect(outcome.kind).toBe('error');
    if (outcome.kind !== 'error') return;
    expect(InvalidParamsError.isInstance(outcome.error)).toBe(true);
    expect(outcome.error.fieldViolations.map((v) => v.field).sort()).toEqual(
      ['message.messageId', 'message.parts[0]', 'message.role'].sort(),
    );
    const wire = outcome.error.toJsonRpcError();
    expect(wire.code).toBe(-32602);
    expect(wire.data).toEqual([
      expect.objectContaining({ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'INVALID_PARAMS' }),
      expect.objectContaining({ '@type': 'type.googleapis.com/google.rpc.BadRequest' }),
    ]);
  });

  it('a notification (no id) is reported as such and never answered', () => {
    expect(classifyJsonRpcRequest({ jsonrpc: '2.0', method: 'GetTask', params: { id: 't' } })).toEqual({
      kind: 'notification',
      method: 'GetTask',
      params: { id: 't' },
    });
    expect(classifyJsonRpcRequest('{"jsonrpc":"2.0","method":"Whatever"}').kind).toBe('notification');
  });

  it.each(A2A_METHODS)('valid request: %s', (method) => {
    const body = JSON.stringify(createJsonRpcRequest('req-1', method, VALID_PARAMS[method]));
    const outcome = classifyJsonRpcRequest(body);
    expect(outcome.kind).toBe('request');
    if (outcome.kind !== 'request') return;
    expect(outcome.method).toBe(method);
    expect(outcome.id).toBe('req-1');
    expect(outcome.params).toEqual(VALID_PARAMS[method] ?? {});
  });

  it('id null and integer ids are accepted', () => {
    const nullId = classifyJsonRpcRequest({ jsonrpc: '2.0', id: null, method: 'GetTask', params: { id: 't' } });
    expect(nullId.kind === 'request' && nullId.id).toBe(null);
    const intId = classifyJsonRpcRequest({ jsonrpc: '2.0', id: -7, method: 'GetTask', params: { id: 't' } });
    expect(intId.kind === 'request' && intId.id).toBe(-7);
  });

  it('readJsonRpcEnvelope does not check the method', () => {
    expect(readJsonRpcEnvelope({ jsonrpc: '2.0', id: 1, method: 'tasks/get', params: {} })).toEqual({
      kind: 'request',
      id: 1,
      method: 'tasks/get',
      params: {},
    });
  });
});

describe('JSON-RPC response helpers', () => {
  it('createJsonRpcSuccess / createJsonRpcError', () => {
    expect(createJsonRpcSuccess(1, { ok: true })).toEqual({ jsonrpc: '2.0', id: 1, result: { ok: true } });
    const error = createJsonRpcError('a', new TaskNotFoundError({ metadata: { taskId: 't' } }));
    expect(error.error.code).toBe(-32001);
    expect(createJsonRpcError(null, { code: -32099, message: 'x' })).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32099, message: 'x' },
    });
    expect(createJsonRpcRequest(1, 'GetTask')).toEqual({ jsonrpc: '2.0', id: 1, method: 'GetTask' });
  });

  it('readJsonRpcResponse matches ids', () => {
    const ok = JSON.stringify(createJsonRpcSuccess(5, { id: 't' }));
    expect(readJsonRpcResponse(ok, 5)).toEqual({ kind: 'success', id: 5, result: { id: 't' } });
    expect(readJsonRpcResponse(ok)).toEqual({ kind: 'success', id: 5, result: { id: 't' } });
    expect(readJsonRpcResponse(ok, 6).kind).toBe('invalid');
    expect(readJsonRpcResponse(ok, '5').kind).toBe('invalid');
  });

  it('readJsonRpcResponse turns errors into their class; id null errors still answer the call', () => {
    const wire = createJsonRpcError(5, new TaskNotFoundError({ metadata: { taskId: 't' } }));
    const outcome = readJsonRpcResponse(wire, 5);
    expect(outcome.kind).toBe('error');
    if (outcome.kind !== 'error') return;
    expect(TaskNotFoundError.isInstance(outcome.error)).toBe(true);
    expect(outcome.error.metadata).toEqual({ taskId: 't' });
    expect(readJsonRpcResponse(createJsonRpcError(null, new JSONParseError()), 5).kind).toBe('error');
    expect(readJsonRpcResponse(wire, 6).kind).toBe('invalid');
    const noId = readJsonRpcResponse({ jsonrpc: '2.0', error: { code: -32001, message: 'gone' } }, 5);
    expect(noId.kind === 'error' && noId.id).toBe(null);
  });

  it.each([
    ['not JSON', '{'],
    ['array', '[]'],
    ['wrong version', { jsonrpc: '1.0', id: 1, result: {} }],
    ['neither result nor error', { jsonrpc: '2.0', id: 1 }],
    ['non-numeric error code', { jsonrpc: '2.0', id: 1, error: { code: 'x', message: 'm' } }],
    ['missing id', { jsonrpc: '2.0', result: {} }],
    ['object id', { jsonrpc: '2.0', id: { a: 1 }, result: {} }],
  ])('readJsonRpcResponse: %s is invalid', (_name, body) => {
    expect(readJsonRpcResponse(body, 1).kind).toBe('invalid');
  });
});
