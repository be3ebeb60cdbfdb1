import {
  type A2AError,
  BudgetExceededError,
  ContentTypeNotSupportedError,
  ExtendedAgentCardNotConfiguredError,
  ExtensionSupportRequiredError,
  ForbiddenError,
  InvalidAgentResponseError,
  InvalidParamsError,
  PolicyViolationError,
  PushNotificationNotSupportedError,
  RateLimitedError,
  RecursionLimitError,
  TaskNotCancelableError,
  TaskNotFoundError,
  UnauthenticatedError,
  UnsupportedOperationError,
  VersionNotSupportedError,
} from '@a2aplane/a2a-types';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AgentExecutor, createTaskUpdater } from '../src/index.js';
import { rest, rpc, startServer, type TestServer, userMessage } from './helpers.js';

/** Spec §5.4 table plus the control-plane rows of the architecture guide. */
const TABLE: [string, () => A2AError, number, number][] = [
  ['TaskNotFoundError', () => new TaskNotFoundError(), -32001, 404],
  ['TaskNotCancelableError', () => new TaskNotCancelableError(), -32002, 400],
  ['PushNotificationNotSupportedError', () => new PushNotificationNotSupportedError(), -32003, 400],
  ['UnsupportedOperationError', () => new UnsupportedOperationError(), -32004, 400],
  ['ContentTypeNotSupportedError', () => new ContentTypeNotSupportedError(), -32005, 400],
  ['InvalidAgentResponseError', () => new InvalidAgentResponseError(), -32006, 500],
  ['ExtendedAgentCardNotConfiguredError', () => new ExtendedAgentCardNotConfiguredError(), -32007, 400],
  ['ExtensionSupportRequiredError', () => new ExtensionSupportRequiredError(), -32008, 400],
  ['VersionNotSupportedError', () => new VersionNotSupportedError(), -32009, 400],
  ['InvalidParamsError', () => new InvalidParamsError(), -32602, 400],
  ['BudgetExceededError', () => new BudgetExceededError({ retryAfterSeconds: 2 }), -32000, 429],
  ['RateLimitedError', () => new RateLimitedError({ retryAfterSeconds: 2 }), -32000, 429],
  ['RecursionLimitError', () => new RecursionLimitError(), -32000, 403],
  ['PolicyViolationError', () => new PolicyViolationError(), -32000, 403],
  ['UnauthenticatedError', () => new UnauthenticatedError(), -32000, 401],
  ['ForbiddenError', () => new ForbiddenError(), -32000, 403],
];

let server: TestServer;
beforeAll(async () => {
  // The executor rejects with the error named in the message text, before publishing anything.
  const executor: AgentExecutor = {
    async execute(context, events) {
      const name = context.message.parts[0]?.text;
      const row = TABLE.find(([n]) => n === name);
      if (row) throw row[1]();
      createTaskUpdater(context, events).complete();
    },
  };
  server = await startServer({ executor });
});
afterAll(async () => {
  await server.close();
});

describe('error mapping on both bindings (spec §5.4, §9.5, §11.6)', () => {
  it.each(TABLE)('%s -> JSON-RPC %i, HTTP %i', async (name, _make, code, status) => {
    const viaRpc = await rpc(server.url, 'SendMessage', { message: userMessage(name) });
    const error = viaRpc.body.error as { code: number; data: { reason: string }[] };
    expect(error.code).toBe(code);
    const viaRest = await rest(server.url, 'POST', '/message:send', { message: userMessage(name) });
    expect(viaRest.status).toBe(status);
    const body = viaRest.body.error as { code: number; details: { reason: string }[] };
    expect(body.code).toBe(status);
    expect(body.details[0]?.reason).toBe(error.data[0]?.reason);
    if (status === 429) expect(viaRest.headers.get('retry-after')).toBe('2');
  });
});
