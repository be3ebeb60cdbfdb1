import { type BudgetLedger, createInMemoryBudgetLedger, Governor, readTaskContext } from '@a2aplane/a2a-governance';
import { ServiceUnavailableError, type Task } from '@a2aplane/a2a-types';
import { afterEach, describe, expect, it } from 'vitest';
import { type AgentExecutor, createA2AServer, createTaskUpdater, type RateLimiter } from '../src/index.js';
import { echoExecutor, rest, rpc, startServer, type TestServer, testCard } from './helpers.js';

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const reasonOf = (body: Record<string, unknown>): string | undefined =>
  ((body.error as { data?: Array<{ reason?: string }> } | undefined)?.data ?? []).find((d) => d.reason)?.reason;

describe('a shared (async) rate limiter', () => {
  it('is awaited: an async refusal is RATE_LIMITED with Retry-After, an async grant serves the request', async () => {
    let allow = false;
    const limiter: RateLimiter = { take: async () => (allow ? { ok: true } : { ok: false, retryAfterSeconds: 4 }) };
    server = await startServer({ executor: echoExecutor, rateLimiter: limiter });
    const limited = await rpc(server.url, 'ListTasks', {});
    expect(reasonOf(limited.body)).toBe('RATE_LIMITED');
    expect(limited.headers.get('retry-after')).toBe('4');
    allow = true;
    expect((await rpc(server.url, 'ListTasks', {})).body.result).toBeDefined();
  });

  it('a limiter whose backend is down fails the request with 503 SERVICE_UNAVAILABLE (JSON-RPC -32000), and the server keeps serving', async () => {
    let down = true;
    const limiter: RateLimiter = {
      take: () =>
        down
          ? Promise.reject(new ServiceUnavailableError({ message: 'rate limiter unavailable', metadata: { backend: 'redis' } }))
          : Promise.resolve({ ok: true }),
    };
    server = await startServer({ executor: echoExecutor, rateLimiter: limiter });
    const viaRpc = await rpc(server.url, 'ListTasks', {});
    expect((viaRpc.body.error as { code: number }).code).toBe(-32000);
    expect(reasonOf(viaRpc.body)).toBe('SERVICE_UNAVAILABLE');
    const viaRest = await rest(server.url, 'GET', '/tasks');
    expect(viaRest.status).toBe(503);
    down = false;
    expect((await rest(server.url, 'GET', '/tasks')).status).toBe(200);
  });
});

describe('a budget cut from an async ledger', () => {
  it('ends the task FAILED with BUDGET_EXCEEDED when the async reserveMore refuses', async () => {
    const inner = createInMemoryBudgetLedger({ maxUsdPerMinute: 0.05 });
    const budget: BudgetLedger = {
      acquire: async (request, signal) => inner.acquire(request, signal),
      reserveMore: async (ticket, more) => inner.reserveMore?.(ticket, more) === true,
      meter: async (ticket, actual) => inner.meter(ticket, actual),
      snapshot: () => inner.snapshot(),
    };
    const governor = new Governor({ selfAgentId: 'self', budget, estimateCost: () => 0.01 });
    const executor: AgentExecutor = {
      async execute(context, events) {
        const task = createTaskUpdater(context, events);
        task.submit();
        task.startWork('working');
        for (const usd of [0.01, 0.02, 0.1]) {
          events.reportUsage({ usd });
          await new Promise((resolve) => setTimeout(resolve, 5));
        }
        task.complete();
      },
    };
    const a2a = createA2AServer({ card: testCard(), executor, governance: { admit: (input) => governor.admit(input), readTaskContext } });
    const response = await a2a.handle({
      method: 'SendMessage',
      params: { message: { messageId: 'm1', role: 'ROLE_USER', parts: [{ text: 'x' }], metadata: { skillId: 'echo' } } },
      version: '1.0',
    });
    const taskId = (response as { result: { task: Task } }).result.task.id;
    await new Promise((resolve) => setTimeout(resolve, 60));
    const stored = (await a2a.store.get({ tenant: '', taskId }))!.task;
    expect(stored.status.state).toBe('TASK_STATE_FAILED');
    const info = stored.status.message?.parts.find((part) => part.data !== undefined)?.data as { reason: string } | undefined;
    expect(info?.reason).toBe('BUDGET_EXCEEDED');
    expect(inner.snapshot()).toMatchObject({ inFlight: 0, reserved: { usd: 0 } });
    await a2a.close();
  });
});
