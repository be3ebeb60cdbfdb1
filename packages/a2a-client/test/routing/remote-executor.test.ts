import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createLocalExecutor, type PeerSnapshot } from '@a2aplane/a2a-routing';
import {
  type A2AServer,
  type AgentExecutor,
  createA2AServer,
  createAgentCard,
  createNodeHttpHandler,
  createTaskUpdater,
} from '@a2aplane/a2a-server-express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createA2AClient } from '../../src/index.js';
import { createRemoteExecutor, createRemoteExecutorFactory } from '../../src/routing/index.js';

const executor: AgentExecutor = {
  async execute(context, events) {
    const updater = createTaskUpdater(context, events);
    updater.submit();
    updater.startWork();
    updater.addArtifact([{ text: 'part-1' }], { artifactId: 'a-1' });
    updater.addArtifact([{ text: 'part-2' }], { artifactId: 'a-1', append: true, lastChunk: true });
    updater.complete();
  },
};

let http: Server;
let server: A2AServer;
let url: string;

beforeAll(async () => {
  let handler: ReturnType<typeof createNodeHttpHandler> = () => undefined;
  http = createServer((req, res) => handler(req, res));
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  server = createA2AServer({
    card: createAgentCard({ baseUrl: url, name: 'remote', description: 'r', skills: [] }),
    executor,
  });
  handler = createNodeHttpHandler(server, { heartbeatMs: 0 });
});

afterAll(async () => {
  await server.close();
  http.closeAllConnections();
  await new Promise<void>((resolve) => http.close(() => resolve()));
});

const context = { traceId: '4bf92f3577b34da6a3ce929d0e0e4736', depth: 0, rootAgentId: 'root', visitedAgents: ['root'] };
const request = () => ({ message: { messageId: globalThis.crypto.randomUUID(), role: 'ROLE_USER' as const, parts: [{ text: 'go' }] } });

describe('RemoteExecutor (ADR-159 acceptance test 1: local and remote share one aggregation)', () => {
  it('gives the same final task shape as the local executor over the same agent', async () => {
    const remote = createRemoteExecutor(createA2AClient({ baseUrl: url }));
    expect(remote.kind).toBe('remote');
    const updates: unknown[] = [];
    const remoteOutcome = await remote.execute({
      request: request(),
      context,
      signal: new AbortController().signal,
      onUpdate: (u) => updates.push(u),
    });
    const local = createLocalExecutor({ stream: (req, opts) => server.stream(req, { signal: opts.signal }) });
    const localOutcome = await local.execute({ request: request(), context, signal: new AbortController().signal });

    expect(remoteOutcome.updates).toEqual(updates);
    const strip = (o: typeof remoteOutcome) => ({
      state: o.final.task?.status.state,
      artifacts: o.final.task?.artifacts?.map((a) => ({ id: a.artifactId, parts: a.parts })),
      kinds: o.updates.map((u) => Object.keys(u)[0]),
    });
    expect(strip(remoteOutcome)).toEqual(strip(localOutcome));
    expect(strip(remoteOutcome).artifacts).toEqual([{ id: 'a-1', parts: [{ text: 'part-1' }, { text: 'part-2' }] }]);
    expect(remoteOutcome.final.task?.status.state).toBe('TASK_STATE_COMPLETED');
  });

  it('the factory builds one remote executor per selected peer', async () => {
    const asked: string[] = [];
    const factory = createRemoteExecutorFactory({
      clientFor: (peer) => {
        asked.push(peer.id);
        return createA2AClient({ card: peer.card });
      },
    });
    const card = await createA2AClient({ baseUrl: url }).getCard();
    const peer: PeerSnapshot = { id: 'peer-1', card, ewmaLatencyMs: 0, ewmaCostUsd: 0, openTasks: 0, failureRate: 0 };
    const outcome = await factory(peer).execute({ request: request(), context, signal: new AbortController().signal });
    expect(asked).toEqual(['peer-1']);
    expect(outcome.final.task?.status.state).toBe('TASK_STATE_COMPLETED');
  });

  it('rejects a non-client with TypeError', () => {
    // @ts-expect-error: wrong argument on purpose
    expect(() => createRemoteExecutor({})).toThrow(TypeError);
  });
});
