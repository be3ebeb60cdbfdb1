import { createServer as createHttp2Server, type Http2Server } from 'node:http2';
import { createServer as createTcpServer, type Server as TcpServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { grpcInterface } from '@a2aplane/a2a-grpc/client';
import { bindA2AGrpc } from '@a2aplane/a2a-grpc/server';
import { createA2AServer, createTaskUpdater, type AgentExecutor } from '@a2aplane/a2a-server-express';
import { ServerCredentials } from '@grpc/grpc-js';
import { generateKeyPair } from '@a2aplane/a2a-identity';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createProber, createRegistry, type Registry } from '../src/index.js';
import { grpcTargetOf } from '../src/core/grpc-target.js';
import { type baseCard, signedCard, startAgentSite, type AgentSite } from './helpers/agent-site.js';

const closers: Array<() => Promise<void>> = [];
let registry: Registry;
beforeEach(() => {
  registry = createRegistry({ allowLoopback: true });
});
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

const echo: AgentExecutor = {
  async execute(context, events) {
    const task = createTaskUpdater(context, events);
    task.submit();
    task.complete();
  },
};

/** An agent site whose card (signed, AgentID declared) advertises the given gRPC target, and its enrollment. */
async function enrollGrpcAgent(target: string, extra: Array<{ url: string; protocolBinding: string; protocolVersion: string }> = []) {
  const site: AgentSite = await startAgentSite();
  closers.push(site.close);
  const key = generateKeyPair('EdDSA');
  const card = {
    supportedInterfaces: [...extra.map((entry) => ({ ...entry, url: entry.url.replace('ORIGIN', site.origin) })), grpcInterface(target)],
  };
  const signed = signedCard(site.origin, key, { card: card as Parameters<typeof baseCard>[1] });
  site.cardText = signed.text;
  site.jwks = signed.jwks;
  const enrolled = await registry.enroll(
    { card: signed.text, jwks: signed.jwks, cardUrl: `${site.origin}/.well-known/agent-card.json` },
    { operator: 'ops' },
  );
  if (!enrolled.ok) throw new Error(`enrollment refused: ${enrolled.reason} ${enrolled.detail}`);
  return enrolled.agent;
}

async function listenTcp(onSocket: (socket: Socket) => void): Promise<{ target: string; connections: () => number }> {
  let connections = 0;
  const sockets = new Set<Socket>();
  const server: TcpServer = createTcpServer((socket) => {
    connections++;
    sockets.add(socket);
    socket.on('error', () => undefined);
    onSocket(socket);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(
    () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  );
  return { target: `127.0.0.1:${(server.address() as AddressInfo).port}`, connections: () => connections };
}

describe('gRPC probing (decision 0145)', () => {
  it('marks an agent served by a2a-grpc up: GetTask of an unknown id answers NOT_FOUND TaskNotFound', async () => {
    const binding = await bindA2AGrpc({ port: 0, credentials: ServerCredentials.createInsecure() });
    closers.push(() => binding.close(0));
    const agent = await enrollGrpcAgent(binding.target);
    binding.serve(createA2AServer({ card: agent.card, executor: echo }));
    const prober = createProber(registry, { allowLoopback: true });
    expect(await prober.runOnce()).toEqual({ probed: 1, skipped: 0 });
    expect((await registry.lookupAgent(agent.agentId))?.health).toMatchObject({ status: 'up', reason: '', consecutiveFailures: 0 });
    expect(prober.maxInFlight).toBe(1);
  });

  it('marks a gRPC port that answers HTTP/2 but not gRPC non-conformant, with what it answered', async () => {
    const h2: Http2Server = createHttp2Server((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<html>hello</html>');
    });
    await new Promise<void>((resolve) => h2.listen(0, '127.0.0.1', resolve));
    closers.push(() => new Promise<void>((resolve) => h2.close(() => resolve())));
    const agent = await enrollGrpcAgent(`127.0.0.1:${(h2.address() as AddressInfo).port}`);
    const health = await createProber(registry, { allowLoopback: true }).probe(agent);
    expect(health.status).toBe('non-conformant');
    expect(health.reason).toMatch(/^GRPC: GetTask of an unknown id answered gRPC \w+ without ErrorInfo TASK_NOT_FOUND/);
  });

  it('marks a port that answers garbage bytes non-conformant, and one that says nothing down after the timeout', async () => {
    const garbage = await listenTcp((socket) => socket.end(Buffer.from('HTTP/1.1 200 OK\r\n\r\nthis is not gRPC at all\r\n')));
    const noisy = await enrollGrpcAgent(garbage.target);
    const answered = await createProber(registry, { allowLoopback: true, timeoutMs: 3000 }).probe(noisy);
    expect(garbage.connections()).toBeGreaterThan(0);
    expect(answered.status).toBe('non-conformant');
    expect(answered.reason).toMatch(/^GRPC: the port answered bytes that are not HTTP\/2 \(gRPC UNAVAILABLE: .*Protocol error\.?\)$/);

    const silent = await listenTcp(() => undefined);
    const mute = await enrollGrpcAgent(silent.target);
    const timedOut = await createProber(registry, { allowLoopback: true, timeoutMs: 300 }).probe(mute);
    expect(timedOut).toMatchObject({ status: 'down', reason: 'GRPC: no answer within 300 ms' });

    // A closed port: nothing answers, the agent is down (not non-conformant).
    const closed = await listenTcp(() => undefined);
    const closeTcp = closers.pop() as () => Promise<void>;
    await closeTcp();
    const gone = await enrollGrpcAgent(closed.target);
    const refused = await createProber(registry, { allowLoopback: true, timeoutMs: 3000 }).probe(gone);
    expect(refused.status).toBe('down');
    expect(refused.reason).toMatch(/^GRPC: unreachable: gRPC UNAVAILABLE: .*ECONNREFUSED/);
  });

  it('judges every binding: a conformant JSONRPC beside a gRPC port that answers garbage is degraded', async () => {
    const h2: Http2Server = createHttp2Server((_req, res) => res.writeHead(404).end());
    await new Promise<void>((resolve) => h2.listen(0, '127.0.0.1', resolve));
    closers.push(() => new Promise<void>((resolve) => h2.close(() => resolve())));
    const site = await startAgentSite();
    closers.push(site.close);
    // The JSONRPC side: the agent site answers GetTask with TaskNotFound itself.
    site.handle = (req, res) => {
      if (req.method !== 'POST') return false;
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ jsonrpc: '2.0', id: 1, error: { code: -32001, message: 'no task' } }));
      return true;
    };
    const key = generateKeyPair('EdDSA');
    const signed = signedCard(site.origin, key, {
      card: {
        supportedInterfaces: [
          { url: `${site.origin}/a2a/jsonrpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
          grpcInterface(`127.0.0.1:${(h2.address() as AddressInfo).port}`),
        ],
      },
    });
    site.cardText = signed.text;
    const enrolled = await registry.enroll({ card: signed.text, jwks: signed.jwks }, { operator: 'ops' });
    expect(enrolled.ok).toBe(true);
    const health = await createProber(registry, { allowLoopback: true }).probe(
      (enrolled as { agent: Parameters<ReturnType<typeof createProber>['probe']>[0] }).agent,
    );
    expect(health.status).toBe('degraded');
    expect(health.reason).toMatch(/^GRPC: GetTask of an unknown id answered gRPC/);
  });

  it('dials gRPC only on the enrolled host, and SSRF rules apply to the target', async () => {
    expect(grpcTargetOf('127.0.0.1:50051', 'http://127.0.0.1:8080')).toEqual({ target: '127.0.0.1:50051', tls: false });
    expect(grpcTargetOf('agent.example.com:443', 'https://agent.example.com')).toEqual({ target: 'agent.example.com:443', tls: true });
    expect(grpcTargetOf('https://agent.example.com/a2a/grpc', 'https://agent.example.com')).toEqual({
      target: 'agent.example.com:443',
      tls: true,
    });
    expect(grpcTargetOf('[::1]:9000', 'http://[::1]:8080')).toEqual({ target: '[::1]:9000', tls: false });
    expect(grpcTargetOf('evil.example.net:443', 'https://agent.example.com')).toBeUndefined();
    expect(grpcTargetOf('169.254.169.254:80', 'https://agent.example.com')).toBeUndefined();
    expect(grpcTargetOf('dns:///agent.example.com:443', 'https://agent.example.com')).toBeUndefined();
    // A gRPC interface on another host is never dialed: enrollment needs one on the origin, the probe skips it.
    const elsewhere = await listenTcp((socket) => socket.destroy());
    const site = await startAgentSite();
    closers.push(site.close);
    const key = generateKeyPair('EdDSA');
    const signed = signedCard(site.origin, key, {
      card: { supportedInterfaces: [grpcInterface(elsewhere.target.replace('127.0.0.1', 'localhost'))] },
    });
    site.cardText = signed.text;
    const refused = await registry.enroll(
      { card: signed.text, jwks: signed.jwks, cardUrl: `${site.origin}/.well-known/agent-card.json` },
      { operator: 'ops' },
    );
    expect(refused).toMatchObject({ ok: false, reason: 'interface-off-origin' });
    // Without allowLoopback the prober refuses the loopback target before dialing.
    const binding = await bindA2AGrpc({ port: 0, credentials: ServerCredentials.createInsecure() });
    closers.push(() => binding.close(0));
    const agent = await enrollGrpcAgent(binding.target);
    const guarded = await createProber(registry, {}).probe({ ...agent, cardUrl: agent.cardUrl });
    expect(guarded.status).toBe('down');
    expect(elsewhere.connections()).toBe(0);
  });
});
