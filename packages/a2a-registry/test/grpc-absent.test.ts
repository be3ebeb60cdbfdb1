import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { generateKeyPair } from '@a2aplane/a2a-identity';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createProber, createRegistry } from '../src/index.js';
import { signedCard, startAgentSite } from './helpers/agent-site.js';

// The registry installed without its optional gRPC peer dependency: the import fails.
const loads = vi.hoisted(() => ({ count: 0 }));
vi.mock('@a2aplane/a2a-grpc/client', () => {
  loads.count++;
  throw new Error("Cannot find package '@a2aplane/a2a-grpc'");
});

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

describe('gRPC probing without @a2aplane/a2a-grpc installed', () => {
  it('is not loaded by a registry whose agents offer no gRPC', async () => {
    const site = await startAgentSite();
    closers.push(site.close);
    site.handle = (req, res) => {
      if (req.method !== 'POST') return false;
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ jsonrpc: '2.0', id: 1, error: { code: -32001, message: 'no task' } }));
      return true;
    };
    const signed = signedCard(site.origin, generateKeyPair('EdDSA'));
    site.cardText = signed.text;
    const registry = createRegistry({ allowLoopback: true });
    const enrolled = await registry.enroll({ card: signed.text, jwks: signed.jwks }, { operator: 'ops' });
    if (!enrolled.ok) throw new Error(enrolled.detail);
    expect(await createProber(registry, { allowLoopback: true }).probe(enrolled.agent)).toMatchObject({ status: 'up' });
    expect(loads.count).toBe(0);
  });

  it('says so instead of probing: non-conformant when gRPC is all the agent offers, other bindings judged alone', async () => {
    let connections = 0;
    const sockets = new Set<Socket>();
    const grpcPort: Server = createServer((socket) => {
      connections++;
      sockets.add(socket);
    });
    await new Promise<void>((resolve) => grpcPort.listen(0, '127.0.0.1', resolve));
    closers.push(
      () =>
        new Promise<void>((resolve) => {
          for (const socket of sockets) socket.destroy();
          grpcPort.close(() => resolve());
        }),
    );
    const grpc = { url: `127.0.0.1:${(grpcPort.address() as AddressInfo).port}`, protocolBinding: 'GRPC', protocolVersion: '1.0' };
    const registry = createRegistry({ allowLoopback: true });
    const prober = createProber(registry, { allowLoopback: true });

    const onlyGrpc = await startAgentSite();
    closers.push(onlyGrpc.close);
    const first = signedCard(onlyGrpc.origin, generateKeyPair('EdDSA'), { card: { supportedInterfaces: [grpc] } });
    onlyGrpc.cardText = first.text;
    const cardUrl = `${onlyGrpc.origin}/.well-known/agent-card.json`;
    const enrolled = await registry.enroll({ card: first.text, jwks: first.jwks, cardUrl }, { operator: 'ops' });
    if (!enrolled.ok) throw new Error(enrolled.detail);
    expect(await prober.probe(enrolled.agent)).toMatchObject({
      status: 'non-conformant',
      reason: 'GRPC: gRPC probing needs @a2aplane/a2a-grpc and @grpc/grpc-js installed beside @a2aplane/a2a-registry',
    });

    const both = await startAgentSite();
    closers.push(both.close);
    both.handle = (req, res) => {
      if (req.method !== 'POST') return false;
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ jsonrpc: '2.0', id: 1, error: { code: -32001, message: 'no task' } }));
      return true;
    };
    const second = signedCard(both.origin, generateKeyPair('EdDSA'), {
      card: { supportedInterfaces: [{ url: `${both.origin}/a2a/jsonrpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }, grpc] },
    });
    both.cardText = second.text;
    const mixed = await registry.enroll({ card: second.text, jwks: second.jwks }, { operator: 'ops' });
    if (!mixed.ok) throw new Error(mixed.detail);
    expect(await prober.probe(mixed.agent)).toMatchObject({ status: 'up', reason: '' });
    expect(connections).toBe(0);
    expect(loads.count).toBe(1);
  });
});
