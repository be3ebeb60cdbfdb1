import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRootContext } from '@a2aplane/a2a-governance';
import { createLocalExecutor, Dispatcher, type Executor, lowestLatency, PeerPool } from '@a2aplane/a2a-routing';
import {
  type A2AServer,
  type AgentExecutor,
  createA2AServer,
  createAgentCard,
  createNodeHttpHandler,
  createTaskUpdater,
} from '@a2aplane/a2a-server-express';
import type { Task } from '@a2aplane/a2a-types';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createA2AClient } from '../../src/index.js';
import { createRemoteExecutor, createRemoteExecutorFactory } from '../../src/routing/index.js';

// Works until its signal aborts, then stops without a word: the server decides the final state.
const executor: AgentExecutor = {
  async execute(context, events) {
    const task = createTaskUpdater(context, events);
    task.submit();
    task.startWork('working');
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, 2000);
      context.signal.addEventListener('abort', () => {
        clearTimeout(timer);
        resolve();
      });
    });
    if (context.signal.aborted) return;
    task.complete();
  },
};

let http: Server;
let remoteServer: A2AServer;
let localServer: A2AServer;
let url: string;

beforeAll(async () => {
  http = createServer();
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  const card = createAgentCard({
    baseUrl: url,
    name: 'worker',
    description: 'w',
    skills: [{ id: 'work', name: 'Work', description: 'w', tags: [] }],
    capabilities: { streaming: true },
  });
  remoteServer = createA2AServer({ card, executor });
  localServer = createA2AServer({ card, executor });
  http.on('request', createNodeHttpHandler(remoteServer, { heartbeatMs: 0 }));
});

afterAll(async () => {
  await remoteServer.close();
  await localServer.close();
  http.closeAllConnections();
  await new Promise<void>((resolve) => http.close(() => resolve()));
});

const context = { traceId: '4bf92f3577b34da6a3ce929d0e0e4736', depth: 0, rootAgentId: 'root', visitedAgents: ['root'] };

/** Runs until WORKING, aborts, and returns the task id the stream named and how execute ended. */
async function abortMidTask(executorUnderTest: Executor): Promise<{ taskId: string; error: unknown }> {
  const controller = new AbortController();
  let taskId = '';
  const error = await executorUnderTest
    .execute({
      request: { message: { messageId: globalThis.crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text: 'go' }] } },
      context,
      signal: controller.signal,
      onUpdate: (update) => {
        taskId ||= update.task?.id ?? '';
        if (update.statusUpdate?.status.state === 'TASK_STATE_WORKING') controller.abort();
      },
    })
    .then(
      () => undefined,
      (e: unknown) => e,
    );
  return { taskId, error };
}

describe('cancel parity (ADR-159 acceptance 1: no divergent cancellation semantics)', () => {
  it('aborting a local and a remote execution mid-task ends both tasks CANCELED before execute rejects', async () => {
    const local = await abortMidTask(createLocalExecutor(localServer));
    const remote = await abortMidTask(createRemoteExecutor(createA2AClient({ baseUrl: url })));
    expect((local.error as Error).name).toBe('AbortError');
    expect((remote.error as Error).name).toBe('AbortError');
    const localTask = (await localServer.store.get({ tenant: '', taskId: local.taskId }))?.task as Task;
    const remoteTask = (await remoteServer.store.get({ tenant: '', taskId: remote.taskId }))?.task as Task;
    expect(localTask.status.state).toBe('TASK_STATE_CANCELED');
    expect(remoteTask.status.state).toBe('TASK_STATE_CANCELED');
  });

  it("aborting a dispatch cancels the remote peer's task (CancelTask) and the fallback's local task alike", async () => {
    const client = createA2AClient({ baseUrl: url });
    const card = await client.getCard();
    const withPeer = new PeerPool();
    withPeer.upsert('worker', card);
    const remoteDispatcher = new Dispatcher({
      selfAgentId: 'self',
      pool: withPeer,
      selector: lowestLatency(),
      remoteExecutor: createRemoteExecutorFactory({ clientFor: () => client }),
    });
    const localDispatcher = new Dispatcher({
      selfAgentId: 'self',
      pool: new PeerPool(),
      selector: lowestLatency(),
      remoteExecutor: createRemoteExecutorFactory({ clientFor: () => client }),
      fallback: createLocalExecutor(localServer),
    });
    const outcomes: Array<{ executor: string; taskId: string; error: unknown }> = [];
    for (const [name, dispatcher] of [
      ['remote', remoteDispatcher],
      ['local', localDispatcher],
    ] as const) {
      const controller = new AbortController();
      let taskId = '';
      const error = await dispatcher
        .dispatch({
          request: { message: { messageId: globalThis.crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text: 'go' }] } },
          task: { skillId: 'work' },
          caller: 'tester',
          context: createRootContext({ rootAgentId: 'self' }),
          signal: controller.signal,
          onUpdate: (update) => {
            taskId ||= update.task?.id ?? '';
            if (update.statusUpdate?.status.state === 'TASK_STATE_WORKING') controller.abort();
          },
        })
        .then(
          () => undefined,
          (e: unknown) => e,
        );
      outcomes.push({ executor: name, taskId, error });
    }
    const [remote, local] = outcomes;
    expect((remote!.error as Error).name).toBe('AbortError');
    expect((local!.error as Error).name).toBe('AbortError');
    expect((await remoteServer.store.get({ tenant: '', taskId: remote!.taskId }))?.task.status.state).toBe('TASK_STATE_CANCELED');
    expect((await localServer.store.get({ tenant: '', taskId: local!.taskId }))?.task.status.state).toBe('TASK_STATE_CANCELED');
  });
});
