import { getEventListeners } from 'node:events';
import { createInMemoryBudgetLedger, Governor, readTaskContext, RecursionPolicy, TaskPolicyEngine } from '@a2aplane/a2a-governance';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type AgentExecutor,
  createPushSender,
  createTaskUpdater,
  createTokenBucketRateLimiter,
  type GovernanceOptions,
  type RequestContext,
} from '../src/index.js';
import { echoExecutor, rest, rpc, startServer, type TestServer, userMessage } from './helpers.js';

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

type Json = Record<string, unknown>;
const reasonOf = (body: Json) => ((body.error as { data: Json[] }).data[0] as { reason: string }).reason;

function recordingExecutor(): { executor: AgentExecutor; contexts: RequestContext[] } {
  const contexts: RequestContext[] = [];
  return {
    contexts,
    executor: {
      async execute(context, events) {
        contexts.push(context);
        events.reportUsage({ tokens: 10, usd: 0.01 });
        const t = createTaskUpdater(context, events);
        t.submit();
        t.complete();
      },
    },
  };
}

describe('governance plug-in (ADR-159 dispatch pipeline)', () => {
  it('admitted tasks get the child TaskContext and a governed signal; finish() gets the reported usage', async () => {
    const finished: { usd?: number; tokens?: number }[] = [];
    const admitted: string[] = [];
    const governance: GovernanceOptions = {
      async admit(input) {
        admitted.push(`${input.caller}:${input.skill}:${input.incoming?.depth ?? 'root'}`);
        return {
          context: { traceId: 'a'.repeat(32), depth: (input.incoming?.depth ?? -1) + 1, rootAgentId: 'root', visitedAgents: ['self'] },
          signal: new AbortController().signal,
          meterTokens: () => undefined,
          finish: async (usage) => {
            finished.push(usage);
          },
        };
      },
      readTaskContext,
    };
    const { executor, contexts } = recordingExecutor();
    server = await startServer({ executor, governance });
    const { body } = await rpc(server.url, 'SendMessage', { message: userMessage('x', { metadata: { skillId: 'echo' } }) });
    expect(body.result).toBeDefined();
    expect(admitted).toEqual(['anonymous:echo:root']);
    expect(contexts[0]?.taskContext?.depth).toBe(0);
    for (let i = 0; i < 50 && finished.length === 0; i++) await new Promise((r) => setTimeout(r, 5));
    expect(finished).toEqual([{ tokens: 10, usd: 0.01 }]);
  });

  it('leaves no listener behind on a long-lived governor signal once tasks end', async () => {
    const shared = new AbortController().signal;
    let finished = 0;
    const governance: GovernanceOptions = {
      async admit() {
        return {
          context: { traceId: 'b'.repeat(32), depth: 0, rootAgentId: 'self', visitedAgents: ['self'] },
          signal: shared,
          meterTokens: () => undefined,
          finish: async () => {
            finished += 1;
          },
        };
      },
      readTaskContext,
    };
    server = await startServer({ executor: echoExecutor, governance });
    for (let i = 0; i < 20; i++) await rpc(server.url, 'SendMessage', { message: userMessage(`m${i}`) });
    for (let i = 0; i < 100 && finished < 20; i++) await new Promise((r) => setTimeout(r, 5));
    expect(finished).toBe(20);
    expect(getEventListeners(shared, 'abort')).toHaveLength(0);
  });

  it('a malformed message.metadata.ruvector.context is InvalidParamsError and never reaches the executor', async () => {
    const { executor, contexts } = recordingExecutor();
    server = await startServer({
      executor,
      governance: { admit: new Governor({ selfAgentId: 'self' }).admit.bind(new Governor({ selfAgentId: 'self' })), readTaskContext },
    });
    const { body } = await rpc(server.url, 'SendMessage', {
      message: userMessage('x', { metadata: { ruvector: { context: { trace_id: 42 } } } }),
    });
    expect((body.error as Json).code).toBe(-32602);
    expect(contexts).toHaveLength(0);
  });

  it('budget, recursion and policy rejections never reach the executor', async () => {
    const cases: { governor: Governor; message: ReturnType<typeof userMessage>; reason: string; warmup?: boolean }[] = [
      {
        governor: new Governor({ selfAgentId: 'self', policy: new TaskPolicyEngine({ default: { allowedSkills: ['echo'] } }) }),
        message: userMessage('x', { metadata: { skillId: 'forbidden' } }),
        reason: 'POLICY_VIOLATION',
      },
      {
        governor: new Governor({ selfAgentId: 'self', recursion: new RecursionPolicy({ maxCallDepth: 1 }) }),
        message: userMessage('x', {
          metadata: {
            ruvector: { context: { trace_id: 'ab'.repeat(16), depth: 1, root_agent_id: 'root', visited_agents: ['root', 'mid'] } },
          },
        }),
        reason: 'RECURSION_LIMIT',
      },
      {
        governor: new Governor({ selfAgentId: 'self', budget: createInMemoryBudgetLedger({ maxTasksPerMinute: 1 }) }),
        message: userMessage('x'),
        reason: 'BUDGET_EXCEEDED',
        warmup: true,
      },
    ];
    for (const testCase of cases) {
      const { executor, contexts } = recordingExecutor();
      server = await startServer({ executor, governance: { admit: (input) => testCase.governor.admit(input), readTaskContext } });
      if (testCase.warmup) await rpc(server.url, 'SendMessage', { message: userMessage('warm') });
      const before = contexts.length;
      const { body } = await rpc(server.url, 'SendMessage', { message: testCase.message });
      expect(reasonOf(body)).toBe(testCase.reason);
      expect((body.error as Json).code).toBe(-32000);
      expect(contexts.length).toBe(before);
      const viaRest = await rest(server.url, 'POST', '/message:send', { message: testCase.message });
      expect([403, 429]).toContain(viaRest.status);
      await server.close();
      server = undefined;
    }
  });

  it('rate limiter and push sender from server-extras plug into the options', async () => {
    const pushed: unknown[] = [];
    const pushSender = createPushSender({
      fetch: (async (_url: string, init: RequestInit) => {
        pushed.push(JSON.parse(String(init.body)));
        return new Response(null, { status: 200 });
      }) as typeof fetch,
      ssrf: { resolve: async () => ['93.184.216.34'] },
    });
    server = await startServer({
      executor: echoExecutor,
      rateLimiter: createTokenBucketRateLimiter({ capacity: 3, refillPerSecond: 0.001 }),
      pushSender,
    });
    const sent = await rest(server.url, 'POST', '/message:send', {
      message: userMessage('x'),
      configuration: { taskPushNotificationConfig: { url: 'https://hook.example.com/x' } },
    });
    expect(sent.status).toBe(200);
    await rest(server.url, 'GET', '/tasks');
    await rest(server.url, 'GET', '/tasks');
    const limited = await rest(server.url, 'GET', '/tasks');
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    await pushSender.flush();
    expect(pushed.length).toBeGreaterThan(0);
  });
});
