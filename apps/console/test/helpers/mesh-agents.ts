import type { IncomingMessage, ServerResponse } from 'node:http';
import { createA2AClient } from '@a2aplane/a2a-client';
import { createRemoteExecutorFactory } from '@a2aplane/a2a-client/routing';
import { createGovernor, createInMemoryBudgetLedger, RecursionPolicy } from '@a2aplane/a2a-governance';
import { agentIdFromPublicKey, generateKeyPair } from '@a2aplane/a2a-identity';
import { createClientInterceptors, createServerInstrumentation } from '@a2aplane/a2a-otel';
import { Dispatcher, lowestLatency, PeerPool } from '@a2aplane/a2a-routing';
import {
  type AgentExecutor,
  createA2AServer,
  createAgentCard,
  createNodeHttpHandler,
  createTaskUpdater,
} from '@a2aplane/a2a-server-express';
import { context } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { BasicTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { closeServer, listen, type TestAgent } from './agents.js';

// Two agents instrumented with a2a-otel, exporting through the standard OTLP/HTTP exporter to the
// console's /v1/traces: A delegates to B twice through a governed Dispatcher; B's budget (0.05 USD
// a minute, 0.03 reserved and spent per task) admits the first and refuses the second.

export interface TracedMesh {
  a: TestAgent & { agentId: string };
  b: TestAgent & { agentId: string };
  /** Sends one task to A; answers once every span is exported. */
  delegate(): Promise<void>;
  close(): Promise<void>;
}

const userMessage = (text: string) => ({ message: { messageId: crypto.randomUUID(), role: 'ROLE_USER' as const, parts: [{ text }] } });
type Listener = (req: IncomingMessage, res: ServerResponse) => void;
const unavailable: Listener = (_req, res) => res.writeHead(503).end();
const SKILL = { id: 'work', name: 'Work', description: 'does work', tags: [] };

export async function startTracedMesh(consoleUrl: string): Promise<TracedMesh> {
  const contextManager = new AsyncLocalStorageContextManager().enable();
  context.setGlobalContextManager(contextManager);
  const tracerProvider = new BasicTracerProvider({
    spanProcessors: [new SimpleSpanProcessor(new OTLPTraceExporter({ url: `${consoleUrl}/v1/traces` }))],
  });
  const idB = agentIdFromPublicKey(generateKeyPair('EdDSA').publicKey);
  const idA = agentIdFromPublicKey(generateKeyPair('EdDSA').publicKey);

  const instrumentationB = createServerInstrumentation({ tracerProvider, agentId: idB, agentName: 'agent B' });
  const executorB: AgentExecutor = {
    async execute(ctx, events) {
      const task = createTaskUpdater(ctx, events);
      task.submit();
      events.reportUsage({ usd: 0.03, tokens: 800 });
      task.complete('done');
    },
  };
  let handlerB: Listener = unavailable;
  const httpB = await listen((req, res) => handlerB(req, res));
  const cardB = createAgentCard({ baseUrl: httpB.url, name: 'agent B', description: 'does work within its budget', skills: [SKILL] });
  const serverB = createA2AServer({
    card: cardB,
    executor: executorB,
    instrumentation: instrumentationB,
    governance: createGovernor({
      selfAgentId: idB,
      budget: createInMemoryBudgetLedger({ maxTasksPerMinute: 100, maxUsdPerMinute: 0.05 }),
      estimateCost: () => 0.03,
      recursion: new RecursionPolicy(),
      hooks: instrumentationB.governanceHooks,
    }),
  });
  handlerB = createNodeHttpHandler(serverB, { heartbeatMs: 0 });

  const instrumentationA = createServerInstrumentation({ tracerProvider, agentId: idA, agentName: 'agent A' });
  const clientB = createA2AClient({ card: cardB, allowInsecureLoopback: true, interceptors: createClientInterceptors({ tracerProvider }) });
  const pool = new PeerPool();
  pool.upsert(idB, cardB);
  const dispatcher = new Dispatcher({
    selfAgentId: idA,
    pool,
    selector: lowestLatency(),
    remoteExecutor: createRemoteExecutorFactory({ clientFor: () => clientB }),
    recursion: new RecursionPolicy(),
    hooks: instrumentationA.governanceHooks,
  });
  const executorA: AgentExecutor = {
    async execute(ctx, events) {
      const task = createTaskUpdater(ctx, events);
      task.submit();
      for (const text of ['first part', 'second part']) {
        await dispatcher
          .dispatch({
            request: userMessage(text),
            task: { skillId: 'work' },
            caller: idA,
            context: ctx.taskContext as never,
            parentTaskId: ctx.taskId,
          })
          .catch(() => undefined);
      }
      events.reportUsage({ usd: 0.01 });
      task.complete('delegated');
    },
  };
  let handlerA: Listener = unavailable;
  const httpA = await listen((req, res) => handlerA(req, res));
  const serverA = createA2AServer({
    card: createAgentCard({ baseUrl: httpA.url, name: 'agent A', description: 'delegates to B', skills: [SKILL] }),
    executor: executorA,
    instrumentation: instrumentationA,
    governance: createGovernor({ selfAgentId: idA, recursion: new RecursionPolicy(), hooks: instrumentationA.governanceHooks }),
  });
  handlerA = createNodeHttpHandler(serverA, { heartbeatMs: 0 });
  const clientA = createA2AClient({ card: serverA.card, allowInsecureLoopback: true });

  return {
    a: { url: httpA.url, agentId: idA, close: async () => undefined },
    b: { url: httpB.url, agentId: idB, close: async () => undefined },
    async delegate() {
      await clientA.sendMessage(userMessage('split this work'));
      await tracerProvider.forceFlush();
    },
    async close() {
      await tracerProvider.shutdown();
      await serverA.close();
      await serverB.close();
      await closeServer(httpA.server);
      await closeServer(httpB.server);
      context.disable();
    },
  };
}
