import { describe, expect, it } from 'vitest';
import {
  AgentCardSchema,
  ListTasksResponseSchema,
  classifyJsonRpcRequest,
  OPERATIONS,
  SendMessageRequestSchema,
  SendMessageResponseSchema,
  StreamResponseSchema,
  fromRestError,
  matchRestRoute,
  parseWith,
  restRequestToParams,
} from '../src/index.js';
import * as ex from './fixtures/spec-v1-examples.js';

const roundTrip = (value: unknown): unknown => JSON.parse(JSON.stringify(value));

function expectRoundTrip(schema: Parameters<typeof parseWith>[0], input: unknown): unknown {
  const result = parseWith(schema, input);
  if (!result.success) throw new Error(result.error.message);
  expect(roundTrip(result.data)).toEqual(input);
  return result.data;
}

function violationFields(schema: Parameters<typeof parseWith>[0], input: unknown): string[] {
  const result = parseWith(schema, input);
  expect(result.success).toBe(false);
  return result.success ? [] : result.error.violations.map((v) => v.field);
}

describe('spec §6.1 basic task execution', () => {
  it('request and response parse and round-trip', () => {
    expectRoundTrip(SendMessageRequestSchema, ex.s6_1_request);
    expectRoundTrip(SendMessageResponseSchema, ex.s6_1_response);
  });
  it('the request path is SendMessage', () => {
    expect(matchRestRoute('POST', '/message:send')).toEqual({ method: 'SendMessage', pathParams: {} });
  });
});

describe('spec §6.2 streaming task execution', () => {
  it('request parses and round-trips', () => {
    expectRoundTrip(SendMessageRequestSchema, ex.s6_2_request);
    expect(matchRestRoute('POST', '/message:stream')?.method).toBe('SendStreamingMessage');
  });
  it('the first event (task without contextId) parses and round-trips', () => {
    expectRoundTrip(StreamResponseSchema, JSON.parse(ex.s6_2_stream[0]!));
  });
  // The spec abbreviates the update events: the proto marks TaskArtifactUpdateEvent.context_id,
  // TaskStatusUpdateEvent.context_id and Artifact.artifact_id REQUIRED, and the examples omit them.
  it('the abbreviated update events are rejected for their missing required fields', () => {
    expect(violationFields(StreamResponseSchema, JSON.parse(ex.s6_2_stream[1]!))).toEqual([
      'artifactUpdate.contextId',
      'artifactUpdate.artifact.artifactId',
    ]);
    expect(violationFields(StreamResponseSchema, JSON.parse(ex.s6_2_stream[2]!))).toEqual(['statusUpdate.contextId']);
  });
  it('the update events parse and round-trip once the required ids are filled in', () => {
    const artifact = JSON.parse(ex.s6_2_stream[1]!);
    artifact.artifactUpdate.contextId = 'ctx';
    artifact.artifactUpdate.artifact.artifactId = 'a1';
    expectRoundTrip(StreamResponseSchema, artifact);
    const status = JSON.parse(ex.s6_2_stream[2]!);
    status.statusUpdate.contextId = 'ctx';
    expectRoundTrip(StreamResponseSchema, status);
  });
});

describe('spec §6.3 multi-turn interaction', () => {
  it('initial and follow-up requests parse and round-trip', () => {
    expectRoundTrip(SendMessageRequestSchema, ex.s6_3_initial_request);
    expectRoundTrip(SendMessageRequestSchema, ex.s6_3_follow_up_request);
  });
  // The status message of the example has no messageId, which Message requires (spec §4.1.4).
  it('the input-required response is rejected for the missing status.message.messageId', () => {
    expect(violationFields(SendMessageResponseSchema, ex.s6_3_input_required_response)).toEqual(['task.status.message.messageId']);
    const fixed = structuredClone(ex.s6_3_input_required_response) as { task: { status: { message: Record<string, unknown> } } };
    fixed.task.status.message.messageId = 'm';
    expectRoundTrip(SendMessageResponseSchema, fixed);
  });
});

describe('spec §6.4 version negotiation error', () => {
  it('the request parses and round-trips', () => {
    expectRoundTrip(SendMessageRequestSchema, ex.s6_4_request);
  });
  // The example answers with application/problem+json, not the google.rpc.Status body of §11.6,
  // so no ErrorInfo reason is available: the client keeps the HTTP status on a generic error.
  it('the problem+json body reads as an unknown error that keeps the HTTP status', () => {
    const error = fromRestError(400, ex.s6_4_error_response);
    expect(error.reason).toBe('UNKNOWN');
    expect(error.httpStatus).toBe(400);
  });
});

describe('spec §6.5 task listing', () => {
  const listParams = (query: string) =>
    parseWith(OPERATIONS.ListTasks.params, restRequestToParams('ListTasks', { pathParams: {}, query: new URLSearchParams(query) }));

  it('the three list queries parse with coerced numbers', () => {
    const byContext = listParams(ex.s6_5_by_context_query);
    expect(byContext).toEqual({
      success: true,
      data: { contextId: 'c295ea44-7543-4f78-b524-7a38915ad6e4', pageSize: 10, historyLength: 3 },
    });
    expect(listParams(ex.s6_5_working_query)).toEqual({
      success: true,
      data: { status: 'TASK_STATE_WORKING', pageSize: 20 },
    });
    expect(listParams(ex.s6_5_pagination_query)).toMatchObject({
      success: true,
      data: { pageToken: 'base64-encoded-cursor-token' },
    });
  });
  it('the three responses parse and round-trip', () => {
    expectRoundTrip(ListTasksResponseSchema, ex.s6_5_by_context_response);
    expectRoundTrip(ListTasksResponseSchema, ex.s6_5_working_response);
    expectRoundTrip(ListTasksResponseSchema, ex.s6_5_pagination_response);
  });
  it('the validation-error query reports pageSize, historyLength and status', () => {
    const result = listParams(ex.s6_5_validation_error_query);
    expect(result.success).toBe(false);
    if (result.success) return;
    expect(result.error.violations.map((v) => v.field).sort()).toEqual(['historyLength', 'pageSize', 'status']);
  });
});

describe('spec §6.6 push notification setup', () => {
  it('request, response and webhook body parse and round-trip', () => {
    expectRoundTrip(SendMessageRequestSchema, ex.s6_6_request);
    expectRoundTrip(SendMessageResponseSchema, ex.s6_6_response);
    expectRoundTrip(StreamResponseSchema, ex.s6_6_webhook);
  });
});

describe('spec §6.7 file exchange', () => {
  // The example's raw value is truncated with "..." which is not base64.
  it('the truncated raw bytes are rejected at their exact path', () => {
    expect(violationFields(SendMessageRequestSchema, ex.s6_7_request)).toEqual(['message.parts[1].raw']);
  });
  it('parses and round-trips once the truncation is removed', () => {
    const fixed = structuredClone(ex.s6_7_request);
    fixed.message.parts[1] = { ...fixed.message.parts[1], raw: 'iVBORw0KGgoAAAANSUhEUgAAAAUA' } as (typeof fixed.message.parts)[1];
    expectRoundTrip(SendMessageRequestSchema, fixed);
  });
  it('the url-part response parses and round-trips', () => {
    expectRoundTrip(SendMessageResponseSchema, ex.s6_7_response);
  });
});

describe('spec §6.8 structured data exchange', () => {
  it('request (part metadata) and response (microsecond timestamp) parse and round-trip', () => {
    expectRoundTrip(SendMessageRequestSchema, ex.s6_8_request);
    expectRoundTrip(SendMessageResponseSchema, ex.s6_8_response);
  });
});

describe('spec §6.9 extended agent card', () => {
  // Both bodies are excerpts ("Response includes"), so the required card fields are absent.
  // Absent repeated fields (skills, default modes) read as [] since ProtoJSON omits empty ones.
  it('the public card excerpt lists every missing required field', () => {
    expect(violationFields(AgentCardSchema, ex.s6_9_public_card_excerpt).sort()).toEqual(
      ['description', 'name', 'supportedInterfaces', 'version'].sort(),
    );
  });
  it('the extended card excerpt lists every missing required field', () => {
    expect(violationFields(AgentCardSchema, ex.s6_9_extended_card_excerpt).sort()).toEqual(
      ['capabilities', 'description', 'supportedInterfaces', 'version'].sort(),
    );
  });
  it('the securitySchemes of the excerpt parse on a complete card', () => {
    const card = {
      ...ex.s6_9_public_card_excerpt,
      name: 'n',
      description: 'd',
      version: '1',
      supportedInterfaces: [{ url: 'https://a', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
      defaultInputModes: [],
      defaultOutputModes: [],
      skills: [],
    };
    expectRoundTrip(AgentCardSchema, card);
    expect(matchRestRoute('GET', '/extendedAgentCard')?.method).toBe('GetExtendedAgentCard');
  });
});

describe('spec §8.5 sample agent card', () => {
  it('parses; `security` (the proto calls it securityRequirements) is dropped, the rest round-trips', () => {
    const result = parseWith(AgentCardSchema, ex.s8_5_agent_card);
    expect(result.success).toBe(true);
    if (!result.success) return;
    expect(result.data).not.toHaveProperty('security');
    expect(result.data.securityRequirements).toBeUndefined();
    const { security: _dropped, ...withoutSecurity } = ex.s8_5_agent_card;
    expect(roundTrip(result.data)).toEqual(withoutSecurity);
  });
  it('the v1.0 spelling of the same requirement round-trips', () => {
    const { security: _dropped, ...rest } = ex.s8_5_agent_card;
    const card = { ...rest, securityRequirements: [{ schemes: { google: { list: ['openid', 'profile', 'email'] } } }] };
    expectRoundTrip(AgentCardSchema, card);
  });
});

describe('spec §6 request bodies as JSON-RPC calls', () => {
  it.each([
    ['§6.1', ex.s6_1_request],
    ['§6.3 initial', ex.s6_3_initial_request],
    ['§6.3 follow-up', ex.s6_3_follow_up_request],
    ['§6.4', ex.s6_4_request],
    ['§6.6', ex.s6_6_request],
    ['§6.8', ex.s6_8_request],
  ])('%s classifies as SendMessage with the body as params', (_name, body) => {
    const outcome = classifyJsonRpcRequest(JSON.stringify({ jsonrpc: '2.0', id: 'req', method: 'SendMessage', params: body }));
    expect(outcome).toEqual({ kind: 'request', id: 'req', method: 'SendMessage', params: body });
  });
  it('§6.2 classifies as SendStreamingMessage; §6.7 reports the truncated bytes as invalid params', () => {
    const stream = classifyJsonRpcRequest({ jsonrpc: '2.0', id: 1, method: 'SendStreamingMessage', params: ex.s6_2_request });
    expect(stream.kind === 'request' && stream.method).toBe('SendStreamingMessage');
    const file = classifyJsonRpcRequest({ jsonrpc: '2.0', id: 2, method: 'SendMessage', params: ex.s6_7_request });
    expect(file.kind === 'error' && file.error.code).toBe(-32602);
    expect(file.kind === 'error' && file.error.fieldViolations.map((v) => v.field)).toEqual(['message.parts[1].raw']);
  });
});
