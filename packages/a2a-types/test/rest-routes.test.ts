import { describe, expect, it } from 'vitest';
import {
  A2A_METHODS,
  type A2AMethod,
  OPERATIONS,
  buildRestPath,
  matchRestRoute,
  paramsToRestRequest,
  parseOperationParams,
  parseWith,
  restRequestToParams,
} from '../src/index.js';

// Spec §11.3 / a2a.proto http rules: one path per operation.
const ROUTES: [A2AMethod, string, string, Record<string, string>][] = [
  ['SendMessage', 'POST', '/message:send', {}],
  ['SendStreamingMessage', 'POST', '/message:stream', {}],
  ['GetTask', 'GET', '/tasks/t-1', { id: 't-1' }],
  ['ListTasks', 'GET', '/tasks', {}],
  ['CancelTask', 'POST', '/tasks/t-1:cancel', { id: 't-1' }],
  ['SubscribeToTask', 'GET', '/tasks/t-1:subscribe', { id: 't-1' }],
  ['CreateTaskPushNotificationConfig', 'POST', '/tasks/t-1/pushNotificationConfigs', { taskId: 't-1' }],
  ['GetTaskPushNotificationConfig', 'GET', '/tasks/t-1/pushNotificationConfigs/c-1', { taskId: 't-1', id: 'c-1' }],
  ['ListTaskPushNotificationConfigs', 'GET', '/tasks/t-1/pushNotificationConfigs', { taskId: 't-1' }],
  ['DeleteTaskPushNotificationConfig', 'DELETE', '/tasks/t-1/pushNotificationConfigs/c-1', { taskId: 't-1', id: 'c-1' }],
  ['GetExtendedAgentCard', 'GET', '/extendedAgentCard', {}],
];

describe('matchRestRoute (spec §11.3)', () => {
  it('the table covers all eleven operations', () => {
    expect(ROUTES.map(([method]) => method).sort()).toEqual([...A2A_METHODS].sort());
  });
  it.each(ROUTES)('%s without tenant', (method, verb, path, pathParams) => {
    expect(matchRestRoute(verb, path)).toEqual({ method, pathParams });
    expect(matchRestRoute(verb.toLowerCase(), path)).toEqual({ method, pathParams });
    expect(buildRestPath(method, pathParams)).toBe(path);
  });
  it.each(ROUTES)('%s with a /{tenant} prefix', (method, verb, path, pathParams) => {
    expect(matchRestRoute(verb, `/acme${path}`)).toEqual({ method, pathParams, tenant: 'acme' });
    expect(buildRestPath(method, pathParams, 'acme')).toBe(`/acme${path}`);
  });
  it('percent-encoded ids, tenants and ids containing ":" or "/"', () => {
    expect(matchRestRoute('GET', '/tasks/a%3Ab')).toEqual({ method: 'GetTask', pathParams: { id: 'a:b' } });
    expect(matchRestRoute('POST', '/tasks/a%3Ab:cancel')).toEqual({ method: 'CancelTask', pathParams: { id: 'a:b' } });
    expect(matchRestRoute('GET', '/tasks/a%2Fb')).toEqual({ method: 'GetTask', pathParams: { id: 'a/b' } });
    expect(matchRestRoute('GET', '/t%20x/tasks/%E2%9C%93')).toEqual({
      method: 'GetTask',
      pathParams: { id: '✓' },
      tenant: 't x',
    });
    expect(buildRestPath('CancelTask', { id: 'a:b/c' }, 'my tenant')).toBe('/my%20tenant/tasks/a%3Ab%2Fc:cancel');
    expect(matchRestRoute('GET', '/tasks/%E0%A4%A')).toBeUndefined();
  });
  it('a tenant literally named "tasks" does not shadow GetTask', () => {
    expect(matchRestRoute('GET', '/tasks/tasks')).toEqual({ method: 'GetTask', pathParams: { id: 'tasks' } });
    expect(matchRestRoute('GET', '/tasks/tasks/x')).toEqual({ method: 'GetTask', pathParams: { id: 'x' }, tenant: 'tasks' });
  });
  it('wrong verb reports the allowed verbs', () => {
    expect(matchRestRoute('DELETE', '/message:send')).toEqual({ allowedVerbs: ['POST'] });
    expect(matchRestRoute('POST', '/tasks/t-1')).toEqual({ allowedVerbs: ['GET'] });
    expect(matchRestRoute('PUT', '/tasks/t-1/pushNotificationConfigs/c-1')).toEqual({ allowedVerbs: ['GET', 'DELETE'] });
    expect(matchRestRoute('GET', '/acme/tasks/t-1:cancel')).toEqual({ allowedVerbs: ['POST'] });
  });
  it('subscribe accepts GET (proto) and POST (spec §5.3 table)', () => {
    expect(OPERATIONS.SubscribeToTask.rest.verb).toBe('GET');
    expect(matchRestRoute('GET', '/tasks/t-1:subscribe')?.method).toBe('SubscribeToTask');
    expect(matchRestRoute('POST', '/tasks/t-1:subscribe')?.method).toBe('SubscribeToTask');
    expect(matchRestRoute('DELETE', '/tasks/t-1:subscribe')).toEqual({ allowedVerbs: ['GET', 'POST'] });
  });
  it('unknown paths match nothing', () => {
    for (const path of ['/', '/nope', '/tasks/t-1:explode', '/a/b/c/d/e/f', '/message:send/extra', '/tasks/:cancel']) {
      expect(matchRestRoute('GET', path)).toBeUndefined();
    }
  });
  it('buildRestPath throws TypeError for a missing path parameter (programmer error)', () => {
    expect(() => buildRestPath('GetTask', {})).toThrow(TypeError);
  });
});

describe('restRequestToParams / paramsToRestRequest (spec §11.5)', () => {
  it("reads only the body's own fields: a message under __proto__ is not a message", () => {
    const body = JSON.parse('{"__proto__":{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"text":"hi"}]}}}') as unknown;
    const params = restRequestToParams('SendMessage', { pathParams: {}, body }) as Record<string, unknown>;
    expect(params.message).toBeUndefined();
    expect(Object.getPrototypeOf(params)).toBe(Object.prototype);
    expect(parseOperationParams('SendMessage', params).success).toBe(false);
  });

  const roundTrips: [A2AMethod, Record<string, unknown>][] = [
    ['SendMessage', { tenant: 'acme', message: { messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'hi' }] } }],
    ['SendStreamingMessage', { message: { messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'hi' }] }, metadata: { a: 1 } }],
    ['GetTask', { tenant: 'acme', id: 't:1', historyLength: 5 }],
    [
      'ListTasks',
      {
        contextId: 'c',
        status: 'TASK_STATE_WORKING',
        pageSize: 10,
        pageToken: 'p',
        historyLength: 0,
        statusTimestampAfter: '2025-01-01T00:00:00Z',
        includeArtifacts: true,
      },
    ],
    ['CancelTask', { id: 't-1', metadata: { why: 'done' } }],
    ['SubscribeToTask', { tenant: 'acme', id: 't-1' }],
    ['CreateTaskPushNotificationConfig', { taskId: 't-1', url: 'https://hook', token: 'tok', id: 'c' }],
    ['GetTaskPushNotificationConfig', { taskId: 't-1', id: 'c-1' }],
    ['ListTaskPushNotificationConfigs', { taskId: 't-1', pageSize: 3, pageToken: 'x' }],
    ['DeleteTaskPushNotificationConfig', { tenant: 'acme', taskId: 't-1', id: 'c-1' }],
    ['GetExtendedAgentCard', { tenant: 'acme' }],
  ];
  it.each(roundTrips)('%s round-trips through the REST parts', (method, params) => {
    const request = paramsToRestRequest(method, params);
    expect(request.verb).toBe(OPERATIONS[method].rest.verb);
    // Simulate the wire: the query as text, the body as JSON.
    const url = new URL(`http://h${request.path}?${request.query.toString()}`);
    const match = matchRestRoute(request.verb, url.pathname);
    expect(match?.method).toBe(method);
    if (!match?.method) return;
    const body = request.body === undefined ? undefined : JSON.parse(JSON.stringify(request.body));
    const rebuilt = restRequestToParams(method, {
      pathParams: match.pathParams,
      ...(match.tenant !== undefined ? { tenant: match.tenant } : {}),
      query: url.searchParams,
      body,
    });
    expect(rebuilt).toEqual(params);
    expect(parseWith(OPERATIONS[method].params, rebuilt).success).toBe(true);
  });
  it('coerces query strings by kind', () => {
    const params = restRequestToParams('ListTasks', {
      pathParams: {},
      query: new URLSearchParams('historyLength=5&includeArtifacts=true&pageSize=abc&status=TASK_STATE_FAILED&ignored=1'),
    });
    expect(params).toEqual({ historyLength: 5, includeArtifacts: true, pageSize: 'abc', status: 'TASK_STATE_FAILED' });
    const parsed = parseWith(OPERATIONS.ListTasks.params, params);
    expect(parsed.success ? [] : parsed.error.violations.map((v) => v.field)).toEqual(['pageSize']);
    expect(restRequestToParams('ListTasks', { pathParams: {}, query: new URLSearchParams('includeArtifacts=false') })).toEqual({
      includeArtifacts: false,
    });
  });
  it('path parameters and tenant win over body fields', () => {
    expect(restRequestToParams('CancelTask', { pathParams: { id: 'real' }, tenant: 't', body: { id: 'fake', tenant: 'x' } })).toEqual({
      id: 'real',
      tenant: 't',
    });
  });
  it('a non-object POST body is passed through for the schema to reject', () => {
    expect(restRequestToParams('SendMessage', { pathParams: {}, body: [1] })).toEqual([1]);
  });
  it('GET operations put no body on the wire', () => {
    expect(paramsToRestRequest('GetTask', { id: 't', historyLength: 2 }).body).toBeUndefined();
    expect(paramsToRestRequest('GetTask', { id: 't', historyLength: 2 }).query.toString()).toBe('historyLength=2');
  });
});
